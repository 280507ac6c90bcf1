package io.strata.bench.walsync;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.strata.cli.CommandLines;
import io.strata.cli.JsonReports;
import io.strata.hbase.tiering.WalDurability;
import io.strata.local.LocalClusterConfig;
import io.strata.local.TieredDfsCluster;
import io.strata.metrics.Percentiles;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.Options;
import org.apache.hadoop.fs.BlockStoragePolicySpi;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlocks;

/**
 * {@code strata bench wal-sync}: the latency of a WAL's syncs under each live-WAL storage
 * policy, in one run on one embedded tiered HDFS (3 DataNodes with NVDIMM on the RAM tier, SSD
 * and DISK volumes). Per policy, a file in a directory with that policy is written as a WAL is:
 * an edit of {@code --edit-bytes}, then {@code hflush} (HBase's default WAL sync: every replica
 * has it in memory) or {@code hsync} (each DataNode also fsyncs; {@code hbase.wal.hsync=true}),
 * through HDFS's replication pipeline (FSHLog's writer; AsyncFSWAL fans out to the same
 * DataNodes). Reports p50, p99, p99.9 and the mean per policy and sync, with where the blocks'
 * replicas were and what a reboot of their hosts leaves. The policies take turns, so load from
 * outside the run falls on all of them.
 */
public final class WalSyncBench {
  private static final String COMMAND = "strata bench wal-sync";
  static final List<String> DEFAULT_POLICIES = List.of("ALL_NVDIMM", "RAM_SSD", "ALL_SSD");
  static final String[] SYNCS = { "hflush", "hsync" };
  private static final String HEADER = "Measures WAL-style hflush and hsync latency (p50, p99, "
    + "p99.9) under each live-WAL storage policy on one embedded tiered HDFS, policies taking "
    + "turns, and says what a reboot of the hosts holding the blocks leaves of each.\n\n";

  private WalSyncBench() {
  }

  /** What one run does. */
  record Settings(List<String> policies, int syncs, int warmup, int rounds, int editBytes,
    File workDir, File ramDir) {
  }

  /** One policy's results: sync latencies in microseconds and where its replicas were. */
  record Outcome(String policy, Map<String, long[]> micros, Map<StorageType, Integer> replicas,
    boolean durable, String verdict) {
    long percentile(String sync, double p) {
      long[] s = micros.get(sync);
      return Percentiles.nearestRank(s, s.length, p);
    }

    double mean(String sync) {
      return Arrays.stream(micros.get(sync)).average().orElse(0);
    }
  }

  static Options options() {
    Options o = new Options();
    o.addOption(null, "policies", true, "comma-separated storage policies (default "
      + String.join(",", DEFAULT_POLICIES) + ")");
    o.addOption(null, "syncs", true, "measured syncs per policy and kind of sync (default 3000)");
    o.addOption(null, "warmup", true, "unmeasured syncs first, per policy and kind (default 300)");
    o.addOption(null, "rounds", true, "turns the policies take, each a share of the syncs "
      + "(default 5)");
    o.addOption(null, "edit-bytes", true, "bytes written before each sync (default 512)");
    o.addOption(null, "json", true, "also write the results as JSON to this file");
    o.addOption(null, "work-dir", true, "directory for the cluster's data, wiped at start "
      + "(default $STRATA_WORK/bench/wal-sync)");
    o.addOption(null, "ram-dir", true, "RAM tier directory (default /dev/shm/strata-wal-sync-"
      + "<user>)");
    o.addOption("h", "help", false, "this text");
    return o;
  }

  public static void main(String[] args) {
    CommandLines.runAndHalt(COMMAND, () -> run(args, System.out));
  }

  static Settings settings(CommandLine cl) {
    List<String> policies = new ArrayList<>();
    for (String p : cl.getOptionValue("policies", String.join(",", DEFAULT_POLICIES))
      .split(",")) {
      if (!p.trim().isEmpty()) {
        policies.add(p.trim().toUpperCase(Locale.ROOT));
      }
    }
    if (policies.isEmpty()) {
      throw new IllegalArgumentException("--policies names no policy");
    }
    int rounds = (int) CommandLines.wholeNumber(cl, "rounds", 5, 1);
    int syncs = (int) CommandLines.wholeNumber(cl, "syncs", 3000, 1);
    if (syncs < rounds) {
      throw new IllegalArgumentException("--syncs " + syncs + " is fewer than --rounds "
        + rounds);
    }
    return new Settings(policies, syncs, (int) CommandLines.wholeNumber(cl, "warmup", 300, 0),
      rounds, (int) CommandLines.wholeNumber(cl, "edit-bytes", 512, 1),
      new File(cl.getOptionValue("work-dir", CommandLines.workDir("bench/wal-sync").getPath())),
      new File(cl.getOptionValue("ram-dir", "/dev/shm/strata-wal-sync-"
        + System.getProperty("user.name", "user"))));
  }

