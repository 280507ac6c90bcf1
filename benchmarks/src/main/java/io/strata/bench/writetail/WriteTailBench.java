package io.strata.bench.writetail;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.strata.bench.common.BenchCommand;
import io.strata.bench.common.BenchJson;
import io.strata.bench.common.BenchOptions;
import io.strata.bench.common.RunLabels;
import io.strata.bench.monitor.BenchMonitor;
import io.strata.cli.CommandLines;
import java.io.File;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.hadoop.hbase.MemoryCompactionPolicy;
import org.apache.hadoop.hbase.util.DirectMemoryUtils;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code strata bench write-tail}: the tail latency of single-row Puts through memstore flushes
 * under HBase 2.x in-memory compaction policies (NONE, BASIC, EAGER by default), on one embedded
 * tiered cluster: the command line and the run's course. {@link WriteTailCluster} sets the
 * cluster and the tables up, {@link WriteTailRun} measures the policies' turns,
 * {@link OffheapVariant} runs the off-heap memstore's policies in a JVM of their own, and the
 * report and plot ({@link WriteTailReport}) are rendered from the {@link WriteTailResult}.
 *
 * <p>{@code --settings study} runs the RegionServer with the write-tail study's memstore settings;
 * {@code --regions N} pre-splits each table so that N regions fill and flush together, as the
 * study's balanced regions did.
 */
public final class WriteTailBench {
  static final String COMMAND = "strata bench write-tail";
  private static final String HEADER = "Writes single-row Puts (no batching, no client buffer) "
    + "into one table per in-memory compaction policy on the embedded tiered cluster, the "
    + "policies taking turns in rotating order, with a small memstore flush size so that the run "
    + "goes through many flushes; reports per policy the Put latency percentiles, throughput, "
    + "flushes, in-memory compaction activity and the memstore class in effect.";

  private WriteTailBench() {
  }

  /** The command line: picocli's options, turned into {@link Settings}. */
  @Command(name = COMMAND, sortOptions = false, description = HEADER)
  static final class Cli extends BenchCommand<Settings> {
    @Option(names = "--rows", paramLabel = "N", defaultValue = "400000",
      description = "measured Puts per policy (default ${DEFAULT-VALUE})")
    long rows;
    @Option(names = "--threads", paramLabel = "N", defaultValue = "4",
      description = "concurrent writers during a policy's turn (default ${DEFAULT-VALUE})")
    int threads;
    @Option(names = "--value-bytes", paramLabel = "N", defaultValue = "100",
      description = "bytes per value (default ${DEFAULT-VALUE}, as in the study)")
    int valueBytes;
    @Option(names = "--policies", paramLabel = "P,P", defaultValue = "NONE,BASIC,EAGER",
      description = "comma-separated in-memory compaction policies, of NONE, BASIC, EAGER, "
        + "ADAPTIVE (default ${DEFAULT-VALUE})")
    String policies;
    @Option(names = "--rounds", paramLabel = "N",
      description = "rounds of turns; the policies' order rotates each round (default 4 x "
        + "policies)")
    Integer rounds;
    @Option(names = "--warmup-rows", paramLabel = "N", defaultValue = "20000",
      description = "unmeasured Puts per policy before the measured rounds (default "
        + "${DEFAULT-VALUE})")
    long warmupRows;
    @Option(names = "--flush-mb", paramLabel = "MIB",
      description = "memstore flush size of the tables, MiB (default 8, or 256 with --settings "
        + "study; HBase's in-memory flushes happen every 2 MiB of data)")
    Long flushMb;
    @Option(names = "--in-memory-flush-factor", paramLabel = "F",
      description = "in-memory flush when the active segment holds this fraction of the flush "
        + "size, set on the tables' family (hbase.memstore.inmemoryflush.threshold.factor; "
        + "default unset: HBase flushes in memory every MSLAB chunk, 2 MiB)")
    String inMemoryFlushFactor;
    @Option(names = "--settings", paramLabel = "PROFILE", defaultValue = "default",
      description = "RegionServer settings profile: default (upstream's) or study (the "
        + "write-tail study's: block multiplier 5, 256 MB flushes, global memstore 0.4, lower "
        + "limit 0.625, compacting memstore type BASIC)")
    String profile;
    @Option(names = "--regions", paramLabel = "N", defaultValue = "1",
      description = "regions per table, pre-split over the key space (splits stay disabled; "
        + "default ${DEFAULT-VALUE})")
    int regions;
    @Option(names = "--offheap", paramLabel = "P,P",
      description = "comma-separated policies to run again on an off-heap memstore (MSLAB "
        + "chunks off-heap), reported as POLICY-offheap; they run after the others, on a "
        + "cluster of their own in a JVM of their own (default none)")
    String offheap;
    @Option(names = "--offheap-memstore-mb", paramLabel = "MIB",
      description = "off-heap global memstore, MiB (hbase.regionserver.offheap.global.memstore."
        + "size): with --offheap, its size (default: the on-heap global memstore of this JVM's "
        + "heap); without, this run's cluster itself runs off-heap (needs "
        + "-XX:MaxDirectMemorySize above it)")
    Long offheapMemstoreMb;
    @Option(names = "--plot", paramLabel = "PNG",
      description = "write the latency over time (per second p50, p99, p99.9, max; flushes and "
        + "GC pauses marked) to this PNG; the off-heap variant's to its sibling NAME-offheap.png")
    File plot;
    @Mixin
    BenchOptions.Monitoring monitoring;
    @Option(names = "--datanodes", paramLabel = "N", defaultValue = "3",
      description = "DataNodes of the embedded cluster (default ${DEFAULT-VALUE})")
    int dataNodes;
    @Mixin
    BenchOptions.JsonFile json;
    @Option(names = "--work-dir", paramLabel = "DIR",
      description = "directory for the cluster's data, wiped per run (default "
        + "$STRATA_WORK/bench/write-tail, STRATA_WORK defaulting to .strata-work)")
    File workDir;

