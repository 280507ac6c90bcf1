package io.strata.bench.writetail;

import io.strata.bench.monitor.BenchMonitor;
import io.strata.bench.writetail.MemStoreActivityObserver.Counts;
import io.strata.local.EmbeddedHBase;
import io.strata.local.LocalClusterConfig;
import io.strata.local.TieredDfsCluster;
import io.strata.metrics.Median;
import java.io.PrintStream;
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
import org.apache.hadoop.hbase.MemoryCompactionPolicy;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.regionserver.HRegion;

/**
 * One run of {@code strata bench write-tail} on a cluster of its own: each policy gets its own
 * table ({@link WriteTailCluster#createTable}); the policies take turns, the rows written in
 * rounds, each round giving every policy an equal share, in an order that rotates from round to
 * round, so that the machine's noise over time falls on all of them alike; between turns the
 * cluster is let settle (no flush, compaction or in-memory compaction running or queued), so no
 * policy pays for another's background work. Every Put's latency goes into an HdrHistogram, and
 * into one per second of the run ({@link Timeline}), beside the flushes and GC pauses of the
 * policy's turns.
 */
final class WriteTailRun {
  private WriteTailRun() {
  }

  /**
   * One policy's outcome. {@code flushMarks}: its regions' flushes as {@code [start, end]}
   * seconds of the run, {@code turnMarks} its turns likewise; {@code gcMarks}: GC pauses in its
   * turns as {@code [start s, ms]};
   * {@code offheapBytesMax}: the most off-heap memstore bytes its regions held at a turn's end.
   */
  record Outcome(MemoryCompactionPolicy policy, TableName table,
    MemStoreInspector.InEffect memstore, Histogram latencyNanos, double seconds,
    List<Histogram> roundLatencyNanos, Counts activity,
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

  /** A run: every policy's outcome and the memstore settings of the RegionServers. */
  record Run(List<Outcome> outcomes, Map<String, String> memstoreSettings) {
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
      this.table = WriteTailCluster.tableName(policy);
    }
  }

  static Run measure(WriteTailBench.Settings s, GcPauses gc, BenchMonitor monitor,
    PrintStream out) throws Exception {
    LocalClusterConfig config = WriteTailCluster.clusterConfig(s);
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
      List<TableName> tables = new ArrayList<>();
      for (MemoryCompactionPolicy p : s.policies()) {
        Arm arm = new Arm(p);
        WriteTailCluster.createTable(hbase, p, s);
        arms.add(arm);
        tables.add(arm.table);
      }
      PutLoad load = new PutLoad(hbase.connection(), writers, s.threads(), s.valueBytes());
      if (s.warmupRows() > 0) {
        monitor.phase("warm-up");
        out.printf(Locale.ROOT, "warm-up: %d Puts per policy%n", s.warmupRows());
        for (Arm arm : arms) {
          load.write(arm.table, 0, s.warmupRows(), null);
        }
      }
      WriteTailCluster.settle(hbase, tables, out);
      Map<Arm, MemStoreInspector.InEffect> memstores = new LinkedHashMap<>();
      Map<Arm, Counts> before = new LinkedHashMap<>();
      for (Arm arm : arms) {
        memstores.put(arm, WriteTailCluster.memstore(hbase, arm.table));
        before.put(arm, WriteTailCluster.counts(hbase, arm.table));
        out.printf(Locale.ROOT, "%-8s table %s: %d region(s), store runs %s%n",
          s.label(arm.policy), arm.table, WriteTailCluster.regions(hbase, arm.table).size(),
          memstores.get(arm).shortName());
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
          arm.offheapBytesMax = Math.max(arm.offheapBytesMax,
            WriteTailCluster.offheapBytes(hbase, arm.table));
          arm.nanos += nanos;
          arm.latencies.add(turn);
          arm.rounds.add(turn);
          out.printf(Locale.ROOT, "round %d/%d %-8s %8d Puts %7.1f s %8.0f/s  p99 %.2f ms  "
            + "p99.9 %.2f ms  max %.2f ms%n", r + 1, s.rounds(), s.label(arm.policy), to - from,
            nanos / 1e9, (to - from) / (nanos / 1e9), turn.getValueAtPercentile(99) / 1e6,
            turn.getValueAtPercentile(99.9) / 1e6, turn.getMaxValue() / 1e6);
          WriteTailCluster.settle(hbase, tables, out);
        }
      }
      monitor.phase("read back");
      List<Outcome> outcomes = new ArrayList<>();
      long written = s.warmupRows() + s.rows();
      for (Arm arm : arms) {
        PutLoad.ReadBack back = load.readBack(arm.table, written);
        List<HRegion> regions = WriteTailCluster.regions(hbase, arm.table);
        int regionsWritten = 0;
        for (HRegion region : regions) {
          regionsWritten += region.getWriteRequestsCount() > 0 ? 1 : 0;
        }
        List<double[]> flushMarks = new ArrayList<>();
        for (long[] f : WriteTailCluster.flushIntervals(hbase, arm.table)) {
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
          arm.nanos / 1e9, arm.rounds,
          WriteTailCluster.counts(hbase, arm.table).minus(before.get(arm)), gc.within(arm.turns),
          back, s.label(arm.policy), regions.size(), regionsWritten,
          arm.timeline, turnMarks, flushMarks, gcMarks, arm.offheapBytesMax));
      }
      Map<String, String> memstoreSettings = new TreeMap<>();
      WriteTailCluster.MEMSTORE_KEYS.forEach((k, dflt) -> memstoreSettings.put(k,
        hbase.regionServer(0).getConfiguration().get(k, dflt)));
      monitor.follow(null);
      monitor.phase("stop cluster");
      return new Run(outcomes, memstoreSettings);
    } finally {
      writers.shutdownNow();
    }
  }


  /** The policy the others are compared with: NONE when measured, else the first. */
  static Outcome baseline(List<Outcome> outcomes) {
    return outcomes.stream().filter(o -> o.policy() == MemoryCompactionPolicy.NONE).findFirst()
      .orElse(outcomes.get(0));
  }
}
