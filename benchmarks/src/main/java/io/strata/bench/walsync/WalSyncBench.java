package io.strata.bench.walsync;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.strata.cli.CommandLines;
import io.strata.hbase.tiering.WalDurability;
import io.strata.local.LocalClusterConfig;
import io.strata.local.TieredDfsCluster;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.Options;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.DistributedFileSystem;

/**
 * {@code strata bench wal-sync}: what a WAL sync costs under each WAL placement a user can choose,
 * next to what that placement keeps after a reboot. One embedded tiered HDFS (3 DataNodes, each
 * with a RAM tier on tmpfs and SSD, DISK, ARCHIVE directories), one run: per policy and per sync
 * mode ({@code hflush}, HBase's default, and {@code hsync}, {@code Durability.FSYNC_WAL} or
 * {@code hbase.wal.hsync}), a writer appends WAL-sized entries to a 3-replica file under a
 * directory with that policy and syncs after each, the latency of append+sync recorded. The
 * cells run in rounds, the policies' order rotated from one round to the next, so every policy
 * sees the same background. Each file's replicas are read back from the NameNode, so the report
 * says where the bytes really were, not where the policy asked for them.
 */
public final class WalSyncBench {
  /** The placements compared: the all-RAM one, Strata's default, all-SSD, upstream's default. */
  static final List<String> POLICIES = List.of("ALL_NVDIMM", "RAM_SSD", "ALL_SSD", "HOT");
  static final List<String> MODES = List.of("hflush", "hsync");
  private static final String HEADER = "Latency of a WAL append+sync under each WAL storage "
    + "policy (ALL_NVDIMM, Strata's default RAM_SSD, ALL_SSD, HOT) with hflush and hsync, on one "
    + "embedded tiered HDFS, in rotated rounds; and where each policy's replicas were.\n\n";

  /** What one run is given. */
  record Settings(int entries, int entryBytes, int rounds, File workDir, File ramDir,
    List<String> policies) {
    static Settings of(CommandLine cl) {
      int entries = (int) CommandLines.wholeNumber(cl, "entries", 3000, 10);
      int entryBytes = (int) CommandLines.wholeNumber(cl, "entry-bytes", 1024, 1);
      int rounds = (int) CommandLines.wholeNumber(cl, "rounds", 3, 1);
      List<String> policies = cl.hasOption("policies")
        ? Arrays.asList(cl.getOptionValue("policies").split(",")) : POLICIES;
      for (String p : policies) {
        if (!POLICIES.contains(p)) {
          throw new IllegalArgumentException("--policies: unknown policy '" + p + "'; known: "
            + POLICIES);
        }
      }
      File work = new File(cl.getOptionValue("work-dir",
        CommandLines.workDir("bench/wal-sync").getPath())).getAbsoluteFile();
      File ram = new File(cl.getOptionValue("ram-dir", "/dev/shm/strata-"
        + System.getProperty("user.name") + "-wal-sync")).getAbsoluteFile();
      return new Settings(entries, entryBytes, rounds, work, ram, policies);
    }
  }

  /** One policy and mode: latencies over every round, and where its files' replicas were. */
  record Cell(@JsonProperty("ops") long ops, @JsonProperty("p50_us") long p50Us,
    @JsonProperty("p99_us") long p99Us, @JsonProperty("p999_us") long p999Us,
    @JsonProperty("max_us") long maxUs, @JsonProperty("round_p50_us") List<Long> roundP50Us,
    @JsonProperty("replicas") Map<String, Long> replicas,
    @JsonProperty("as_policy") boolean asPolicy) {
  }

  /** The whole run, as written to {@code --json}. */
  record Result(@JsonProperty("command") String command, @JsonProperty("date") String date,
    @JsonProperty("transport") String transport, @JsonProperty("emulation") String emulation,
    @JsonProperty("entries_per_cell") int entries, @JsonProperty("entry_bytes") int entryBytes,
    @JsonProperty("rounds") int rounds, @JsonProperty("ram_tier_fs") String ramTierFs,
    @JsonProperty("durability") Map<String, String> durability,
    @JsonProperty("policies") Map<String, Map<String, Cell>> policies) {
  }

  private WalSyncBench() {
  }

  static Options options() {
    Options o = new Options();
    o.addOption(null, "entries", true, "appends+syncs per policy, mode and round (default 3000)");
    o.addOption(null, "entry-bytes", true, "bytes per append (default 1024)");
    o.addOption(null, "rounds", true, "rounds, the policies' order rotated (default 3)");
    o.addOption(null, "policies", true, "comma-separated subset of " + POLICIES);
    o.addOption(null, "json", true, "also write the results as JSON to this file");
    o.addOption(null, "out", true, "write report.md and results.json to this directory");
    o.addOption(null, "work-dir", true, "directory of the cluster's data, wiped per run "
      + "(default $STRATA_WORK/bench/wal-sync)");
    o.addOption(null, "ram-dir", true, "directory of the RAM tier, on tmpfs (default "
      + "/dev/shm/strata-$USER-wal-sync)");
    o.addOption("h", "help", false, "this text");
    return o;
  }