    @Override
    protected Settings settings() {
      List<MemoryCompactionPolicy> chosen = policies(policies);
      atLeast("--rows", rows, 1);
      int r = rounds != null ? atLeast("--rounds", rounds, 1) : 4 * chosen.size();
      if (r > rows) {
        throw new IllegalArgumentException("--rounds (" + r + ") cannot exceed --rows (" + rows
          + ")");
      }
      String p = profile.trim().toLowerCase(Locale.ROOT);
      if (!WriteTailCluster.PROFILES.containsKey(p)) {
        throw new IllegalArgumentException("--settings: unknown profile '" + profile
          + "' (one of " + String.join(", ", WriteTailCluster.PROFILES.keySet()) + ")");
      }
      long flushBytes = flushMb != null ? atLeast("--flush-mb", flushMb, 1) << 20
        : p.equals("study") ? WriteTailCluster.STUDY_FLUSH_BYTES : 8L << 20;
      if (plot != null && !plot.getName().endsWith(".png")) {
        throw new IllegalArgumentException("--plot takes a .png file, not '" + plot + "'");
      }
      return new Settings(rows, atLeast("--threads", threads, 1),
        atLeast("--value-bytes", valueBytes, 1), chosen, r,
        atLeast("--warmup-rows", warmupRows, 0), flushBytes, factor(inMemoryFlushFactor),
        atLeast("--datanodes", dataNodes, 1),
        workDir != null ? workDir : CommandLines.workDir("bench/write-tail"), p,
        atLeast("--regions", regions, 1), offheap != null ? policies(offheap) : List.of(),
        offheapMemstoreMb != null ? atLeast("--offheap-memstore-mb", offheapMemstoreMb, 1) : 0,
        plot, monitoring.intervalMs(), json.file());
    }

    private static Double factor(String raw) {
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
      throw new IllegalArgumentException("--in-memory-flush-factor takes a fraction in (0, 1], "
        + "not '" + raw + "'");
    }
  }

