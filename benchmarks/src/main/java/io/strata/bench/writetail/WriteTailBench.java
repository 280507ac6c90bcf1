package io.strata.bench.writetail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.strata.bench.JvmCommand;
import io.strata.metrics.Median;
import io.strata.bench.monitor.BenchMonitor;
import io.strata.bench.writetail.MemStoreActivityObserver.Counts;
import io.strata.cli.CommandLines;
import io.strata.cli.JsonReports;
import io.strata.local.EmbeddedHBase;
import io.strata.local.LocalClusterConfig;
import io.strata.local.TieredDfsCluster;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.HdrHistogram.Histogram;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.Options;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.MemoryCompactionPolicy;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.CompactionState;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.io.util.MemorySizeUtil;
import org.apache.hadoop.hbase.regionserver.CompactingMemStore;
import org.apache.hadoop.hbase.regionserver.DisabledRegionSplitPolicy;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.HRegionServer;
import org.apache.hadoop.hbase.regionserver.MemStoreLAB;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.DirectMemoryUtils;

/**
 * {@code strata bench write-tail}: the tail latency of single-row Puts through memstore flushes
 * under HBase 2.x in-memory compaction policies (NONE, BASIC, EAGER by default), on one embedded
 * tiered cluster.
 *
 * <p>Each policy gets its own single-region table (the family's {@code IN_MEMORY_COMPACTION}
 * set, a small memstore flush size, no splits). The policies take turns: the rows are written in
 * rounds, each round giving every policy an equal share, in an order that rotates from round to
 * round, so that the machine's noise over time falls on all of them alike; between turns the
 * cluster is let settle (no flush, compaction or in-memory compaction running or queued), so no
 * policy pays for another's background work. Every Put's latency goes into an HdrHistogram, and
 * into one per second of the run ({@link Timeline}), beside the flushes and GC pauses of the
 * policy's turns.
 *
 * <p>{@code --settings study} runs the RegionServer with the write-tail study's memstore settings;
 * {@code --regions N} pre-splits each table so that N regions fill and flush together, as the
 * study's balanced regions did. The off-heap memstore ({@code --offheap}) is JVM-wide in HBase
 * (one {@code ChunkCreator} per JVM, set up by the first RegionServer), so its variant runs after
 * the others on a cluster of its own in a JVM of its own, started with enough direct memory.
 */
public final class WriteTailBench {
  static final String COMMAND = "strata bench write-tail";
  private static final Duration SETTLE_LIMIT = Duration.ofSeconds(120);
  private static final String HEADER = "Writes single-row Puts (no batching, no client buffer) "
    + "into one table per in-memory compaction policy on the embedded tiered cluster, the "
    + "policies taking turns in rotating order, with a small memstore flush size so that the run "
    + "goes through many flushes; reports per policy the Put latency percentiles, throughput, "
    + "flushes, in-memory compaction activity and the memstore class in effect.\n\n";

  private WriteTailBench() {
  }

  /**
   * What one run does. {@code offheapPolicies}: policies run again on an off-heap memstore after
   * the others, of {@code offheapMemstoreMb} (0: as large as the on-heap one); without such
   * policies, {@code offheapMemstoreMb} > 0 gives this run's own cluster an off-heap memstore.
   */
  record Settings(long rows, int threads, int valueBytes, List<MemoryCompactionPolicy> policies,
    int rounds, long warmupRows, long flushBytes, Double inMemoryFlushFactor, int dataNodes,
    File workDir, String profile, int regions, List<MemoryCompactionPolicy> offheapPolicies,
    long offheapMemstoreMb, File plot, long monitorMs) {
    /** First row (after the warm-up rows) of round {@code r}'s share. */
    long roundStart(int r) {
      return warmupRows + rows * r / rounds;
    }

    /** Whether this run's own cluster has an off-heap memstore. */
    boolean offheap() {
      return offheapPolicies.isEmpty() && offheapMemstoreMb > 0;
    }

    /** A policy's row name: {@code NONE}, or {@code NONE-offheap} on an off-heap memstore. */
    String label(MemoryCompactionPolicy p) {
      return offheap() ? p.name() + OFFHEAP_SUFFIX : p.name();
    }
  }

  static final String OFFHEAP_SUFFIX = "-offheap";
  /** The off-heap variant's monitoring in this run's JSON: {@code monitoring_offheap_variant}. */
  static final String OFFHEAP_VARIANT_SUFFIX = "_offheap_variant";

  /** The settings profiles: RegionServer keys each sets on the embedded cluster. */
  static final Map<String, Map<String, String>> PROFILES = profiles();

  private static Map<String, Map<String, String>> profiles() {
    Map<String, Map<String, String>> p = new LinkedHashMap<>();
    // Upstream's defaults (what the bench always ran with).
    p.put("default", Map.of());
    // The study's "core RegionServer configuration" for its in-memory compaction runs, as given.
    Map<String, String> study = new LinkedHashMap<>();
    study.put(HConstants.HREGION_MEMSTORE_BLOCK_MULTIPLIER, "5");
    study.put(HConstants.HREGION_MEMSTORE_FLUSH_SIZE, String.valueOf(256L << 20));
    study.put(MemorySizeUtil.MEMSTORE_SIZE_KEY, "0.4");
    study.put(MemorySizeUtil.MEMSTORE_SIZE_LOWER_LIMIT_KEY, "0.625");
    study.put(CompactingMemStore.COMPACTING_MEMSTORE_TYPE_KEY, "BASIC");
    p.put("study", study);
    return p;
  }

  /** The study's flush size, the tables' flush size under {@code --settings study}. */
  static final long STUDY_FLUSH_BYTES = 256L << 20;

  /**
   * One policy's outcome. {@code flushMarks}: its regions' flushes as {@code [start, end]}
   * seconds of the run, {@code turnMarks} its turns likewise; {@code gcMarks}: GC pauses in its
   * turns as {@code [start s, ms]};
   * {@code offheapBytesMax}: the most off-heap memstore bytes its regions held at a turn's end.
   */
  record Outcome(MemoryCompactionPolicy policy, TableName table, MemStoreInspector.InEffect memstore,
    Histogram latencyNanos, double seconds, List<Histogram> roundLatencyNanos, Counts activity,
    GcPauses.Summary gc, PutLoad.ReadBack readBack, String label, int regions,
    int regionsWritten, Timeline timeline, List<double[]> turnMarks, List<double[]> flushMarks,
    List<double[]> gcMarks, long offheapBytesMax) {
    long ops() {
      return latencyNanos.getTotalCount();
    }

    double opsPerSecond() {
      return seconds == 0 ? 0 : ops() / seconds;
    }

    boolean policyInEffect() {
      return memstore.implementsPolicy(policy);
    }

    /** Latency at percentile {@code p} (100 for the maximum) in microseconds. */
    double micros(double p) {
      return micros(latencyNanos, p);
    }

    static double micros(Histogram h, double p) {
      return (p >= 100 ? h.getMaxValue() : h.getValueAtPercentile(p)) / 1e3;
    }

    /**
     * The median over rounds of this policy's percentile {@code p} over {@code base}'s in the
     * same round: a paired comparison, which machine noise that comes and goes over the run
     * disturbs less than the ratio of whole-run percentiles.
     */
    double pairedRatio(Outcome base, double p) {
      double[] r = new double[roundLatencyNanos.size()];
      for (int i = 0; i < r.length; i++) {
        r[i] = micros(roundLatencyNanos.get(i), p) / micros(base.roundLatencyNanos.get(i), p);
      }
      return Median.of(r);
    }
  }