  static int run(String[] args, PrintStream out) throws Exception {
    CommandLines.Parsed<Settings> parsed;
    try {
      parsed = CommandLines.settings(COMMAND, COMMAND + " [options]", HEADER, options(), args,
        WalSyncBench::settings);
    } catch (CommandLines.Exit e) {
      return e.code();
    }
    Settings s = parsed.settings();
    // Each open block reserves its whole size on its volume: small blocks keep the six open
    // files' RAM replicas well within the tier, so no policy falls back for want of room.
    LocalClusterConfig config = new LocalClusterConfig().workDir(s.workDir()).ramDir(s.ramDir())
      .ramBytesPerDataNode(512L << 20).blockSizeBytes(16L << 20).startSatisfier(false)
      .startTierMover(false);
    out.printf(Locale.ROOT, "%s: policies %s, %d syncs of %d bytes per policy and kind (after %d "
      + "unmeasured) in %d rounds; 3 DataNodes, data in %s, RAM tier in %s%n", COMMAND,
      s.policies(), s.syncs(), s.editBytes(), s.warmup(), s.rounds(), s.workDir(), s.ramDir());
    List<Outcome> outcomes;
    try (TieredDfsCluster dfs = TieredDfsCluster.start(config)) {
      outcomes = measure(dfs.fileSystem(), s, out);
    }
    out.println();
    out.print(table(outcomes));
    CommandLine cl = parsed.line();
    if (cl.hasOption("json")) {
      File file = new File(cl.getOptionValue("json"));
      JsonReports.write(file, json(s, outcomes));
      out.println("JSON written to " + file);
    }
    return 0;
  }