  /**
   * What one run does. {@code offheapPolicies}: policies run again on an off-heap memstore after
   * the others, of {@code offheapMemstoreMb} (0: as large as the on-heap one); without such
   * policies, {@code offheapMemstoreMb} > 0 gives this run's own cluster an off-heap memstore.
   */
  record Settings(long rows, int threads, int valueBytes, List<MemoryCompactionPolicy> policies,
    int rounds, long warmupRows, long flushBytes, Double inMemoryFlushFactor, int dataNodes,
    File workDir, String profile, int regions, List<MemoryCompactionPolicy> offheapPolicies,
    long offheapMemstoreMb, File plot, long monitorMs, File json) {
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

  /** Percentiles compared round by round: enough samples above them in one turn. */
  static final double[] PAIRED_PERCENTILES = { 50, 99, 99.9 };

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

  /** Direct memory beyond the off-heap memstore that the JVM must allow, MiB. */
  static final long DIRECT_MEMORY_MARGIN_MB = 512;

  public static void main(String[] args) {
    CommandLines.runAndHalt(COMMAND, () -> run(args, System.out));
  }

  static int run(String[] args, PrintStream out) throws Exception {
    return BenchCommand.run(new Cli(), args, out, s -> run(s, out));
  }

  /**
   * The labels of a run with settings {@code s} started now: the transport the cluster's client
   * configuration gives; no media emulation (the volumes are this machine's disk and tmpfs).
   */
  static RunLabels labels(Settings s) {
    return RunLabels.now(
      RunLabels.clientTransport(WriteTailCluster.clusterConfig(s).hbaseOverrides()::get),
      RunLabels.NO_EMULATION);
  }

  static int run(Settings s, PrintStream out) throws Exception {
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
        return BenchCommand.BAD_INPUT;
      }
    }
    out.printf(Locale.ROOT, "policies %s; %d measured single-row Puts per policy in %d rounds "
      + "(order rotating), %d writers, %d-byte values, memstore flush size %d MiB, in-memory "
      + "flush %s, %d warm-up Puts per policy; data in %s%n", s.policies(), s.rows(), s.rounds(),
      s.threads(), s.valueBytes(), s.flushBytes() >> 20, s.inMemoryFlushFactor() == null
        ? "every MSLAB chunk" : "at " + s.inMemoryFlushFactor() + " x flush size",
      s.warmupRows(), s.workDir());
    out.printf(Locale.ROOT, "settings %s%s; %d region(s) per table; memstore %s%n", s.profile(),
      WriteTailCluster.PROFILES.get(s.profile()).isEmpty() ? ""
        : " " + WriteTailCluster.PROFILES.get(s.profile()), s.regions(),
      s.offheap() ? "off-heap, " + s.offheapMemstoreMb() + " MiB" : "on-heap");
    // Decided as the run starts: the tree may change while it runs.
    RunLabels labels = labels(s);
    WriteTailRun.Run run;
    // The machine and the RegionServer beside the Put latency: the monitoring section and plot.
    ObjectNode monitoring = JsonNodeFactory.instance.objectNode();
    try (GcPauses gc = new GcPauses();
      BenchMonitor monitor = BenchMonitor.start(s.monitorMs(), true)) {
      run = WriteTailRun.measure(s, gc, monitor, out);
      monitor.write(monitoring, monitorPng(s), COMMAND, out);
    }
    WriteTailResult onHeap = WriteTailResult.of(labels, s, run,
      monitoring.get(BenchMonitor.SECTION));
    WriteTailResult result = onHeap;
    int code = 0;
    if (!s.offheapPolicies().isEmpty()) {
      OffheapVariant variant = OffheapVariant.run(s, out);
      if (variant.result() != null) {
        result = onHeap.withOffheap(variant.result());
      }
      if (variant.failure() != null) {
        System.err.printf(Locale.ROOT, "%s: the off-heap variant %s%n", COMMAND,
          variant.failure());
        code = 1;
      }
    }
    out.println();
    out.print(WriteTailReport.table(result));
    out.print(WriteTailReport.againstStudy(result));
    if (s.plot() != null) {
      Timeline.plot(WriteTailReport.panels(onHeap), s.plot());
      out.println("latency over time plotted to " + s.plot());
    }
    if (s.json() != null) {
      BenchJson.write(s.json(), result);
      out.println("JSON written to " + s.json());
    }
    for (WriteTailRun.Outcome o : run.outcomes()) {
      code = Math.max(code, check(s, o));
    }
    return code;
  }

  /** 1 (each reason on standard error) when a policy's figures are not what it was to measure. */
  private static int check(Settings s, WriteTailRun.Outcome o) {
    int code = 0;
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
    return code;
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

  /** The off-heap variant's plot beside {@code plot}: {@code NAME-offheap.png}. */
  static File offheapPlot(File plot) {
    String name = plot.getName();
    return new File(plot.getAbsoluteFile().getParentFile(),
      name.substring(0, name.length() - ".png".length()) + OFFHEAP_SUFFIX + ".png");
  }

  /** {@code csv}'s policies, in its order, each once. */
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
}