  /** Percentiles compared round by round: enough samples above them in one turn. */
  static final double[] PAIRED_PERCENTILES = { 50, 99, 99.9 };

  /**
   * A run: every policy's outcome, the memstore settings of the RegionServers, and the off-heap
   * variant's JSON document (null when none ran).
   */
  record Run(List<Outcome> outcomes, Map<String, String> memstoreSettings, JsonNode offheap) {
  }

  /** RegionServer keys that shape flushes and in-memory compaction, with upstream's defaults. */
  static final Map<String, String> MEMSTORE_KEYS = Map.ofEntries(
    Map.entry(HConstants.HREGION_MEMSTORE_BLOCK_MULTIPLIER,
      String.valueOf(HConstants.DEFAULT_HREGION_MEMSTORE_BLOCK_MULTIPLIER)),
    Map.entry(MemorySizeUtil.MEMSTORE_SIZE_KEY, "0.4"),
    Map.entry(MemStoreLAB.USEMSLAB_KEY, String.valueOf(MemStoreLAB.USEMSLAB_DEFAULT)),
    Map.entry(MemStoreLAB.CHUNK_SIZE_KEY, String.valueOf(MemStoreLAB.CHUNK_SIZE_DEFAULT)),
    Map.entry(CompactingMemStore.IN_MEMORY_FLUSH_THRESHOLD_FACTOR_KEY,
      "0 (in-memory flush every chunk)"),
    Map.entry("hbase.hregion.compacting.pipeline.segments.limit", "2"),
    Map.entry(CompactingMemStore.COMPACTING_MEMSTORE_TYPE_KEY,
      CompactingMemStore.COMPACTING_MEMSTORE_TYPE_DEFAULT),
    Map.entry(HConstants.HREGION_MEMSTORE_FLUSH_SIZE,
      String.valueOf(TableDescriptorBuilder.DEFAULT_MEMSTORE_FLUSH_SIZE)),
    Map.entry(MemorySizeUtil.MEMSTORE_SIZE_LOWER_LIMIT_KEY, "0.95"),
    Map.entry(MemorySizeUtil.OFFHEAP_MEMSTORE_SIZE_KEY, "0"),
    Map.entry(MemStoreLAB.CHUNK_POOL_MAXSIZE_KEY,
      String.valueOf(MemStoreLAB.POOL_MAX_SIZE_DEFAULT)));

  /** The percentiles reported, as named in the table and the JSON document. */
  static final double[] PERCENTILES = { 50, 99, 99.9, 99.99, 100 };
  static final String[] PERCENTILE_NAMES = { "p50", "p99", "p99.9", "p99.99", "max" };

  static String name(double percentile) {
    for (int i = 0; i < PERCENTILES.length; i++) {
      if (PERCENTILES[i] == percentile) {
        return PERCENTILE_NAMES[i];
      }
    }
    throw new IllegalArgumentException("Not a reported percentile: " + percentile);
  }

  static Options options() {
    Options o = new Options();
    o.addOption(null, "rows", true, "measured Puts per policy (default 400000)");
    o.addOption(null, "threads", true, "concurrent writers during a policy's turn (default 4)");
    o.addOption(null, "value-bytes", true, "bytes per value (default 100, as in the study)");
    o.addOption(null, "policies", true,
      "comma-separated in-memory compaction policies, of NONE, BASIC, EAGER, ADAPTIVE "
        + "(default NONE,BASIC,EAGER)");
    o.addOption(null, "rounds", true,
      "rounds of turns; the policies' order rotates each round (default 4 x policies)");
    o.addOption(null, "warmup-rows", true,
      "unmeasured Puts per policy before the measured rounds (default 20000)");
    o.addOption(null, "flush-mb", true,
      "memstore flush size of the tables, MiB (default 8, or 256 with --settings study; HBase's "
        + "in-memory flushes happen every 2 MiB of data)");
    o.addOption(null, "in-memory-flush-factor", true,
      "in-memory flush when the active segment holds this fraction of the flush size, set on "
        + "the tables' family (hbase.memstore.inmemoryflush.threshold.factor; default unset: "
        + "HBase flushes in memory every MSLAB chunk, 2 MiB)");
    o.addOption(null, "settings", true,
      "RegionServer settings profile: default (upstream's) or study (the write-tail study's: "
        + "block multiplier 5, 256 MB flushes, global memstore 0.4, lower limit 0.625, "
        + "compacting memstore type BASIC)");
    o.addOption(null, "regions", true,
      "regions per table, pre-split over the key space (splits stay disabled; default 1)");
    o.addOption(null, "offheap", true,
      "comma-separated policies to run again on an off-heap memstore (MSLAB chunks off-heap), "
        + "reported as POLICY-offheap; they run after the others, on a cluster of their own in a "
        + "JVM of their own (default none)");
    o.addOption(null, "offheap-memstore-mb", true,
      "off-heap global memstore, MiB (hbase.regionserver.offheap.global.memstore.size): with "
        + "--offheap, its size (default: the on-heap global memstore of this JVM's heap); "
        + "without, this run's cluster itself runs off-heap (needs -XX:MaxDirectMemorySize above "
        + "it)");
    o.addOption(null, "plot", true,
      "write the latency over time (per second p50, p99, p99.9, max; flushes and GC pauses "
        + "marked) to this PNG; the off-heap variant's to its sibling NAME-offheap.png");
    BenchMonitor.addOption(o, true);
    o.addOption(null, "datanodes", true, "DataNodes of the embedded cluster (default 3)");
    o.addOption(null, "json", true, "also write the results as JSON to this file");
    o.addOption(null, "work-dir", true,
      "directory for the cluster's data, wiped per run (default $STRATA_WORK/bench/write-tail, "
        + "STRATA_WORK defaulting to .strata-work)");
    o.addOption("h", "help", false, "this text");
    return o;
  }

  public static void main(String[] args) {
    CommandLines.runAndHalt(COMMAND, () -> run(args, System.out));
  }