  public static void main(String[] args) {
    CommandLines.runAndHalt("strata bench wal-sync", () -> run(args, System.out));
  }

  static int run(String[] args, PrintStream out) throws Exception {
    CommandLines.Parsed<Settings> parsed;
    try {
      parsed = CommandLines.settings("strata bench wal-sync", "strata bench wal-sync [options]",
        HEADER, options(), args, Settings::of);
    } catch (CommandLines.Exit e) {
      return e.code();
    }
    Settings s = parsed.settings();
    CommandLine cl = parsed.line();
    LocalClusterConfig config = new LocalClusterConfig().workDir(s.workDir()).ramDir(s.ramDir())
      .dataNodes(3).startSatisfier(false).startTierMover(false)
      .ramBytesPerDataNode(1024L << 20).blockSizeBytes(64L << 20);
    Result result;
    try (TieredDfsCluster cluster = TieredDfsCluster.start(config)) {
      result = measure(cluster, s, String.join(" ", prefixed(args)), out);
    }
    String md = markdown(result);
    out.println();
    out.print(md);
    ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    if (cl.hasOption("json")) {
      File f = new File(cl.getOptionValue("json"));
      mapper.writeValue(f, result);
      out.println("JSON written to " + f);
    }
    if (cl.hasOption("out")) {
      File dir = new File(cl.getOptionValue("out"));
      Files.createDirectories(dir.toPath());
      mapper.writeValue(new File(dir, "results.json"), result);
      Files.writeString(new File(dir, "report.md").toPath(), md, StandardCharsets.UTF_8);
      out.println("report written to " + dir);
    }
    return 0;
  }

  private static List<String> prefixed(String[] args) {
    List<String> l = new ArrayList<>(List.of("./strata", "bench", "wal-sync"));
    l.addAll(Arrays.asList(args));
    return l;
  }

  static Result measure(TieredDfsCluster cluster, Settings s, String command, PrintStream out)
    throws IOException {
    DistributedFileSystem fs = cluster.fileSystem();
    Map<String, Map<String, Histogram>> hist = new LinkedHashMap<>();
    Map<String, Map<String, List<Long>>> roundP50 = new LinkedHashMap<>();
    for (String p : s.policies()) {
      Path dir = new Path("/wal-sync/" + p);
      fs.mkdirs(dir);
      fs.setStoragePolicy(dir, p);
      for (String m : MODES) {
        hist.computeIfAbsent(p, k -> new LinkedHashMap<>()).put(m, new Histogram(3));
        roundP50.computeIfAbsent(p, k -> new LinkedHashMap<>()).put(m, new ArrayList<>());
      }
    }
    byte[] entry = new byte[s.entryBytes()];
    ThreadLocalRandom.current().nextBytes(entry);
    // Warm the pipelines and the JIT once per policy before anything is recorded.
    for (String p : s.policies()) {
      write(fs, new Path("/wal-sync/" + p + "/warmup"), entry, Math.min(200, s.entries()),
        "hflush", null);
    }
    for (int round = 0; round < s.rounds(); round++) {
      List<String> order = new ArrayList<>(s.policies());
      java.util.Collections.rotate(order, -round);
      for (String p : order) {
        for (String m : MODES) {
          Histogram h = new Histogram(3);
          write(fs, new Path("/wal-sync/" + p + "/" + m + "-" + round), entry, s.entries(), m, h);
          hist.get(p).get(m).add(h);
          roundP50.get(p).get(m).add(h.getValueAtPercentile(50));
          out.printf(Locale.ROOT, "round %d %-10s %-6s p50 %6d us  p99 %6d us  p99.9 %6d us%n",
            round + 1, p, m, h.getValueAtPercentile(50), h.getValueAtPercentile(99),
            h.getValueAtPercentile(99.9));
        }
      }
    }
    Map<String, Map<String, Cell>> cells = new LinkedHashMap<>();
    for (String p : s.policies()) {
      for (String m : MODES) {
        Histogram h = hist.get(p).get(m);
        Map<String, Long> replicas = replicas(fs, new Path("/wal-sync/" + p), m + "-");
        cells.computeIfAbsent(p, k -> new LinkedHashMap<>()).put(m, new Cell(h.getTotalCount(),
          h.getValueAtPercentile(50), h.getValueAtPercentile(99), h.getValueAtPercentile(99.9),
          h.getMaxValue(), roundP50.get(p).get(m), replicas, asPolicy(p, replicas)));
      }
    }
    // The same verdict a RegionServer reaches at start, on the policies as this NameNode has them.
    java.util.Collection<org.apache.hadoop.hdfs.protocol.BlockStoragePolicy> offered =
      fs.getAllStoragePolicies();
    Map<String, String> durability = new LinkedHashMap<>();
    for (String p : s.policies()) {
      durability.put(p, durability(WalDurability.judge(p, offered, 3, false)));
    }
    return new Result(command, Instant.now().toString(), "none",
      "none", s.entries(), s.entryBytes(), s.rounds(), ramFs(cluster.config().ramDir()),
      durability, cells);
  }

