package io.strata.bench.writetail;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.strata.bench.writetail.MemStoreActivityObserver.Counts;
import io.strata.cli.CommandLines;
import io.strata.cli.JsonReports;
import io.strata.local.EmbeddedHBase;
import io.strata.local.LocalClusterConfig;
import io.strata.local.TieredDfsCluster;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
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
import org.apache.hadoop.hbase.regionserver.CompactingMemStore;
import org.apache.hadoop.hbase.regionserver.DisabledRegionSplitPolicy;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.HRegionServer;
import org.apache.hadoop.hbase.regionserver.MemStoreLAB;

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
 * policy pays for another's background work. Every Put's latency goes into an HdrHistogram.
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

  /** What one run does. */
  record Settings(long rows, int threads, int valueBytes, List<MemoryCompactionPolicy> policies,
    int rounds, long warmupRows, long flushBytes, Double inMemoryFlushFactor, int dataNodes,
    File workDir) {
    /** First row (after the warm-up rows) of round {@code r}'s share. */
    long roundStart(int r) {
      return warmupRows + rows * r / rounds;
    }
  }

  /** One policy's outcome. */
  record Outcome(MemoryCompactionPolicy policy, TableName table, MemStoreInspector.InEffect memstore,
    Histogram latencyNanos, double seconds, List<Histogram> roundLatencyNanos, Counts activity,
    GcPauses.Summary gc, PutLoad.ReadBack readBack) {
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
      Arrays.sort(r);
      return r.length % 2 == 1 ? r[r.length / 2] : (r[r.length / 2 - 1] + r[r.length / 2]) / 2;
    }
  }

  /** Percentiles compared round by round: enough samples above them in one turn. */
  static final double[] PAIRED_PERCENTILES = { 50, 99, 99.9 };

  /** A run: every policy's outcome and the memstore settings of the RegionServers. */
  record Run(List<Outcome> outcomes, Map<String, String> memstoreSettings) {
  }

  /** RegionServer keys that shape flushes and in-memory compaction, with upstream's defaults. */
  static final Map<String, String> MEMSTORE_KEYS = Map.of(
    HConstants.HREGION_MEMSTORE_BLOCK_MULTIPLIER,
    String.valueOf(HConstants.DEFAULT_HREGION_MEMSTORE_BLOCK_MULTIPLIER),
    "hbase.regionserver.global.memstore.size", "0.4",
    MemStoreLAB.USEMSLAB_KEY, String.valueOf(MemStoreLAB.USEMSLAB_DEFAULT),
    MemStoreLAB.CHUNK_SIZE_KEY, String.valueOf(MemStoreLAB.CHUNK_SIZE_DEFAULT),
    CompactingMemStore.IN_MEMORY_FLUSH_THRESHOLD_FACTOR_KEY, "0 (in-memory flush every chunk)",
    "hbase.hregion.compacting.pipeline.segments.limit", "2",
    CompactingMemStore.COMPACTING_MEMSTORE_TYPE_KEY,
    CompactingMemStore.COMPACTING_MEMSTORE_TYPE_DEFAULT);

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
      "memstore flush size of the tables, MiB (default 8; HBase's in-memory flushes happen every "
        + "2 MiB of data)");
    o.addOption(null, "in-memory-flush-factor", true,
      "in-memory flush when the active segment holds this fraction of the flush size, set on "
        + "the tables' family (hbase.memstore.inmemoryflush.threshold.factor; default unset: "
        + "HBase flushes in memory every MSLAB chunk, 2 MiB)");
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
    out.printf(Locale.ROOT, "policies %s; %d measured single-row Puts per policy in %d rounds "
      + "(order rotating), %d writers, %d-byte values, memstore flush size %d MiB, in-memory "
      + "flush %s, %d warm-up Puts per policy; data in %s%n", s.policies(), s.rows(), s.rounds(),
      s.threads(), s.valueBytes(), s.flushBytes() >> 20, s.inMemoryFlushFactor() == null
        ? "every MSLAB chunk" : "at " + s.inMemoryFlushFactor() + " x flush size",
      s.warmupRows(), s.workDir());
    Run run;
    try (GcPauses gc = new GcPauses()) {
      run = measure(s, gc, out);
    }
    List<Outcome> outcomes = run.outcomes();
    out.println();
    out.print(table(outcomes));
    if (cl.hasOption("json")) {
      File file = new File(cl.getOptionValue("json"));
      JsonReports.write(file, json(s, run));
      out.println("JSON written to " + file);
    }
    int code = 0;
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
    }
    return code;
  }

  static Settings settings(CommandLine cl) {
    List<MemoryCompactionPolicy> policies = policies(cl.getOptionValue("policies",
      "NONE,BASIC,EAGER"));
    long rows = CommandLines.wholeNumber(cl, "rows", 400_000, 1);
    int rounds = (int) CommandLines.wholeNumber(cl, "rounds", 4L * policies.size(), 1);
    if (rounds > rows) {
      throw new IllegalArgumentException("--rounds (" + rounds + ") cannot exceed --rows ("
        + rows + ")");
    }
    return new Settings(rows, (int) CommandLines.wholeNumber(cl, "threads", 4, 1),
      (int) CommandLines.wholeNumber(cl, "value-bytes", 100, 1), policies, rounds,
      CommandLines.wholeNumber(cl, "warmup-rows", 20_000, 0),
      CommandLines.wholeNumber(cl, "flush-mb", 8, 1) << 20, inMemoryFlushFactor(cl),
      (int) CommandLines.wholeNumber(cl, "datanodes", 3, 1),
      new File(cl.getOptionValue("work-dir", defaultWorkDir())));
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
    long nanos;

    Arm(MemoryCompactionPolicy policy) {
      this.policy = policy;
      this.table = tableName(policy);
    }
  }

  static Run measure(Settings s, GcPauses gc, PrintStream out) throws Exception {
    LocalClusterConfig config = new LocalClusterConfig().workDir(s.workDir())
      .dataNodes(s.dataNodes());
    out.printf(Locale.ROOT, "starting the embedded tiered cluster (%d DataNodes)%n",
      s.dataNodes());
    AtomicInteger writerIds = new AtomicInteger();
    ExecutorService writers = Executors.newFixedThreadPool(s.threads(), r -> {
      Thread t = new Thread(r, "write-tail-writer-" + writerIds.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    try (TieredDfsCluster dfs = TieredDfsCluster.start(config);
      EmbeddedHBase hbase = EmbeddedHBase.start(dfs)) {
      List<Arm> arms = new ArrayList<>();
      for (MemoryCompactionPolicy p : s.policies()) {
        Arm arm = new Arm(p);
        createTable(hbase, arm, s);
        arms.add(arm);
      }
      PutLoad load = new PutLoad(hbase.connection(), writers, s.threads(), s.valueBytes());
      if (s.warmupRows() > 0) {
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
        out.printf(Locale.ROOT, "%-8s table %s: store runs %s%n", arm.policy, arm.table,
          memstores.get(arm).shortName());
      }
      for (int r = 0; r < s.rounds(); r++) {
        long from = s.roundStart(r);
        long to = s.roundStart(r + 1);
        for (int k = 0; k < arms.size(); k++) {
          Arm arm = arms.get((k + r) % arms.size());
          Histogram turn = new Histogram(3);
          long u0 = GcPauses.uptimeMs();
          long nanos = load.write(arm.table, from, to, turn);
          arm.turns.add(new long[] { u0, GcPauses.uptimeMs() });
          arm.nanos += nanos;
          arm.latencies.add(turn);
          arm.rounds.add(turn);
          out.printf(Locale.ROOT, "round %d/%d %-8s %8d Puts %7.1f s %8.0f/s  p99 %.2f ms  "
            + "p99.9 %.2f ms  max %.2f ms%n", r + 1, s.rounds(), arm.policy, to - from,
            nanos / 1e9, (to - from) / (nanos / 1e9), turn.getValueAtPercentile(99) / 1e6,
            turn.getValueAtPercentile(99.9) / 1e6, turn.getMaxValue() / 1e6);
          settle(hbase, arms, out);
        }
      }
      List<Outcome> outcomes = new ArrayList<>();
      long written = s.warmupRows() + s.rows();
      for (Arm arm : arms) {
        PutLoad.ReadBack back = load.readBack(arm.table, written);
        outcomes.add(new Outcome(arm.policy, arm.table, memstores.get(arm), arm.latencies,
          arm.nanos / 1e9, arm.rounds, counts(hbase, arm.table).minus(before.get(arm)), gc.within(arm.turns),
          back));
      }
      Map<String, String> memstoreSettings = new TreeMap<>();
      MEMSTORE_KEYS.forEach((k, dflt) -> memstoreSettings.put(k,
        hbase.regionServer(0).getConfiguration().get(k, dflt)));
      return new Run(outcomes, memstoreSettings);
    } finally {
      writers.shutdownNow();
    }
  }

  private static void createTable(EmbeddedHBase hbase, Arm arm, Settings s) throws IOException {
    ColumnFamilyDescriptorBuilder family = ColumnFamilyDescriptorBuilder
      .newBuilder(PutLoad.FAMILY).setInMemoryCompaction(arm.policy);
    if (s.inMemoryFlushFactor() != null) {
      // The store's configuration includes its family's: the compacting memstore reads it there.
      family.setConfiguration(CompactingMemStore.IN_MEMORY_FLUSH_THRESHOLD_FACTOR_KEY,
        String.valueOf(s.inMemoryFlushFactor()));
    }
    hbase.connection().getAdmin().createTable(TableDescriptorBuilder.newBuilder(arm.table)
      .setColumnFamily(family.build())
      .setMemStoreFlushSize(s.flushBytes())
      // One region per policy for the whole run: a split would change what each one measures.
      .setRegionSplitPolicyClassName(DisabledRegionSplitPolicy.class.getName())
      .setCoprocessor(MemStoreActivityObserver.class.getName())
      .build());
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

  static String table(List<Outcome> outcomes) {
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT, "%-8s %-24s %8s %8s %8s %8s %8s %8s %8s %7s %10s %9s "
      + "%12s%n", "policy", "memstore in effect", "Puts", "Puts/s", "p50 ms", "p99 ms",
      "p99.9 ms", "p99.99ms", "max ms", "flushes", "in-mem cmp", "(data)", "GC ms (max)"));
    for (Outcome o : outcomes) {
      sb.append(String.format(Locale.ROOT, "%-8s %-24s %8d %8.0f %8.2f %8.2f %8.2f %8.2f %8.2f "
        + "%7d %10d %9d %7d (%d)%n", o.policy(), o.memstore().shortName(), o.ops(),
        o.opsPerSecond(), o.micros(50) / 1e3, o.micros(99) / 1e3, o.micros(99.9) / 1e3,
        o.micros(99.99) / 1e3, o.micros(100) / 1e3, o.activity().flushes(),
        o.activity().inMemoryCompactions(), o.activity().inMemoryDataCompactions(), o.gc().totalMs(),
        o.gc().maxMs()));
    }
    Outcome base = baseline(outcomes);
    if (outcomes.size() > 1) {
      sb.append(String.format(Locale.ROOT, "ratios to %s (latency: below 1 is better; "
        + "throughput: above 1 is better)%n", base.policy()));
      for (Outcome o : outcomes) {
        if (o == base) {
          continue;
        }
        sb.append(String.format(Locale.ROOT, "%-8s Puts/s x%.2f", o.policy(),
          o.opsPerSecond() / base.opsPerSecond()));
        for (int i = 0; i < PERCENTILES.length; i++) {
          sb.append(String.format(Locale.ROOT, "  %s x%.2f", PERCENTILE_NAMES[i],
            o.micros(PERCENTILES[i]) / base.micros(PERCENTILES[i])));
        }
        sb.append(String.format(Locale.ROOT, "  flushes x%.2f%n",
          (double) o.activity().flushes() / Math.max(1, base.activity().flushes())));
      }
      sb.append(String.format(Locale.ROOT, "paired by round (median over the %d rounds of the "
        + "ratio to %s in the same round)%n", base.roundLatencyNanos().size(), base.policy()));
      for (Outcome o : outcomes) {
        if (o == base) {
          continue;
        }
        sb.append(String.format(Locale.ROOT, "%-8s", o.policy()));
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
    settings.put("regions_per_table", 1);
    ObjectNode keys = settings.putObject("regionserver");
    run.memstoreSettings().forEach(keys::put);
    ObjectNode results = doc.putObject("policies");
    for (Outcome o : outcomes) {
      ObjectNode p = results.putObject(o.policy().name());
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
    }
    Outcome base = baseline(outcomes);
    doc.put("baseline", base.policy().name());
    ObjectNode ratios = doc.putObject("ratios");
    for (Outcome o : outcomes) {
      if (o == base) {
        continue;
      }
      ObjectNode r = ratios.putObject(o.policy().name());
      r.put("throughput", o.opsPerSecond() / base.opsPerSecond());
      for (int i = 0; i < PERCENTILES.length; i++) {
        r.put(PERCENTILE_NAMES[i], o.micros(PERCENTILES[i]) / base.micros(PERCENTILES[i]));
      }
      ObjectNode paired = r.putObject("paired_by_round");
      for (double p : PAIRED_PERCENTILES) {
        paired.put(name(p), o.pairedRatio(base, p));
      }
    }
    return doc;
  }
}
