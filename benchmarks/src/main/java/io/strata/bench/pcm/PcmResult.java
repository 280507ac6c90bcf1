package io.strata.bench.pcm;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import io.strata.bench.common.RunLabels;
import io.strata.pcm.WorkloadClass;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a {@code strata bench pcm} run measured, as {@code results.json} and {@code --json} hold
 * it, built from the run's {@link PcmResults}. The JSON field names are the {@code @JsonProperty}
 * names, kept as the bench has always written them (PcmBenchIT and docs/benchmarks/pcm.md hold
 * them); a figure that could not be computed (no baseline, a side that did not run) is JSON
 * null, as before. Parts that did not run are left out, but for Table III and the workloads,
 * which are always there (empty). Every comparison runs {@code runs} times: a {@code speedup} is
 * the median of the runs' speed-ups over the stock baseline (each run's PCM side over the same
 * run's baseline), {@code spread} their least and greatest, {@code runs} how many there were;
 * {@code speedup_vs_increasing_to_upper_bound} the same median over the secondary baseline. The
 * fields added with the repetitions are left out of the top level and the adaptation when not
 * measured, so that a document of the bench before them reads and writes back unchanged.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
record PcmResult(@JsonProperty("commit") String commit, @JsonProperty("date") String date,
  @JsonProperty("transport") String transport, @JsonProperty("emulation") String emulation,
  @JsonProperty("scale") Scale scale, @JsonProperty("seconds") double seconds,
  @JsonProperty("runs") Integer runs,
  @JsonProperty("baselines") Baselines baselines,
  @JsonProperty("table3") List<Step> table3,
  @JsonProperty("workloads") Map<String, Workload> workloads,
  @JsonProperty("classification") Classification classification,
  @JsonProperty("adaptation") Adaptation adaptation,
  @JsonProperty("distributions") Map<String, Map<String, Dataset>> distributions,
  @JsonProperty("failed") Map<String, String> failed,
  @JsonProperty("monitoring") JsonNode monitoring) {

  /** The run's scale and cluster. */
  record Scale(@JsonProperty("name") String name,
    @JsonProperty("size_divisor") int sizeDivisor,
    @JsonProperty("bulk_records") long bulkRecords,
    @JsonProperty("datasets") List<Long> datasets,
    @JsonProperty("region_servers") int regionServers,
    @JsonProperty("jvm_heap_bytes") long jvmHeapBytes) {
  }

  /** The two baselines, by name, and the split policy the RegionServers resolved for each. */
  record Baselines(@JsonProperty("primary") Baseline primary,
    @JsonProperty("secondary") Baseline secondary) {
  }

  /**
   * A baseline: its name, the split policy it sets (null: none, HBase's default) and the
   * classes the RegionServers resolved for its tables (empty: none of its tables ran).
   */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  record Baseline(@JsonProperty("name") String name,
    @JsonProperty("split_policy_set") String splitPolicySet,
    @JsonProperty("split_policy_used") List<String> splitPolicyUsed) {
  }

  /** The least and greatest of a comparison's per-run speed-ups. */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  record Spread(@JsonProperty("min") Double min, @JsonProperty("max") Double max) {
    static Spread of(List<Double> speedups) {
      return speedups.isEmpty() ? new Spread(null, null) : new Spread(
        speedups.stream().mapToDouble(Double::doubleValue).min().getAsDouble(),
        speedups.stream().mapToDouble(Double::doubleValue).max().getAsDouble());
    }
  }

  /**
   * One Table III step: the median of the runs' ops/s, the median of their speed-ups over S.1
   * of the same run (the stock baseline) and their min-max, and over S.1 on the secondary
   * baseline; seconds is the median run's, regions the most any run ended with.
   */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  record Step(@JsonProperty("step") String step, @JsonProperty("config") String config,
    @JsonProperty("ops_per_s") double opsPerS, @JsonProperty("speedup") Double speedup,
    @JsonProperty("runs") int runs, @JsonProperty("spread") Spread spread,
    @JsonProperty("runs_ops_per_s") List<Double> runsOpsPerS,
    @JsonProperty("speedup_vs_increasing_to_upper_bound") Double speedupVsIncreasing,
    @JsonProperty("paper_speedup") double paperSpeedup, @JsonProperty("seconds") double seconds,
    @JsonProperty("regions_at_end") int regionsAtEnd) {
  }

  /** One workload: the largest dataset's figures, then every dataset's. */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  record Workload(@JsonProperty("default_ops_per_s") Double defaultOpsPerS,
    @JsonProperty("pcm_ops_per_s") Double pcmOpsPerS, @JsonProperty("speedup") Double speedup,
    @JsonProperty("runs") int runs, @JsonProperty("spread") Spread spread,
    @JsonProperty("increasing_to_upper_bound_ops_per_s") Double increasingOpsPerS,
    @JsonProperty("speedup_vs_increasing_to_upper_bound") Double speedupVsIncreasing,
    @JsonProperty("paper_speedups") List<Double> paperSpeedups,
    @JsonProperty("datasets") List<Dataset> datasets) {
  }

  /**
   * One workload on one dataset size: median ops/s per side (default: the stock baseline), the
   * median of the runs' speed-ups and their min-max, the per-run ops/s.
   */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  record Dataset(@JsonProperty("records") long records,
    @JsonProperty("default_ops_per_s") Double defaultOpsPerS,
    @JsonProperty("pcm_ops_per_s") Double pcmOpsPerS, @JsonProperty("speedup") Double speedup,
    @JsonProperty("runs") int runs, @JsonProperty("spread") Spread spread,
    @JsonProperty("increasing_to_upper_bound_ops_per_s") Double increasingOpsPerS,
    @JsonProperty("speedup_vs_increasing_to_upper_bound") Double speedupVsIncreasing,
    @JsonProperty("runs_default_ops_per_s") List<Double> runsDefaultOpsPerS,
    @JsonProperty("runs_pcm_ops_per_s") List<Double> runsPcmOpsPerS,
    @JsonProperty("runs_increasing_to_upper_bound_ops_per_s") List<Double> runsIncreasingOpsPerS) {
  }

  /** The mixes as classified. */
  record Classification(@JsonProperty("correct") long correct, @JsonProperty("total") int total,
    @JsonProperty("mixes") List<MixRow> mixes) {
  }

  /** One mix: the class expected and the one that held (null: none). */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  record MixRow(@JsonProperty("mix") String mix, @JsonProperty("expected") String expected,
    @JsonProperty("got") String got, @JsonProperty("correct") boolean correct,
    @JsonProperty("seconds") double seconds,
    @JsonProperty("read_fraction") Double readFraction,
    @JsonProperty("scan_share") Double scanShare,
    @JsonProperty("insert_share") Double insertShare) {
  }

  /**
   * The adaptation: the first run's switch time and phases, the second phase's rates (medians
   * over the runs); PCM's speed-up over the stock baseline in the second phase (median of the
   * runs') with its min-max, over the secondary baseline, and the RegionServer restarts seen
   * across the runs (null: not observed).
   */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  record Adaptation(@JsonProperty("switch_s") Double switchS,
    @JsonProperty("phases") List<PhaseRow> phases,
    @JsonProperty("second_phase") SecondPhase secondPhase,
    @JsonInclude(JsonInclude.Include.NON_NULL) @JsonProperty("speedup") Double speedup,
    @JsonInclude(JsonInclude.Include.NON_NULL) @JsonProperty("runs") Integer runs,
    @JsonInclude(JsonInclude.Include.NON_NULL) @JsonProperty("spread") Spread spread,
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonProperty("speedup_vs_increasing_to_upper_bound") Double speedupVsIncreasing,
    @JsonInclude(JsonInclude.Include.NON_NULL) @JsonProperty("restarts") Integer restarts,
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonProperty("runs_switch_s") List<Double> runsSwitchS,
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonProperty("heap_tuner") HeapTuner heapTuner) {
  }

  /**
   * PcmHeapTuner on PCM's adaptation cluster in the second phase: the memstore and block-cache
   * shares (of the emulated heap, as HeapMemoryManager set them on the RegionServers) at the
   * phase's start and end, each the median over the runs of the mean over the RegionServers that
   * served the PCM table; {@code steps} the changes seen on those servers, summed over the runs;
   * then each run with its RegionServers.
   */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  record HeapTuner(@JsonProperty("enabled") boolean enabled,
    @JsonProperty("memstore_share_before") Double memstoreBefore,
    @JsonProperty("memstore_share_after") Double memstoreAfter,
    @JsonProperty("block_cache_share_before") Double blockCacheBefore,
    @JsonProperty("block_cache_share_after") Double blockCacheAfter,
    @JsonProperty("steps") int steps,
    @JsonProperty("runs") List<TunerRun> runs) {

    static HeapTuner of(Map<Integer, PcmResults.TunerRun> byRun) {
      if (byRun.isEmpty()) {
        return null;
      }
      List<Double> mb = new ArrayList<>();
      List<Double> ma = new ArrayList<>();
      List<Double> cb = new ArrayList<>();
      List<Double> ca = new ArrayList<>();
      int steps = 0;
      List<TunerRun> runs = new ArrayList<>();
      for (Map.Entry<Integer, PcmResults.TunerRun> e : byRun.entrySet()) {
        PcmResults.TunerRun t = e.getValue();
        double[] sum = new double[4];
        int n = 0;
        for (TunerServer s : t.servers()) {
          if (s.servesPcmTable()) {
            sum[0] += s.memstoreBefore();
            sum[1] += s.memstoreAfter();
            sum[2] += s.blockCacheBefore();
            sum[3] += s.blockCacheAfter();
            steps += s.steps();
            n++;
          }
        }
        if (n > 0) {
          mb.add(sum[0] / n);
          ma.add(sum[1] / n);
          cb.add(sum[2] / n);
          ca.add(sum[3] / n);
        }
        runs.add(new TunerRun(e.getKey() + 1, label(t.switchedTo()),
          figure(t.memstoreTarget()), figure(t.blockCacheTarget()), t.servers()));
      }
      return new HeapTuner(true, figure(PcmResults.median(mb)), figure(PcmResults.median(ma)),
        figure(PcmResults.median(cb)), figure(PcmResults.median(ca)), steps, runs);
    }
  }

  /** One run's second phase under PcmHeapTuner: the class switched to and its policy's shares. */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  record TunerRun(@JsonProperty("run") int run, @JsonProperty("switched_to") String switchedTo,
    @JsonProperty("memstore_share_target") Double memstoreTarget,
    @JsonProperty("block_cache_share_target") Double blockCacheTarget,
    @JsonProperty("region_servers") List<TunerServer> regionServers) {
  }

  /**
   * One RegionServer during the adaptation's second phase on PCM's cluster: whether it served
   * the PCM table at the end, its memstore and block-cache shares of the emulated heap at the
   * phase's start and end (read from the RegionServer), and the changes seen between.
   */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  record TunerServer(@JsonProperty("server") String server,
    @JsonProperty("serves_pcm_table") boolean servesPcmTable,
    @JsonProperty("memstore_share_before") double memstoreBefore,
    @JsonProperty("memstore_share_after") double memstoreAfter,
    @JsonProperty("block_cache_share_before") double blockCacheBefore,
    @JsonProperty("block_cache_share_after") double blockCacheAfter,
    @JsonProperty("steps") int steps) {
  }

  /** One phase: the class expected, the one that held (null: none), after how long. */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  record PhaseRow(@JsonProperty("phase") String phase, @JsonProperty("expected") String expected,
    @JsonProperty("classified") String classified, @JsonProperty("switch_s") Double switchS,
    @JsonProperty("ops_per_s") double opsPerS) {
  }

  /** The second phase under PCM, under the default, and with the first phase's policy kept. */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  record SecondPhase(@JsonProperty("pcm_ops_per_s") Double pcmOpsPerS,
    @JsonProperty("default_ops_per_s") Double defaultOpsPerS,
    @JsonProperty("first_policy_kept_ops_per_s") Double firstPolicyKeptOpsPerS,
    @JsonProperty("speedup_vs_default") Double speedupVsDefault,
    @JsonProperty("speedup_vs_first_policy_kept") Double speedupVsFirstPolicyKept,
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonProperty("increasing_to_upper_bound_ops_per_s") Double increasingOpsPerS) {
  }

  /** A figure, or null when it is not a number (NaN or infinite). */
  static Double figure(double v) {
    return Double.isNaN(v) || Double.isInfinite(v) ? null : v;
  }

  private static String label(WorkloadClass c) {
    return c == null ? null : c.label();
  }

  /** The Result of a run's measurements. */
  static PcmResult of(PcmResults r) {
    return of(null, r);
  }

  /**
   * The record of a run labelled as every kept result is (commit, date, transport, emulation:
   * io.strata.bench.common.RunLabels); {@code labels} null leaves them out, as in a document of
   * the bench before it labelled its results.
   */
  static PcmResult of(RunLabels labels, PcmResults r) {
    Scale scale = new Scale(r.scale.optionName(), r.scale.sizeDivisor(), r.scale.bulkRecords(),
      r.scale.datasets(), PcmBench.REGION_SERVERS, r.jvmHeapBytes);
    List<Step> table3 = new ArrayList<>();
    r.table3ByStep().forEach((t, runs) -> {
      List<Double> ops = new ArrayList<>();
      List<Double> speedups = new ArrayList<>();
      List<Double> secondary = new ArrayList<>();
      List<Double> seconds = new ArrayList<>();
      int regions = 0;
      for (PcmResults.Step s : runs) {
        ops.add(s.opsPerSec());
        seconds.add(s.seconds());
        regions = Math.max(regions, s.regions());
        double v = r.speedup(s);
        if (!Double.isNaN(v)) {
          speedups.add(v);
        }
        secondary.add(r.speedupVsSecondary(s));
      }
      table3.add(new Step(t.step(), t.config(), PcmResults.median(ops),
        figure(PcmResults.median(speedups)), runs.size(), Spread.of(speedups), ops,
        figure(PcmResults.median(secondary)), t.paperSpeedup(), PcmResults.median(seconds),
        regions));
    });
    Map<String, Workload> workloads = new LinkedHashMap<>();
    r.workloads.forEach((name, bySize) -> {
      // The top-level figures are those of the largest dataset; every size is listed below.
      Dataset top = null;
      List<Dataset> datasets = new ArrayList<>();
      for (Map.Entry<Long, PcmResults.Workload> d : bySize.entrySet()) {
        top = dataset(d.getKey(), d.getValue().sides);
        datasets.add(top);
      }
      List<Double> paper = new ArrayList<>();
      for (double v : PcmResults.PAPER_FIG5.getOrDefault(name, new double[0])) {
        paper.add(v);
      }
      workloads.put(name, new Workload(top.defaultOpsPerS(), top.pcmOpsPerS(), top.speedup(),
        top.runs(), top.spread(), top.increasingOpsPerS(), top.speedupVsIncreasing(), paper,
        datasets));
    });
    Classification classification = null;
    if (!r.classification.isEmpty()) {
      List<MixRow> mixes = new ArrayList<>();
      for (PcmResults.Classification k : r.classification) {
        mixes.add(new MixRow(k.mix().name(), k.mix().expected().label(),
          label(k.result().got()), k.correct(), k.result().seconds(),
          figure(k.result().readFraction()), figure(k.result().scanShare()),
          figure(k.result().insertShare())));
      }
      classification = new Classification(r.correct(), r.classification.size(), mixes);
    }
    Adaptation adaptation = null;
    if (r.phases != null) {
      List<PhaseRow> phases = new ArrayList<>();
      for (PcmResults.Phase p : r.phases) {
        phases.add(new PhaseRow(p.name(), p.expected().label(), label(p.classified()),
          figure(p.switchS()), p.opsPerSec()));
      }
      PcmResults.Sides sides = r.adaptSides;
      double pcm = sides.median(Side.PCM);
      double stock = sides.median(Side.STOCK);
      double kept = PcmResults.median(new ArrayList<>(r.adaptKept.values()));
      List<Double> speedups = sides.speedups(Side.PCM, Side.STOCK);
      List<Double> switches = new ArrayList<>();
      for (List<PcmResults.Phase> run : r.phasesByRun.values()) {
        switches.add(run.size() < 2 ? null : figure(run.get(1).switchS()));
      }
      adaptation = new Adaptation(figure(r.switchSeconds()), phases, new SecondPhase(
        figure(pcm), figure(stock), figure(kept), figure(pcm / stock), figure(pcm / kept),
        figure(sides.median(Side.INCREASING_TO_UPPER_BOUND))),
        figure(PcmResults.median(speedups)), r.phasesByRun.size(), Spread.of(speedups),
        figure(PcmResults.median(sides.speedups(Side.PCM, Side.INCREASING_TO_UPPER_BOUND))),
        r.adaptRestarts < 0 ? null : r.adaptRestarts, switches,
        HeapTuner.of(r.adaptTuner));
    }
    Map<String, Map<String, Dataset>> distributions = null;
    if (!r.distributions.isEmpty()) {
      distributions = new LinkedHashMap<>();
      for (Map.Entry<String, Map<KeyDistribution, PcmResults.Workload>> m
        : r.distributions.entrySet()) {
        Map<String, Dataset> byDist = new LinkedHashMap<>();
        m.getValue().forEach((d, w) -> byDist.put(d.label(),
          dataset(r.distributionRecords.get(d), w.sides)));
        distributions.put(m.getKey(), byDist);
      }
    }
    List<Baseline> baselines = new ArrayList<>();
    for (Side b : Side.BASELINES) {
      baselines.add(new Baseline(b.label(), b.splitPolicy(), new ArrayList<>(
        r.splitPolicies.getOrDefault(b, Set.of()))));
    }
    return new PcmResult(labels == null ? null : labels.commit(),
      labels == null ? null : labels.date(), labels == null ? null : labels.transport(),
      labels == null ? null : labels.emulation(), scale, r.seconds, r.runs, new Baselines(baselines.get(0),
      baselines.get(1)), table3, workloads, classification, adaptation, distributions,
      r.failed.isEmpty() ? null : new LinkedHashMap<>(r.failed), r.monitoring);
  }

  /** One dataset's figures from its sides' runs. */
  private static Dataset dataset(long records, PcmResults.Sides sides) {
    List<Double> speedups = sides.speedups(Side.PCM, Side.STOCK);
    double pcm = sides.median(Side.PCM);
    double stock = sides.median(Side.STOCK);
    // The runs compared: those with both sides, else those of the side that ran.
    int runs = !speedups.isEmpty() ? speedups.size()
      : Math.max(sides.runs(Side.PCM).size(), sides.runs(Side.STOCK).size());
    return new Dataset(records, figure(stock), figure(pcm),
      figure(PcmResults.median(speedups)), runs, Spread.of(speedups),
      figure(sides.median(Side.INCREASING_TO_UPPER_BOUND)),
      figure(PcmResults.median(sides.speedups(Side.PCM, Side.INCREASING_TO_UPPER_BOUND))),
      sides.runs(Side.STOCK), sides.runs(Side.PCM), sides.runs(Side.INCREASING_TO_UPPER_BOUND));
  }
}