  static int run(String[] args, PrintStream out) throws Exception {
    CommandLines.Parsed<Settings> parsed;
    try {
      parsed = CommandLines.settings(COMMAND, COMMAND + " [options]", HEADER, options(), args,
        WriteTailBench::settings);
    } catch (CommandLines.Exit e) {
      return e.code();
    }
    CommandLine cl = parsed.line();
    Settings s = parsed.settings();
    if (s.offheap()) {
      // Off-heap MSLAB chunks are direct buffers: the JVM must allow the whole off-heap
      // memstore, and some room for the DataNodes' and RPC's own direct buffers.
      long direct = DirectMemoryUtils.getDirectMemorySize();
      long needed = (s.offheapMemstoreMb() + DIRECT_MEMORY_MARGIN_MB) << 20;
      if (direct < needed) {
        System.err.printf(Locale.ROOT, "%s: --offheap-memstore-mb %d needs at least %d MiB of "
          + "direct memory; this JVM allows %d MiB (set -XX:MaxDirectMemorySize=%dm, e.g. in "
          + "STRATA_JAVA_OPTS, or use --offheap POLICIES, which starts a JVM with it)%n", COMMAND,
          s.offheapMemstoreMb(), needed >> 20, direct >> 20, needed >> 20);
        return 2;
      }
    }
    out.printf(Locale.ROOT, "policies %s; %d measured single-row Puts per policy in %d rounds "
      + "(order rotating), %d writers, %d-byte values, memstore flush size %d MiB, in-memory "
      + "flush %s, %d warm-up Puts per policy; data in %s%n", s.policies(), s.rows(), s.rounds(),
      s.threads(), s.valueBytes(), s.flushBytes() >> 20, s.inMemoryFlushFactor() == null
        ? "every MSLAB chunk" : "at " + s.inMemoryFlushFactor() + " x flush size",
      s.warmupRows(), s.workDir());
    out.printf(Locale.ROOT, "settings %s%s; %d region(s) per table; memstore %s%n", s.profile(),
      PROFILES.get(s.profile()).isEmpty() ? "" : " " + PROFILES.get(s.profile()), s.regions(),
      s.offheap() ? "off-heap, " + s.offheapMemstoreMb() + " MiB" : "on-heap");
    Run run;
    // The machine and the RegionServer beside the Put latency: the monitoring section and plot.
    ObjectNode monitoring = new ObjectMapper().createObjectNode();
    try (GcPauses gc = new GcPauses();
      BenchMonitor monitor = BenchMonitor.start(s.monitorMs(), true)) {
      run = measure(s, gc, monitor, out);
      monitor.write(monitoring, monitorPng(s), COMMAND, out);
    }
    int code = 0;
    if (!s.offheapPolicies().isEmpty()) {
      OffheapVariant variant = offheapVariant(s, out);
      run = new Run(run.outcomes(), run.memstoreSettings(), variant.doc());
      if (variant.failure() != null) {
        System.err.printf(Locale.ROOT, "%s: the off-heap variant %s%n", COMMAND,
          variant.failure());
        code = 1;
      }
    }
    List<Outcome> outcomes = run.outcomes();
    out.println();
    out.print(table(outcomes, run.offheap()));
    out.print(againstStudy(outcomes, run.offheap()));
    if (s.plot() != null) {
      Timeline.plot(panels(outcomes), s.plot());
      out.println("latency over time plotted to " + s.plot());
    }
    if (cl.hasOption("json")) {
      File file = new File(cl.getOptionValue("json"));
      ObjectNode doc = json(s, run);
      doc.setAll(monitoring);
      JsonReports.write(file, doc);
      out.println("JSON written to " + file);
    }
    for (Outcome o : outcomes) {
      if (!o.policyInEffect()) {
        System.err.printf(Locale.ROOT, "%s: table %s asked for %s but its store runs %s: its "
          + "figures are not that policy's%n", COMMAND, o.table(), o.policy(),
          o.memstore().shortName());
        code = 1;
      }
      if (!o.readBack().complete()) {
        System.err.printf(Locale.ROOT, "%s: table %s: %d of %d rows read back (%d bad values, "
          + "keys %s)%n", COMMAND, o.table(), o.readBack().rowsFound(),
          o.readBack().expectedRows(), o.readBack().badValues(),
          o.readBack().sameKeys() ? "match" : "differ");
        code = 1;
      }
      if (s.offheap() && o.offheapBytesMax() == 0) {
        System.err.printf(Locale.ROOT, "%s: table %s: the RegionServer was configured with an "
          + "off-heap memstore but the table's regions never held an off-heap byte: its figures "
          + "are not an off-heap memstore's%n", COMMAND, o.table());
        code = 1;
      }
      if (o.regions() != s.regions()) {
        System.err.printf(Locale.ROOT, "%s: table %s has %d regions, not %d%n", COMMAND,
          o.table(), o.regions(), s.regions());
        code = 1;
      }
    }
    return code;
  }

  /** Direct memory beyond the off-heap memstore that the JVM must allow, MiB. */
  static final long DIRECT_MEMORY_MARGIN_MB = 512;

  static Settings settings(CommandLine cl) {
    List<MemoryCompactionPolicy> policies = policies(cl.getOptionValue("policies",
      "NONE,BASIC,EAGER"));
    long rows = CommandLines.wholeNumber(cl, "rows", 400_000, 1);
    int rounds = (int) CommandLines.wholeNumber(cl, "rounds", 4L * policies.size(), 1);
    if (rounds > rows) {
      throw new IllegalArgumentException("--rounds (" + rounds + ") cannot exceed --rows ("
        + rows + ")");
    }
    String profile = cl.getOptionValue("settings", "default").trim().toLowerCase(Locale.ROOT);
    if (!PROFILES.containsKey(profile)) {
      throw new IllegalArgumentException("--settings: unknown profile '"
        + cl.getOptionValue("settings") + "' (one of " + String.join(", ", PROFILES.keySet())
        + ")");
    }
    long flushBytes = cl.hasOption("flush-mb") ? CommandLines.wholeNumber(cl, "flush-mb", 8, 1)
      << 20 : profile.equals("study") ? STUDY_FLUSH_BYTES : 8L << 20;
    List<MemoryCompactionPolicy> offheapPolicies =
      cl.hasOption("offheap") ? policies(cl.getOptionValue("offheap")) : List.of();
    long offheapMb = CommandLines.wholeNumber(cl, "offheap-memstore-mb", 0, 1);
    String plot = cl.getOptionValue("plot");
    if (plot != null && !plot.endsWith(".png")) {
      throw new IllegalArgumentException("--plot takes a .png file, not '" + plot + "'");
    }
    return new Settings(rows, (int) CommandLines.wholeNumber(cl, "threads", 4, 1),
      (int) CommandLines.wholeNumber(cl, "value-bytes", 100, 1), policies, rounds,
      CommandLines.wholeNumber(cl, "warmup-rows", 20_000, 0), flushBytes,
      inMemoryFlushFactor(cl), (int) CommandLines.wholeNumber(cl, "datanodes", 3, 1),
      new File(cl.getOptionValue("work-dir", defaultWorkDir())), profile,
      (int) CommandLines.wholeNumber(cl, "regions", 1, 1), offheapPolicies, offheapMb,
      plot == null ? null : new File(plot), BenchMonitor.intervalMs(cl));
  }

