package io.strata.bench.pcm;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.strata.pcm.WorkloadClass;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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

  /** One Table III step as measured. */
  record Step(Table3Step step, double opsPerSec, double seconds, int regions) {
  }

  /** One workload on one dataset size, both sides. */
  static final class Workload {
    double defaultOps = Double.NaN;
    double pcmOps = Double.NaN;

    double speedup() {
      return defaultOps > 0 && pcmOps > 0 ? pcmOps / defaultOps : Double.NaN;
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

  final PcmScale scale;
  final long jvmHeapBytes;
  double seconds;
  final List<Step> table3 = new ArrayList<>();
  /** Workload name to dataset records to the two sides. */
  final Map<String, Map<Long, Workload>> workloads = new LinkedHashMap<>();
  final List<Classification> classification = new ArrayList<>();
  List<Phase> phases;
  double adaptPcmOps = Double.NaN;
  double adaptDefaultOps = Double.NaN;
  double adaptKeptOps = Double.NaN;
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

  void table3(Table3Step s, double opsPerSec, double secs, int regions) {
    table3.add(new Step(s, opsPerSec, secs, regions));
  }

  /** Table III's speed-up of {@code s} over S.1. */
  double speedup(Step s) {
    for (Step b : table3) {
      if (b.step().step().equals("S.1")) {
        return b.opsPerSec() > 0 ? s.opsPerSec() / b.opsPerSec() : Double.NaN;
      }
    }
    return Double.NaN;
  }

  /** The steps in the paper's order (they run grouped by heap). */
  List<Step> table3InOrder() {
    List<Step> sorted = new ArrayList<>(table3);
    sorted.sort((a, b) -> a.step().step().compareTo(b.step().step()));
    return sorted;
  }

  void workload(String name, long records, boolean isDefault, double ops) {
    Workload w = workloads.computeIfAbsent(name, k -> new LinkedHashMap<>())
      .computeIfAbsent(records, k -> new Workload());
    if (isDefault) {
      w.defaultOps = ops;
    } else {
      w.pcmOps = ops;
    }
  }

  void classified(Mix m, Classified c) {
    classification.add(new Classification(m, c));
  }

  long correct() {
    return classification.stream().filter(Classification::correct).count();
  }

  void adaptation(List<Phase> phases, double pcmOps, double defaultOps, double keptOps) {
    this.phases = List.copyOf(phases);
    this.adaptPcmOps = pcmOps;
    this.adaptDefaultOps = defaultOps;
    this.adaptKeptOps = keptOps;
  }

  /** The second phase's switch time, NaN when it did not switch. */
  double switchSeconds() {
    return phases == null || phases.size() < 2 ? Double.NaN : phases.get(1).switchS();
  }
}
