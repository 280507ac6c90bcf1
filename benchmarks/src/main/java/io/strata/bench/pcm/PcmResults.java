package io.strata.bench.pcm;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.strata.pcm.WorkloadClass;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What a {@code strata bench pcm} run measured, beside the paper's figures, as the run gathers
 * it; {@link PcmResult} is its {@code results.json}, from which {@link PcmReport} renders the
 * report and the console summary. Not thread-safe: the run fills it from one thread.
 */
final class PcmResults {
  /** Fig. 5's speed-ups of PCM over the default for 1, 10 and 100 million records. */
  static final Map<String, double[]> PAPER_FIG5 = Map.of(
    "BL", new double[] { 5.2, 2.9, 2.4 },
    "WO-Update", new double[] { 2.1, 1.5, 1.6 },
    "RO-Read", new double[] { 2.2, 1.8 },
    "RO-Scan", new double[] { 1.9, 1.9 });
  static final List<String> WORKLOADS = List.of("BL", "WO-Update", "RO-Read", "RO-Scan", "MixRW");
  /** Fig. 6's speed-ups of PCM over the default (100 million records), by workload and keys. */
  static final Map<String, Double> PAPER_FIG6 = Map.of(
    "RO-Read/uniform", 1.5, "RO-Read/zipfian", 1.6, "RO-Read/latest", 1.2,
    "RO-Scan/uniform", 2.7, "RO-Scan/zipfian", 2.5, "RO-Scan/latest", 2.9);

  /** One Table III step as measured in one run (0 based). */
  record Step(Table3Step step, int run, double opsPerSec, double seconds, int regions) {
  }

  /**
   * A comparison's per-run figures: run (0 based) to ops/s, per side. A speed-up is taken run by
   * run (both sides of the same repetition), then summarised as median and min-max.
   */
  static final class Sides {
    final Map<Side, Map<Integer, Double>> ops = new LinkedHashMap<>();

    void put(Side side, int run, double opsPerSec) {
      ops.computeIfAbsent(side, k -> new TreeMap<>()).put(run, opsPerSec);
    }

    /** The side's ops/s run by run (in run order). */
    List<Double> runs(Side side) {
      return new ArrayList<>(ops.getOrDefault(side, Map.of()).values());
    }

    /** The median of the side's ops/s, NaN when it did not run. */
    double median(Side side) {
      return PcmResults.median(runs(side));
    }

    /** {@code side}'s speed-up over {@code base} in each run both ran. */
    List<Double> speedups(Side side, Side base) {
      List<Double> out = new ArrayList<>();
      Map<Integer, Double> b = ops.getOrDefault(base, Map.of());
      ops.getOrDefault(side, Map.of()).forEach((run, v) -> {
        Double d = b.get(run);
        if (d != null && d > 0 && v > 0) {
          out.add(v / d);
        }
      });
      return out;
    }
  }

  /** One workload on one dataset size: PCM and the baselines, run by run. */
  static final class Workload {
    final Sides sides = new Sides();

    /** Median ops/s of PCM and of the primary baseline. */
    double defaultOps() {
      return sides.median(Side.STOCK);
    }

    double pcmOps() {
      return sides.median(Side.PCM);
    }

    /** The median of the runs' speed-ups of PCM over the primary baseline. */
    double speedup() {
      return median(sides.speedups(Side.PCM, Side.STOCK));
    }
  }

  /** What the monitor made of one mix: the class that held (null: none), when, the rates. */
  record Classified(WorkloadClass got, double seconds, double readFraction, double scanShare,
    double insertShare) {
  }

  /** One mix as classified. */
  record Classification(Mix mix, Classified result) {
    boolean correct() {
      return result.got() == mix.expected();
    }
  }

  /** One phase of the adaptation run. */
  record Phase(String name, WorkloadClass expected, WorkloadClass classified, double switchS,
    double opsPerSec) {
  }

  /**
   * PcmHeapTuner in one adaptation run's second phase: the class switched to (null: none) and
   * its policy's shares (the target), and each RegionServer.
   */
  record TunerRun(WorkloadClass switchedTo, double memstoreTarget, double blockCacheTarget,
    List<PcmResult.TunerServer> servers) {
  }

  /** The median of the finite values, NaN when there is none. */
  static double median(List<Double> values) {
    List<Double> v = new ArrayList<>();
    for (double d : values) {
      if (!Double.isNaN(d) && !Double.isInfinite(d)) {
        v.add(d);
      }
    }
    if (v.isEmpty()) {
      return Double.NaN;
    }
    Collections.sort(v);
    int n = v.size();
    return n % 2 == 1 ? v.get(n / 2) : (v.get(n / 2 - 1) + v.get(n / 2)) / 2;
  }

  final PcmScale scale;
  final long jvmHeapBytes;
  double seconds;
  /** Repetitions of every comparison. */
  int runs = 1;
  /** Per baseline, the split policy classes the RegionServers resolved for its tables. */
  final Map<Side, Set<String>> splitPolicies = new LinkedHashMap<>();
  final List<Step> table3 = new ArrayList<>();
  /** S.1 (the bulk load into one region) on the secondary baseline, run to ops/s. */
  final Map<Integer, Double> table3Secondary = new TreeMap<>();
  /** Fig. 6: mix name to key distribution to the sides, and the records each read over. */
  final Map<String, Map<KeyDistribution, Workload>> distributions = new LinkedHashMap<>();
  final Map<KeyDistribution, Long> distributionRecords = new java.util.EnumMap<>(
    KeyDistribution.class);

