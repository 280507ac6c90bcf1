package io.strata.bench.pcm;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import io.strata.pcm.WorkloadClass;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a {@code strata bench pcm} run measured, as {@code results.json} and {@code --json} hold
 * it, built from the run's {@link PcmResults}. The JSON field names are the {@code @JsonProperty}
 * names, kept as the bench has always written them (PcmBenchIT and docs/benchmarks/pcm.md hold
 * them); a figure that could not be computed (no baseline, a side that did not run) is JSON
 * null, as before. Parts that did not run are left out, but for Table III and the workloads,
 * which are always there (empty).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
record PcmResult(@JsonProperty("scale") Scale scale, @JsonProperty("seconds") double seconds,
  @JsonProperty("table3") List<Step> table3,
  @JsonProperty("workloads") Map<String, Workload> workloads,
  @JsonProperty("classification") Classification classification,
  @JsonProperty("adaptation") Adaptation adaptation,
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

  /** One Table III step. */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  record Step(@JsonProperty("step") String step, @JsonProperty("config") String config,
    @JsonProperty("ops_per_s") double opsPerS, @JsonProperty("speedup") Double speedup,
    @JsonProperty("paper_speedup") double paperSpeedup, @JsonProperty("seconds") double seconds,
    @JsonProperty("regions_at_end") int regionsAtEnd) {
  }

  /** One workload: the largest dataset's figures, then every dataset's. */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  record Workload(@JsonProperty("default_ops_per_s") Double defaultOpsPerS,
    @JsonProperty("pcm_ops_per_s") Double pcmOpsPerS, @JsonProperty("speedup") Double speedup,
    @JsonProperty("paper_speedups") List<Double> paperSpeedups,
    @JsonProperty("datasets") List<Dataset> datasets) {
  }

  /** One workload on one dataset size. */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  record Dataset(@JsonProperty("records") long records,
    @JsonProperty("default_ops_per_s") Double defaultOpsPerS,
    @JsonProperty("pcm_ops_per_s") Double pcmOpsPerS, @JsonProperty("speedup") Double speedup) {
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

  /** The adaptation run: the second phase's switch time, each phase, the second phase's rates. */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  record Adaptation(@JsonProperty("switch_s") Double switchS,
    @JsonProperty("phases") List<PhaseRow> phases,
    @JsonProperty("second_phase") SecondPhase secondPhase) {
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
    @JsonProperty("speedup_vs_first_policy_kept") Double speedupVsFirstPolicyKept) {
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
    Scale scale = new Scale(r.scale.optionName(), r.scale.sizeDivisor(), r.scale.bulkRecords(),
      r.scale.datasets(), PcmBench.REGION_SERVERS, r.jvmHeapBytes);
    List<Step> table3 = new ArrayList<>();
    for (PcmResults.Step s : r.table3InOrder()) {
      table3.add(new Step(s.step().step(), s.step().config(), s.opsPerSec(),
        figure(r.speedup(s)), s.step().paperSpeedup(), s.seconds(), s.regions()));
    }
    Map<String, Workload> workloads = new LinkedHashMap<>();
    r.workloads.forEach((name, bySize) -> {
      // The top-level figures are those of the largest dataset; every size is listed below.
      PcmResults.Workload top = null;
      List<Dataset> datasets = new ArrayList<>();
      for (Map.Entry<Long, PcmResults.Workload> d : bySize.entrySet()) {
        top = d.getValue();
        datasets.add(new Dataset(d.getKey(), figure(top.defaultOps), figure(top.pcmOps),
          figure(top.speedup())));
      }
      List<Double> paper = new ArrayList<>();
      for (double v : PcmResults.PAPER_FIG5.getOrDefault(name, new double[0])) {
        paper.add(v);
      }
      workloads.put(name, new Workload(figure(top.defaultOps), figure(top.pcmOps),
        figure(top.speedup()), paper, datasets));
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
      adaptation = new Adaptation(figure(r.switchSeconds()), phases, new SecondPhase(
        figure(r.adaptPcmOps), figure(r.adaptDefaultOps), figure(r.adaptKeptOps),
        figure(r.adaptPcmOps / r.adaptDefaultOps), figure(r.adaptPcmOps / r.adaptKeptOps)));
    }
    return new PcmResult(scale, r.seconds, table3, workloads, classification, adaptation,
      r.failed.isEmpty() ? null : new LinkedHashMap<>(r.failed), r.monitoring);
  }
}