  static List<Outcome> measure(DistributedFileSystem fs, Settings s, PrintStream out)
    throws IOException {
    List<BlockStoragePolicySpi> offered = new ArrayList<>(fs.getAllStoragePolicies());
    byte[] edit = new byte[s.editBytes()];
    new Random(42).nextBytes(edit);
    int n = s.policies().size();
    // Per policy and kind of sync: the open file and its measured latencies.
    FSDataOutputStream[][] streams = new FSDataOutputStream[n][SYNCS.length];
    Path[][] files = new Path[n][SYNCS.length];
    long[][][] micros = new long[n][SYNCS.length][s.syncs()];
    for (int i = 0; i < n; i++) {
      String policy = s.policies().get(i);
      Path dir = new Path("/wal-sync/" + policy);
      fs.mkdirs(dir);
      fs.setStoragePolicy(dir, policy);
      for (int k = 0; k < SYNCS.length; k++) {
        files[i][k] = new Path(dir, SYNCS[k]);
        streams[i][k] = fs.create(files[i][k], true);
        for (int w = 0; w < s.warmup(); w++) {
          sync(streams[i][k], edit, k);
        }
      }
    }
    int done = 0;
    for (int r = 0; r < s.rounds(); r++) {
      int upTo = (int) ((long) s.syncs() * (r + 1) / s.rounds());
      for (int i = 0; i < n; i++) {
        for (int k = 0; k < SYNCS.length; k++) {
          for (int j = done; j < upTo; j++) {
            long t0 = System.nanoTime();
            sync(streams[i][k], edit, k);
            micros[i][k][j] = (System.nanoTime() - t0) / 1_000;
          }
        }
      }
      done = upTo;
      out.printf(Locale.ROOT, "round %d/%d: %d syncs per policy and kind%n", r + 1, s.rounds(),
        done);
    }
    List<Outcome> outcomes = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String policy = s.policies().get(i);
      // Where the blocks being written are, as the NameNode reports their pipelines.
      WalDurability.Verdict v = WalDurability.judge(policy, offered, 3, false);
      List<StorageType> expected = v == null ? null : sorted(v.replicas());
      Map<StorageType, Integer> replicas = new EnumMap<>(StorageType.class);
      int fellBack = 0;
      for (int k = 0; k < SYNCS.length; k++) {
        LocatedBlocks lb = fs.getClient().getLocatedBlocks(files[i][k].toUri().getPath(), 0,
          Long.MAX_VALUE);
        Map<Long, LocatedBlock> blocks = new java.util.LinkedHashMap<>();
        for (LocatedBlock b : lb.getLocatedBlocks()) {
          blocks.put(b.getBlock().getBlockId(), b);
        }
        if (lb.getLastLocatedBlock() != null) {
          blocks.putIfAbsent(lb.getLastLocatedBlock().getBlock().getBlockId(),
            lb.getLastLocatedBlock());
        }
        for (LocatedBlock b : blocks.values()) {
          for (StorageType t : b.getStorageTypes()) {
            replicas.merge(t, 1, Integer::sum);
          }
          if (expected != null && !expected.equals(sorted(Arrays.asList(b.getStorageTypes())))) {
            fellBack++;
          }
        }
        streams[i][k].close();
      }
      if (fellBack > 0) {
        out.printf(Locale.ROOT, "note: %d block(s) of %s are not where the policy puts them "
          + "(%s): a creation fallback, e.g. a full tier%n", fellBack, policy, expected);
      }
      Map<String, long[]> bySync = new java.util.LinkedHashMap<>();
      for (int k = 0; k < SYNCS.length; k++) {
        bySync.put(SYNCS[k], micros[i][k]);
      }
      outcomes.add(new Outcome(policy, bySync, replicas, v != null && v.durable(),
        v == null ? "not a policy of this HDFS" : v.describe()));
    }
    return outcomes;
  }

  private static List<StorageType> sorted(List<StorageType> types) {
    List<StorageType> out = new ArrayList<>(types);
    out.sort(null);
    return out;
  }

  private static void sync(FSDataOutputStream s, byte[] edit, int kind) throws IOException {
    s.write(edit);
    if (kind == 0) {
      s.hflush();
    } else {
      s.hsync();
    }
  }

  /** The report: one line per policy, latencies in microseconds. */
  static String table(List<Outcome> outcomes) {
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT, "%-11s %-26s %-31s %-31s %s%n", "policy",
      "replicas (blocks written)", "hflush us p50/p99/p99.9 (mean)",
      "hsync us p50/p99/p99.9 (mean)", "after a reboot of the 3 hosts"));
    for (Outcome o : outcomes) {
      sb.append(String.format(Locale.ROOT, "%-11s %-26s %-31s %-31s %s%n", o.policy(),
        o.replicas(), latencies(o, "hflush"), latencies(o, "hsync"),
        o.durable() ? "kept (>= 2 replicas on disk-backed storage)"
          : "LOST on tmpfs (every replica in volatile memory)"));
    }
    return sb.toString();
  }

  private static String latencies(Outcome o, String sync) {
    return String.format(Locale.ROOT, "%d/%d/%d (%.0f)", o.percentile(sync, 50),
      o.percentile(sync, 99), o.percentile(sync, 99.9), o.mean(sync));
  }

  static ObjectNode json(Settings s, List<Outcome> outcomes) {
    ObjectNode doc = new ObjectMapper().createObjectNode();
    doc.put("command", COMMAND);
    doc.put("syncs_per_policy_and_kind", s.syncs());
    doc.put("warmup", s.warmup());
    doc.put("rounds", s.rounds());
    doc.put("edit_bytes", s.editBytes());
    ArrayNode arr = doc.putArray("policies");
    for (Outcome o : outcomes) {
      ObjectNode n = arr.addObject();
      n.put("policy", o.policy());
      n.put("durable_across_reboot", o.durable());
      n.put("verdict", o.verdict());
      ObjectNode r = n.putObject("replicas");
      o.replicas().forEach((t, c) -> r.put(t.name(), c));
      for (String sync : SYNCS) {
        ObjectNode l = n.putObject(sync + "_us");
        l.put("p50", o.percentile(sync, 50));
        l.put("p99", o.percentile(sync, 99));
        l.put("p999", o.percentile(sync, 99.9));
        l.put("mean", o.mean(sync));
      }
    }
    return doc;
  }
}