  /** Workload name to dataset records to the two sides. */
  final Map<String, Map<Long, Workload>> workloads = new LinkedHashMap<>();
  final List<Classification> classification = new ArrayList<>();
  /** The first run's phases. */
  List<Phase> phases;
  /** Each run's phases. */
  final Map<Integer, List<Phase>> phasesByRun = new TreeMap<>();
  /** The second phase's ops/s per side, run by run; the kept BL policy under PCM's key. */
  final Sides adaptSides = new Sides();
  final Map<Integer, Double> adaptKept = new TreeMap<>();
  /** RegionServer restarts observed across the adaptation runs; -1: not observed. */
  int adaptRestarts = -1;
  /** PcmHeapTuner in each adaptation run's second phase; empty when it did not run. */
  final Map<Integer, TunerRun> adaptTuner = new TreeMap<>();
  final Map<String, String> failed = new LinkedHashMap<>();
  /** The run's monitoring timeline (Timeline's JSON), null when not monitored. */
  ObjectNode monitoring;

  PcmResults(PcmScale scale, long jvmHeapBytes) {
    this.scale = scale;
    this.jvmHeapBytes = jvmHeapBytes;
  }

  void seconds(double s) {
    this.seconds = s;
  }

  void monitoring(ObjectNode timeline) {
    this.monitoring = timeline;
  }

  void failed(String part, String why) {
    failed.put(part, why);
  }

  void runs(int n) {
    this.runs = n;
  }

  /** A split policy class the RegionServer resolved for a table of {@code side}. */
  void splitPolicy(Side side, String className) {
    splitPolicies.computeIfAbsent(side, k -> new LinkedHashSet<>()).add(className);
  }

  void table3(Table3Step s, double opsPerSec, double secs, int regions) {
    table3(s, 0, opsPerSec, secs, regions);
  }

  void table3(Table3Step s, int run, double opsPerSec, double secs, int regions) {
    table3.add(new Step(s, run, opsPerSec, secs, regions));
  }

  /** S.1's bulk load on the secondary baseline in {@code run}. */
  void table3Secondary(int run, double opsPerSec) {
    table3Secondary.put(run, opsPerSec);
  }

  /** Table III's speed-up of {@code s} over S.1 of the same run (the primary baseline). */
  double speedup(Step s) {
    for (Step b : table3) {
      if (b.step().step().equals("S.1") && b.run() == s.run()) {
        return b.opsPerSec() > 0 ? s.opsPerSec() / b.opsPerSec() : Double.NaN;
      }
    }
    return Double.NaN;
  }

  /** {@code s}'s speed-up over S.1 of the same run on the secondary baseline. */
  double speedupVsSecondary(Step s) {
    Double b = table3Secondary.get(s.run());
    return b != null && b > 0 ? s.opsPerSec() / b : Double.NaN;
  }

  /** Each step's runs, in the paper's order of the steps and run order within each. */
  Map<Table3Step, List<Step>> table3ByStep() {
    Map<Table3Step, List<Step>> out = new LinkedHashMap<>();
    for (Table3Step t : Table3Step.STEPS) {
      for (Step s : table3) {
        if (s.step().equals(t)) {
          out.computeIfAbsent(t, k -> new ArrayList<>()).add(s);
        }
      }
    }
    out.values().forEach(l -> l.sort((a, b) -> Integer.compare(a.run(), b.run())));
    return out;
  }

  void workload(String name, long records, boolean isDefault, double ops) {
    workload(name, records, 0, isDefault ? Side.STOCK : Side.PCM, ops);
  }

  void distribution(String mix, KeyDistribution d, long records, int run, Side side,
    double ops) {
    distributions.computeIfAbsent(mix, k -> new LinkedHashMap<>())
      .computeIfAbsent(d, k -> new Workload()).sides.put(side, run, ops);
    distributionRecords.put(d, records);
  }

  void workload(String name, long records, int run, Side side, double ops) {
    workloads.computeIfAbsent(name, k -> new LinkedHashMap<>())
      .computeIfAbsent(records, k -> new Workload()).sides.put(side, run, ops);
  }

  void classified(Mix m, Classified c) {
    classification.add(new Classification(m, c));
  }

  long correct() {
    return classification.stream().filter(Classification::correct).count();
  }

  void adaptation(List<Phase> phases, double pcmOps, double defaultOps, double keptOps) {
    adaptation(0, phases, Map.of(Side.PCM, pcmOps, Side.STOCK, defaultOps), keptOps, -1);
  }

  /**
   * One adaptation run: its phases, the second phase's ops/s per side, with the first phase's
   * policy kept, and the RegionServer restarts seen during it (-1: not observed).
   */
  void adaptation(int run, List<Phase> phases, Map<Side, Double> secondPhase, double keptOps,
    int restarts) {
    phasesByRun.put(run, List.copyOf(phases));
    this.phases = phasesByRun.values().iterator().next();
    secondPhase.forEach((side, ops) -> adaptSides.put(side, run, ops));
    adaptKept.put(run, keptOps);
    if (restarts >= 0) {
      adaptRestarts = Math.max(0, adaptRestarts) + restarts;
    }
  }

  /** What PcmHeapTuner did in adaptation run {@code run}'s second phase. */
  void adaptationTuner(int run, TunerRun tuner) {
    adaptTuner.put(run, tuner);
  }

  /** The second phase's switch time, NaN when it did not switch. */
  double switchSeconds() {
    return phases == null || phases.size() < 2 ? Double.NaN : phases.get(1).switchS();
  }
}