  /** Appends {@code n} entries to a new 3-replica file, each followed by the mode's sync. */
  private static void write(DistributedFileSystem fs, Path file, byte[] entry, int n, String mode,
    Histogram h) throws IOException {
    try (FSDataOutputStream os = fs.create(file, (short) 3)) {
      for (int i = 0; i < n; i++) {
        long t0 = System.nanoTime();
        os.write(entry);
        if ("hsync".equals(mode)) {
          os.hsync();
        } else {
          os.hflush();
        }
        long us = TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - t0);
        if (h != null) {
          h.recordValue(Math.max(1, us));
        }
      }
    }
  }

  /** Replicas of the files under {@code dir} whose names start with {@code prefix}, by type. */
  static Map<String, Long> replicas(DistributedFileSystem fs, Path dir, String prefix)
    throws IOException {
    Map<String, Long> byType = new TreeMap<>();
    RemoteIterator<LocatedFileStatus> it = fs.listFiles(dir, false);
    while (it.hasNext()) {
      LocatedFileStatus st = it.next();
      if (!st.getPath().getName().startsWith(prefix)) {
        continue;
      }
      for (BlockLocation b : st.getBlockLocations()) {
        for (StorageType t : b.getStorageTypes()) {
          byType.merge(t.name(), 1L, Long::sum);
        }
      }
    }
    return byType;
  }

  /**
   * Whether the replicas are where the policy puts them: a full tier makes HDFS fall back (to
   * DISK for the RAM policies), and a latency measured there is not the policy's.
   */
  static boolean asPolicy(String policy, Map<String, Long> replicas) {
    long total = replicas.values().stream().mapToLong(Long::longValue).sum();
    long ram = replicas.getOrDefault("NVDIMM", 0L);
    switch (policy) {
      case "ALL_NVDIMM":
        return total > 0 && ram == total;
      case "RAM_SSD":
        return total > 0 && 3 * ram == total && replicas.getOrDefault("SSD", 0L) == 2 * ram;
      case "ALL_SSD":
        return total > 0 && replicas.getOrDefault("SSD", 0L) == total;
      case "HOT":
        return total > 0 && replicas.getOrDefault("DISK", 0L) == total;
      default:
        throw new IllegalArgumentException(policy);
    }
  }

  /** What a policy keeps after the hosts holding a WAL's replicas reboot (tmpfs RAM tier). */
  static String durability(WalDurability.Verdict v) {
    return (v.durable() ? "survives a reboot of the hosts holding the WAL: "
      : "lost on a reboot of the hosts holding the WAL (RAM tier on tmpfs; only with "
        + "strata.unsafe.wal.volatile.accept): ") + v.describe();
  }

  private static String ramFs(File dir) {
    try {
      return Files.getFileStore(dir.toPath()).type();
    } catch (IOException e) {
      return "unknown (" + e.getMessage() + ")";
    }
  }

  static String markdown(Result r) {
    StringBuilder b = new StringBuilder();
    b.append("# WAL sync latency and durability per WAL placement\n\n");
    b.append("Command: `").append(r.command()).append("` (").append(r.date()).append("). ")
      .append(r.entries()).append(" appends of ").append(r.entryBytes())
      .append(" bytes per policy, mode and round, ").append(r.rounds())
      .append(" rounds with the policies' order rotated; one embedded HDFS of 3 DataNodes, 3 "
        + "replicas; RAM tier on ").append(r.ramTierFs()).append(", SSD and DISK directories "
        + "on the machine's own disk (media emulation: ").append(r.emulation())
      .append(", so SSD and DISK differ only by what the file system does with them). Latency "
        + "is append+sync as the WAL writer sees it.\n\n");
    b.append("| policy | sync | p50 µs | p99 µs | p99.9 µs | max µs | p50 per round µs | "
      + "replicas by type | durability |\n|---|---|---:|---:|---:|---:|---|---|---|\n");
    r.policies().forEach((p, modes) -> modes.forEach((m, c) -> b.append(String.format(
      Locale.ROOT, "| %s | %s | %d | %d | %d | %d | %s | %s%s | %s |%n", p, m, c.p50Us(),
      c.p99Us(), c.p999Us(), c.maxUs(), c.roundP50Us(), c.replicas(),
      c.asPolicy() ? "" : " **not where the policy puts them: not this policy's latency**",
      r.durability().get(p)))));
    return b.toString();
  }
}