  /**
   * Where the monitoring timeline is plotted: beside --plot, else in the work directory;
   * {@code monitor-offheap.png} for a run on an off-heap memstore (the off-heap variant's JVM,
   * whose --plot is beside this run's).
   */
  static File monitorPng(Settings s) {
    File dir = s.plot() != null ? s.plot().getAbsoluteFile().getParentFile() : s.workDir();
    return new File(dir, s.offheap() ? "monitor" + OFFHEAP_SUFFIX + ".png" : BenchMonitor.PNG);
  }

  private static Double inMemoryFlushFactor(CommandLine cl) {
    String raw = cl.getOptionValue("in-memory-flush-factor");
    if (raw == null) {
      return null;
    }
    try {
      double f = Double.parseDouble(raw.trim());
      if (f > 0 && f <= 1) {
        return f;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException("--in-memory-flush-factor takes a fraction in (0, 1], not '"
      + raw + "'");
  }

  static List<MemoryCompactionPolicy> policies(String csv) {
    List<MemoryCompactionPolicy> policies = new ArrayList<>();
    for (String name : csv.split(",")) {
      String n = name.trim().toUpperCase(Locale.ROOT);
      MemoryCompactionPolicy p;
      try {
        p = MemoryCompactionPolicy.valueOf(n);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("--policies: unknown in-memory compaction policy '"
          + name.trim() + "' (one of NONE, BASIC, EAGER, ADAPTIVE)");
      }
      if (policies.contains(p)) {
        throw new IllegalArgumentException("--policies names " + p + " twice");
      }
      policies.add(p);
    }
    return policies;
  }

  private static String defaultWorkDir() {
    return CommandLines.workDir("bench/write-tail").getPath();
  }

  static TableName tableName(MemoryCompactionPolicy p) {
    return TableName.valueOf("write_tail_" + p.name().toLowerCase(Locale.ROOT));
  }

  /** One policy's table and what its turns have gathered so far. */
  private static final class Arm {
    final MemoryCompactionPolicy policy;
    final TableName table;
    final Histogram latencies = new Histogram(3);
    final List<long[]> turns = new ArrayList<>();
    final List<Histogram> rounds = new ArrayList<>();
    // Set when the measured rounds begin: their start is the timeline's time 0.
    Timeline timeline;
    long nanos;
    long offheapBytesMax;

    Arm(MemoryCompactionPolicy policy) {
      this.policy = policy;
      this.table = tableName(policy);
    }
  }

  /** The embedded cluster's configuration for a run: its profile's keys, its memstore's heap. */
  static LocalClusterConfig clusterConfig(Settings s) {
    LocalClusterConfig config = new LocalClusterConfig().workDir(s.workDir())
      .dataNodes(s.dataNodes());
    PROFILES.get(s.profile()).forEach(config::hbase);
    BenchMonitor.hbaseKeys(s.monitorMs()).forEach(config::hbase);
    if (s.offheap()) {
      config.hbase(MemorySizeUtil.OFFHEAP_MEMSTORE_SIZE_KEY,
        String.valueOf(s.offheapMemstoreMb()));
    }
    return config;
  }

  static Run measure(Settings s, GcPauses gc, BenchMonitor monitor, PrintStream out)
    throws Exception {
    LocalClusterConfig config = clusterConfig(s);
    out.printf(Locale.ROOT, "starting the embedded tiered cluster (%d DataNodes)%n",
      s.dataNodes());
    AtomicInteger writerIds = new AtomicInteger();
    ExecutorService writers = Executors.newFixedThreadPool(s.threads(), r -> {
      Thread t = new Thread(r, "write-tail-writer-" + writerIds.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    monitor.phase("start cluster");
    try (TieredDfsCluster dfs = TieredDfsCluster.start(config);
      EmbeddedHBase hbase = EmbeddedHBase.start(dfs)) {
      monitor.follow(hbase.connection());
      monitor.phase("create tables");
      List<Arm> arms = new ArrayList<>();
      for (MemoryCompactionPolicy p : s.policies()) {
        Arm arm = new Arm(p);
        createTable(hbase, arm, s);
        arms.add(arm);
      }
      PutLoad load = new PutLoad(hbase.connection(), writers, s.threads(), s.valueBytes());
      if (s.warmupRows() > 0) {
        monitor.phase("warm-up");
        out.printf(Locale.ROOT, "warm-up: %d Puts per policy%n", s.warmupRows());
        for (Arm arm : arms) {
          load.write(arm.table, 0, s.warmupRows(), null);
        }
      }
      settle(hbase, arms, out);
      Map<Arm, MemStoreInspector.InEffect> memstores = new LinkedHashMap<>();
      Map<Arm, Counts> before = new LinkedHashMap<>();
      for (Arm arm : arms) {
        memstores.put(arm, memstore(hbase, arm.table));
        before.put(arm, counts(hbase, arm.table));
        out.printf(Locale.ROOT, "%-8s table %s: %d region(s), store runs %s%n", s.label(arm.policy),
          arm.table, regions(hbase, arm.table).size(), memstores.get(arm).shortName());
      }
      // The run's clock: time 0 of the timelines, flush and GC marks.
      long originNanos = System.nanoTime();
      long originUptimeMs = GcPauses.uptimeMs();
      for (Arm arm : arms) {
        arm.timeline = new Timeline(originNanos);
      }
      for (int r = 0; r < s.rounds(); r++) {
        long from = s.roundStart(r);
        long to = s.roundStart(r + 1);
        for (int k = 0; k < arms.size(); k++) {
          Arm arm = arms.get((k + r) % arms.size());
          Histogram turn = new Histogram(3);
          // The turn's phase runs on through the settle after it: the flushes and compactions
          // there are this policy's writes'.
          monitor.phase("r" + (r + 1) + " " + s.label(arm.policy));
          long u0 = GcPauses.uptimeMs();
          long nanos = load.write(arm.table, from, to, turn, arm.timeline);
          arm.turns.add(new long[] { u0, GcPauses.uptimeMs() });
          // What the memstore holds off the heap as the turn ends, before any flush empties it.
          arm.offheapBytesMax = Math.max(arm.offheapBytesMax, offheapBytes(hbase, arm.table));
          arm.nanos += nanos;
          arm.latencies.add(turn);
          arm.rounds.add(turn);
          out.printf(Locale.ROOT, "round %d/%d %-8s %8d Puts %7.1f s %8.0f/s  p99 %.2f ms  "
            + "p99.9 %.2f ms  max %.2f ms%n", r + 1, s.rounds(), s.label(arm.policy), to - from,
            nanos / 1e9, (to - from) / (nanos / 1e9), turn.getValueAtPercentile(99) / 1e6,
            turn.getValueAtPercentile(99.9) / 1e6, turn.getMaxValue() / 1e6);
          settle(hbase, arms, out);
        }
      }
      monitor.phase("read back");
      List<Outcome> outcomes = new ArrayList<>();
      long written = s.warmupRows() + s.rows();
      for (Arm arm : arms) {
        PutLoad.ReadBack back = load.readBack(arm.table, written);
        List<HRegion> regions = regions(hbase, arm.table);
        int regionsWritten = 0;
        for (HRegion region : regions) {
          regionsWritten += region.getWriteRequestsCount() > 0 ? 1 : 0;
        }
        List<double[]> flushMarks = new ArrayList<>();
        for (long[] f : flushIntervals(hbase, arm.table)) {
          if (f[0] < originNanos) {
            continue; // a flush of the warm-up's data
          }
          flushMarks.add(new double[] { arm.timeline.secondsOf(f[0]),
            arm.timeline.secondsOf(f[1]) });
        }
        flushMarks.sort((a, b) -> Double.compare(a[0], b[0]));
        List<double[]> turnMarks = new ArrayList<>();
        for (long[] t : arm.turns) {
          turnMarks.add(new double[] { (t[0] - originUptimeMs) / 1e3,
            (t[1] - originUptimeMs) / 1e3 });
        }
        List<double[]> gcMarks = new ArrayList<>();
        for (GcPauses.Pause p : gc.listWithin(arm.turns)) {
          gcMarks.add(new double[] { (p.startUptimeMs() - originUptimeMs) / 1e3, p.durationMs() });
        }
        outcomes.add(new Outcome(arm.policy, arm.table, memstores.get(arm), arm.latencies,
          arm.nanos / 1e9, arm.rounds, counts(hbase, arm.table).minus(before.get(arm)),
          gc.within(arm.turns), back, s.label(arm.policy), regions.size(), regionsWritten,
          arm.timeline, turnMarks, flushMarks, gcMarks, arm.offheapBytesMax));
      }
      Map<String, String> memstoreSettings = new TreeMap<>();
      MEMSTORE_KEYS.forEach((k, dflt) -> memstoreSettings.put(k,
        hbase.regionServer(0).getConfiguration().get(k, dflt)));
      monitor.follow(null);
      monitor.phase("stop cluster");
      return new Run(outcomes, memstoreSettings, null);
    } finally {
      writers.shutdownNow();
    }
  }

  /** The off-heap bytes of the memstores of a table's regions, as the RegionServer counts them. */
  static long offheapBytes(EmbeddedHBase hbase, TableName table) {
    long bytes = 0;
    for (HRegion r : regions(hbase, table)) {
      bytes += r.getMemStoreOffHeapSize();
    }
    return bytes;
  }

  /**
   * {@code n - 1} split keys cutting the 16-hex-digit key space of {@link PutLoad#rowKey} into
   * {@code n} equal ranges, so that the mixed keys fall evenly into all regions.
   */
  static byte[][] splitKeys(int n) {
    byte[][] keys = new byte[n - 1][];
    long step = Long.divideUnsigned(-1L, n);
    for (int i = 1; i < n; i++) {
      keys[i - 1] = Bytes.toBytes(String.format(Locale.ROOT, "%016x", step * i));
    }
    return keys;
  }

  private static void createTable(EmbeddedHBase hbase, Arm arm, Settings s) throws IOException {
    ColumnFamilyDescriptorBuilder family = ColumnFamilyDescriptorBuilder
      .newBuilder(PutLoad.FAMILY).setInMemoryCompaction(arm.policy);
    if (s.inMemoryFlushFactor() != null) {
      // The store's configuration includes its family's: the compacting memstore reads it there.
      family.setConfiguration(CompactingMemStore.IN_MEMORY_FLUSH_THRESHOLD_FACTOR_KEY,
        String.valueOf(s.inMemoryFlushFactor()));
    }
    TableDescriptorBuilder table = TableDescriptorBuilder.newBuilder(arm.table)
      .setColumnFamily(family.build())
      .setMemStoreFlushSize(s.flushBytes())
      // The same regions per policy for the whole run: a split would change what each measures.
      .setRegionSplitPolicyClassName(DisabledRegionSplitPolicy.class.getName())
      .setCoprocessor(MemStoreActivityObserver.class.getName());
    if (s.regions() > 1) {
      hbase.connection().getAdmin().createTable(table.build(), splitKeys(s.regions()));
    } else {
      hbase.connection().getAdmin().createTable(table.build());
    }
  }

  /** The result of the off-heap variant's JVM: its JSON document, or why there is none. */
  record OffheapVariant(JsonNode doc, String failure) {
  }

  /**
   * Runs {@code s.offheapPolicies()} on an off-heap memstore in a JVM of its own (this one's
   * java, module flags, class path and heap, plus the direct memory the memstore needs), its
   * output relayed to {@code out}, and reads its JSON document back.
   */
  static OffheapVariant offheapVariant(Settings s, PrintStream out) throws IOException,
    InterruptedException {
    long mb = s.offheapMemstoreMb() > 0 ? s.offheapMemstoreMb() : onHeapMemstoreMb(s);
    File dir = new File(s.workDir().getAbsoluteFile().getParentFile(),
      s.workDir().getName() + "-offheap");
    Files.createDirectories(dir.toPath());
    File json = new File(dir, "offheap-variant.json");
    Files.deleteIfExists(json.toPath());
    List<String> cmd = new ArrayList<>();
    cmd.add(JvmCommand.javaExecutable());
    List<String> jvmArgs = ManagementFactory.getRuntimeMXBean().getInputArguments();
    cmd.addAll(JvmCommand.moduleFlags(jvmArgs));
    for (String a : jvmArgs) {
      if (a.startsWith("-Xmx") || a.startsWith("-Dlog4j.configuration=")
        || a.startsWith("-Dstrata.work=")) {
        cmd.add(a);
      }
    }
    cmd.add("-XX:MaxDirectMemorySize=" + (mb + DIRECT_MEMORY_MARGIN_MB) + "m");
    cmd.add("-Dstrata.log.file=" + new File(dir, "offheap-variant.log").getAbsolutePath());
    cmd.add("-cp");
    cmd.add(JvmCommand.absoluteClassPath(String.join(File.pathSeparator,
      JvmCommand.currentClassPath())));
    cmd.add(WriteTailBench.class.getName());
    List<String> args = new ArrayList<>(List.of("--rows", String.valueOf(s.rows()), "--threads",
      String.valueOf(s.threads()), "--value-bytes", String.valueOf(s.valueBytes()), "--policies",
      String.join(",", s.offheapPolicies().stream().map(Enum::name).toList()), "--rounds",
      String.valueOf(s.rounds()), "--warmup-rows", String.valueOf(s.warmupRows()), "--flush-mb",
      String.valueOf(s.flushBytes() >> 20), "--datanodes", String.valueOf(s.dataNodes()),
      "--settings", s.profile(), "--regions", String.valueOf(s.regions()),
      "--offheap-memstore-mb", String.valueOf(mb), "--monitor-ms", String.valueOf(s.monitorMs()),
      "--work-dir",
      new File(dir, "cluster").getAbsolutePath(), "--json", json.getAbsolutePath()));
    if (s.inMemoryFlushFactor() != null) {
      args.addAll(List.of("--in-memory-flush-factor", String.valueOf(s.inMemoryFlushFactor())));
    }
    if (s.plot() != null) {
      args.addAll(List.of("--plot", offheapPlot(s.plot()).getAbsolutePath()));
    }
    cmd.addAll(args);
    out.printf(Locale.ROOT, "%noff-heap variant (%s, %d MiB off-heap memstore) in a JVM of its "
      + "own: %s%n", s.offheapPolicies(), mb, String.join(" ", args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
      StandardCharsets.UTF_8))) {
      for (String line = r.readLine(); line != null; line = r.readLine()) {
        out.println("  [off-heap] " + line);
      }
    }
    int code = p.waitFor();
    if (!json.isFile()) {
      return new OffheapVariant(null, "exited with " + code + " and wrote no results");
    }
    JsonNode doc = new ObjectMapper().readTree(json);
    return new OffheapVariant(doc, code == 0 ? null : "exited with " + code);
  }

  /** The off-heap variant's plot beside {@code plot}: {@code NAME-offheap.png}. */
  static File offheapPlot(File plot) {
    String name = plot.getName();
    return new File(plot.getAbsoluteFile().getParentFile(),
      name.substring(0, name.length() - ".png".length()) + OFFHEAP_SUFFIX + ".png");
  }

  /**
   * The on-heap global memstore this JVM's RegionServer gets (heap x its global memstore
   * fraction), MiB: the off-heap variant's default, so both flush under the same global limit.
   */
  static long onHeapMemstoreMb(Settings s) {
    double fraction = Double.parseDouble(PROFILES.get(s.profile())
      .getOrDefault(MemorySizeUtil.MEMSTORE_SIZE_KEY, MEMSTORE_KEYS.get(
        MemorySizeUtil.MEMSTORE_SIZE_KEY)));
    return Math.max(64, (long) (Runtime.getRuntime().maxMemory() * fraction) >> 20);
  }

  private static List<HRegion> regions(EmbeddedHBase hbase, TableName table) {
    List<HRegion> regions = new ArrayList<>();
    for (int i = 0; i < hbase.regionServerCount(); i++) {
      regions.addAll(hbase.regionServer(i).getRegions(table));
    }
    if (regions.isEmpty()) {
      throw new IllegalStateException("No open region of " + table + " on any RegionServer");
    }
    return regions;
  }

  private static MemStoreActivityObserver observer(HRegion region) {
    MemStoreActivityObserver o =
      region.getCoprocessorHost().findCoprocessor(MemStoreActivityObserver.class);
    if (o == null) {
      throw new IllegalStateException("Region " + region + " has not loaded "
        + MemStoreActivityObserver.class.getName());
    }
    return o;
  }

  /** Every ended flush of the table's regions, {@code [start, end]} nanoTime. */
  static List<long[]> flushIntervals(EmbeddedHBase hbase, TableName table) {
    List<long[]> all = new ArrayList<>();
    for (HRegion r : regions(hbase, table)) {
      all.addAll(observer(r).flushIntervals());
    }
    return all;
  }

  static Counts counts(EmbeddedHBase hbase, TableName table) {
    Counts c = Counts.ZERO;
    for (HRegion r : regions(hbase, table)) {
      c = c.plus(observer(r).counts());
    }
    return c;
  }

  /** The memstore of the table's family in its (single) region. */
  static MemStoreInspector.InEffect memstore(EmbeddedHBase hbase, TableName table) {
    return MemStoreInspector.of(regions(hbase, table).get(0).getStore(PutLoad.FAMILY));
  }

  /**
   * Waits until no flush or compaction is queued on any RegionServer and none, nor any in-memory
   * compaction, runs on the bench's regions; gives up (noting it) after {@link #SETTLE_LIMIT}.
   */
  private static void settle(EmbeddedHBase hbase, List<Arm> arms, PrintStream out)
    throws InterruptedException {
    long deadline = System.nanoTime() + SETTLE_LIMIT.toNanos();
    while (!settled(hbase, arms)) {
      if (System.nanoTime() > deadline) {
        out.printf(Locale.ROOT, "  (flushes or compactions still running after %d s; going on)%n",
          SETTLE_LIMIT.toSeconds());
        return;
      }
      Thread.sleep(20);
    }
  }

  private static boolean settled(EmbeddedHBase hbase, List<Arm> arms) {
    for (int i = 0; i < hbase.regionServerCount(); i++) {
      HRegionServer rs = hbase.regionServer(i);
      if (rs.getMemStoreFlusher().getFlushQueueSize() > 0
        || rs.getCompactSplitThread().getCompactionQueueSize() > 0) {
        return false;
      }
    }
    for (Arm arm : arms) {
      for (HRegion r : regions(hbase, arm.table)) {
        if (!r.waitForFlushes(10) || r.getCompactionState() != CompactionState.NONE
          || observer(r).inMemoryCompactionRunning()) {
          return false;
        }
      }
    }
    return true;
  }

  /** The policy the others are compared with: NONE when measured, else the first. */
  static Outcome baseline(List<Outcome> outcomes) {
    return outcomes.stream().filter(o -> o.policy() == MemoryCompactionPolicy.NONE).findFirst()
      .orElse(outcomes.get(0));
  }

  private static final String ROW_HEADER = "%-13s %-24s %8s %8s %8s %8s %8s %8s %8s %7s %10s %9s "
    + "%12s%n";
  private static final String ROW = "%-13s %-24s %8d %8.0f %8.2f %8.2f %8.2f %8.2f %8.2f %7d %10d "
    + "%9d %7d (%d)%n";

  /**
   * The text table: a row per policy, then the off-heap variant's rows from its JSON document
   * ({@code offheap}, null if none ran), then the ratios to the baseline.
   */
  static String table(List<Outcome> outcomes, JsonNode offheap) {
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT, ROW_HEADER, "policy", "memstore in effect", "Puts",
      "Puts/s", "p50 ms", "p99 ms", "p99.9 ms", "p99.99ms", "max ms", "flushes", "in-mem cmp",
      "(data)", "GC ms (max)"));
    for (Outcome o : outcomes) {
      sb.append(String.format(Locale.ROOT, ROW, o.label(), o.memstore().shortName(), o.ops(),
        o.opsPerSecond(), o.micros(50) / 1e3, o.micros(99) / 1e3, o.micros(99.9) / 1e3,
        o.micros(99.99) / 1e3, o.micros(100) / 1e3, o.activity().flushes(),
        o.activity().inMemoryCompactions(), o.activity().inMemoryDataCompactions(), o.gc().totalMs(),
        o.gc().maxMs()));
    }
    Outcome base = baseline(outcomes);
    for (Map.Entry<String, JsonNode> e : offheapRows(offheap)) {
      JsonNode p = e.getValue();
      JsonNode lat = p.path("latency_us");
      String cls = p.path("memstore_class").asText();
      String compactor = p.path("memstore_compactor").asText("");
      String shortName = cls.substring(cls.lastIndexOf('.') + 1)
        + (p.path("memstore_compactor").isNull() ? "" : "/" + compactor.split(",")[0].trim());
      sb.append(String.format(Locale.ROOT, ROW, e.getKey(), shortName, p.path("ops").asLong(),
        p.path("throughput_ops_per_s").asDouble(), lat.path("p50").asDouble() / 1e3,
        lat.path("p99").asDouble() / 1e3, lat.path("p99.9").asDouble() / 1e3,
        lat.path("p99.99").asDouble() / 1e3, lat.path("max").asDouble() / 1e3,
        p.path("flushes").asLong(), p.path("in_memory_compactions").asLong(),
        p.path("in_memory_data_compactions").asLong(), p.path("gc").path("total_ms").asLong(),
        p.path("gc").path("max_ms").asLong()));
    }
    if (outcomes.size() > 1 || offheap != null) {
      sb.append(String.format(Locale.ROOT, "ratios to %s (latency: below 1 is better; "
        + "throughput: above 1 is better)%n", base.label()));
      for (Outcome o : outcomes) {
        if (o == base) {
          continue;
        }
        sb.append(String.format(Locale.ROOT, "%-13s Puts/s x%.2f", o.label(),
          o.opsPerSecond() / base.opsPerSecond()));
        for (int i = 0; i < PERCENTILES.length; i++) {
          sb.append(String.format(Locale.ROOT, "  %s x%.2f", PERCENTILE_NAMES[i],
            o.micros(PERCENTILES[i]) / base.micros(PERCENTILES[i])));
        }
        sb.append(String.format(Locale.ROOT, "  flushes x%.2f%n",
          (double) o.activity().flushes() / Math.max(1, base.activity().flushes())));
      }
      for (Map.Entry<String, JsonNode> e : offheapRows(offheap)) {
        JsonNode p = e.getValue();
        sb.append(String.format(Locale.ROOT, "%-13s Puts/s x%.2f", e.getKey(),
          p.path("throughput_ops_per_s").asDouble() / base.opsPerSecond()));
        for (int i = 0; i < PERCENTILES.length; i++) {
          sb.append(String.format(Locale.ROOT, "  %s x%.2f", PERCENTILE_NAMES[i],
            p.path("latency_us").path(PERCENTILE_NAMES[i]).asDouble()
              / base.micros(PERCENTILES[i])));
        }
        sb.append(String.format(Locale.ROOT, "  flushes x%.2f  (own cluster, run after)%n",
          p.path("flushes").asDouble() / Math.max(1, base.activity().flushes())));
      }
    }
    if (outcomes.size() > 1) {
      sb.append(String.format(Locale.ROOT, "paired by round (median over the %d rounds of the "
        + "ratio to %s in the same round)%n", base.roundLatencyNanos().size(), base.label()));
      for (Outcome o : outcomes) {
        if (o == base) {
          continue;
        }
        sb.append(String.format(Locale.ROOT, "%-8s", o.label()));
        for (double p : PAIRED_PERCENTILES) {
          sb.append(String.format(Locale.ROOT, "  %s x%.2f", name(p), o.pairedRatio(base, p)));
        }
        sb.append(System.lineSeparator());
      }
    }
    sb.append(String.format(Locale.ROOT, "in-mem cmp: in-memory compaction runs (flatten, merge "
      + "or compact) after in-memory flushes; (data): runs that rewrote cells (EAGER); GC: "
      + "stop-the-world pauses of this JVM (client, RegionServer, DataNodes) during the "
      + "policy's turns%n"));
    return sb.toString();
  }

  /** The off-heap variant's policies (POLICY-offheap and its JSON), none if it did not run. */
  static List<Map.Entry<String, JsonNode>> offheapRows(JsonNode offheap) {
    List<Map.Entry<String, JsonNode>> rows = new ArrayList<>();
    if (offheap != null) {
      offheap.path("policies").fields().forEachRemaining(rows::add);
    }
    return rows;
  }

  /** The study's tail figures, as it gives them. */
  static final String STUDY_TAIL = "study (HBase 2.1.2, 256 MB flushes, 5 nodes): before the "
    + "HBASE-21738 fix P999 spikes to 150 ms, P9999 over 1 s; with the fix P999 < 100 ms, P9999 "
    + "200-500 ms; with the fix and in-memory compaction (BASIC) P999 < 50 ms, P9999 about 100 ms";

  /** P999 and P9999 of every row beside the study's. */
  static String againstStudy(List<Outcome> outcomes, JsonNode offheap) {
    StringBuilder sb = new StringBuilder(STUDY_TAIL).append(System.lineSeparator());
    sb.append("here (HBase 2.6.4, which has the fix):");
    for (Outcome o : outcomes) {
      sb.append(String.format(Locale.ROOT, "  %s P999 %.1f ms P9999 %.1f ms;", o.label(),
        o.micros(99.9) / 1e3, o.micros(99.99) / 1e3));
    }
    for (Map.Entry<String, JsonNode> e : offheapRows(offheap)) {
      JsonNode lat = e.getValue().path("latency_us");
      sb.append(String.format(Locale.ROOT, "  %s P999 %.1f ms P9999 %.1f ms;", e.getKey(),
        lat.path("p99.9").asDouble() / 1e3, lat.path("p99.99").asDouble() / 1e3));
    }
    return sb.append(System.lineSeparator()).toString();
  }

  static List<Timeline.Panel> panels(List<Outcome> outcomes) {
    List<Timeline.Panel> panels = new ArrayList<>();
    for (Outcome o : outcomes) {
      panels.add(new Timeline.Panel(o.label(), o.timeline().buckets(), o.turnMarks(),
        o.flushMarks(), o.gcMarks().stream().map(g -> g[0]).toList()));
    }
    return panels;
  }

  static ObjectNode json(Settings s, Run run) {
    List<Outcome> outcomes = run.outcomes();
    ObjectMapper mapper = new ObjectMapper();
    ObjectNode doc = mapper.createObjectNode();
    ObjectNode settings = doc.putObject("settings");
    settings.put("rows", s.rows());
    settings.put("threads", s.threads());
    settings.put("value_bytes", s.valueBytes());
    ArrayNode policies = settings.putArray("policies");
    s.policies().forEach(p -> policies.add(p.name()));
    settings.put("rounds", s.rounds());
    settings.put("warmup_rows", s.warmupRows());
    settings.put("flush_mb", s.flushBytes() >> 20);
    if (s.inMemoryFlushFactor() != null) {
      settings.put("in_memory_flush_factor", s.inMemoryFlushFactor());
    } else {
      settings.putNull("in_memory_flush_factor");
    }
    settings.put("datanodes", s.dataNodes());
    settings.put("regions_per_table", s.regions());
    settings.put("profile", s.profile());
    ObjectNode asked = settings.putObject("profile_keys");
    PROFILES.get(s.profile()).forEach(asked::put);
    settings.put("memstore_offheap", s.offheap());
    settings.put("offheap_memstore_mb", s.offheap() ? s.offheapMemstoreMb() : 0);
    settings.put("max_direct_memory_mb", DirectMemoryUtils.getDirectMemorySize() >> 20);
    ObjectNode keys = settings.putObject("regionserver");
    run.memstoreSettings().forEach(keys::put);
    ObjectNode results = doc.putObject("policies");
    for (Outcome o : outcomes) {
      ObjectNode p = results.putObject(o.label());
      p.put("table", o.table().getNameAsString());
      p.put("memstore_class", o.memstore().memStoreClass());
      if (o.memstore().compactor() != null) {
        p.put("memstore_compactor", o.memstore().compactor());
      } else {
        p.putNull("memstore_compactor");
      }
      p.put("policy_in_effect", o.policyInEffect());
      p.put("ops", o.ops());
      p.put("seconds", o.seconds());
      p.put("throughput_ops_per_s", o.opsPerSecond());
      ObjectNode lat = p.putObject("latency_us");
      for (int i = 0; i < PERCENTILES.length; i++) {
        lat.put(PERCENTILE_NAMES[i], o.micros(PERCENTILES[i]));
      }
      lat.put("mean", o.latencyNanos().getMean() / 1e3);
      ArrayNode rounds = p.putArray("rounds_latency_us");
      for (Histogram h : o.roundLatencyNanos()) {
        ObjectNode round = rounds.addObject();
        for (int i = 0; i < PERCENTILES.length; i++) {
          round.put(PERCENTILE_NAMES[i], Outcome.micros(h, PERCENTILES[i]));
        }
      }
      Counts a = o.activity();
      p.put("flushes", a.flushes());
      p.put("flush_ms", a.flushNanos() / 1e6);
      p.put("compactions", a.compactions());
      p.put("in_memory_compactions", a.inMemoryCompactions());
      p.put("in_memory_data_compactions", a.inMemoryDataCompactions());
      p.put("in_memory_compaction_ms", a.inMemoryCompactionNanos() / 1e6);
      ObjectNode gc = p.putObject("gc");
      gc.put("pauses", o.gc().pauses());
      gc.put("total_ms", o.gc().totalMs());
      gc.put("max_ms", o.gc().maxMs());
      p.put("rows_written", o.readBack().expectedRows());
      p.put("rows_read_back", o.readBack().rowsFound());
      p.put("read_back_complete", o.readBack().complete());
      p.put("policy", o.policy().name());
      p.put("regions", o.regions());
      p.put("regions_written", o.regionsWritten());
      p.put("memstore_offheap_bytes_max", o.offheapBytesMax());
      ArrayNode timeline = p.putArray("timeline");
      for (Timeline.Bucket b : o.timeline().buckets()) {
        ObjectNode t = timeline.addObject();
        t.put("t_s", b.second());
        t.put("p50_ms", b.p50Ms());
        t.put("p99_ms", b.p99Ms());
        t.put("p999_ms", b.p999Ms());
        t.put("max_ms", b.maxMs());
        t.put("puts", b.puts());
      }
      ArrayNode turns = p.putArray("turns_s");
      for (double[] t : o.turnMarks()) {
        turns.addArray().add(t[0]).add(t[1]);
      }
      ArrayNode flushMarks = p.putArray("flush_marks");
      for (double[] f : o.flushMarks()) {
        flushMarks.addObject().put("start_s", f[0]).put("end_s", f[1]);
      }
      ArrayNode gcMarks = p.putArray("gc_marks");
      for (double[] g : o.gcMarks()) {
        gcMarks.addObject().put("t_s", g[0]).put("ms", g[1]);
      }
    }
    Outcome base = baseline(outcomes);
    doc.put("baseline", base.label());
    ObjectNode ratios = doc.putObject("ratios");
    for (Outcome o : outcomes) {
      if (o == base) {
        continue;
      }
      ObjectNode r = ratios.putObject(o.label());
      r.put("throughput", o.opsPerSecond() / base.opsPerSecond());
      for (int i = 0; i < PERCENTILES.length; i++) {
        r.put(PERCENTILE_NAMES[i], o.micros(PERCENTILES[i]) / base.micros(PERCENTILES[i]));
      }
      ObjectNode paired = r.putObject("paired_by_round");
      for (double p : PAIRED_PERCENTILES) {
        paired.put(name(p), o.pairedRatio(base, p));
      }
    }
    if (run.offheap() != null) {
      // The variant's own cluster and JVM: its rows join this document, their ratios are of
      // whole-run figures only (no rounds in common to pair).
      ObjectNode variant = settings.putObject("offheap_variant");
      variant.set("settings", run.offheap().path("settings"));
      if (run.offheap().has(BenchMonitor.SECTION)) {
        doc.set(BenchMonitor.SECTION + OFFHEAP_VARIANT_SUFFIX, run.offheap().get(
          BenchMonitor.SECTION));
      }
      for (Map.Entry<String, JsonNode> e : offheapRows(run.offheap())) {
        results.set(e.getKey(), e.getValue());
        JsonNode lat = e.getValue().path("latency_us");
        ObjectNode r = ratios.putObject(e.getKey());
        r.put("throughput", e.getValue().path("throughput_ops_per_s").asDouble()
          / base.opsPerSecond());
        for (int i = 0; i < PERCENTILES.length; i++) {
          r.put(PERCENTILE_NAMES[i], lat.path(PERCENTILE_NAMES[i]).asDouble()
            / base.micros(PERCENTILES[i]));
        }
      }
    }
    ObjectNode study = doc.putObject("study");
    study.put("text", STUDY_TAIL);
    study.putObject("fix").put("p999_ms_below", 100).putArray("p9999_ms_range").add(200).add(500);
    study.putObject("fix_and_basic").put("p999_ms_below", 50).put("p9999_ms_about", 100);
    return doc;
  }
}
