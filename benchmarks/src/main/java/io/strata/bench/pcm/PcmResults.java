package io.strata.bench.pcm;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.strata.bench.monitor.BenchMonitor;
import io.strata.cli.JsonReports;
import io.strata.pcm.WorkloadClass;
import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a {@code strata bench pcm} run measured, beside the paper's figures, and its
 * {@code results.json}. Not thread-safe: the run fills it from one thread.
 */
final class PcmResults {
  private static final ObjectMapper JSON = new ObjectMapper();
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

  ObjectNode toJson() {
    ObjectNode doc = JSON.createObjectNode();
    ObjectNode sc = doc.putObject("scale");
    sc.put("name", scale.optionName());
    sc.put("size_divisor", scale.sizeDivisor());
    sc.put("bulk_records", scale.bulkRecords());
    ArrayNode ds = sc.putArray("datasets");
    scale.datasets().forEach(ds::add);
    sc.put("region_servers", PcmBench.REGION_SERVERS);
    sc.put("jvm_heap_bytes", jvmHeapBytes);
    doc.put("seconds", seconds);
    ArrayNode t3 = doc.putArray("table3");
    for (Step s : table3InOrder()) {
      ObjectNode n = t3.addObject();
      n.put("step", s.step().step());
      n.put("config", s.step().config());
      n.put("ops_per_s", s.opsPerSec());
      put(n, "speedup", speedup(s));
      n.put("paper_speedup", s.step().paperSpeedup());
      n.put("seconds", s.seconds());
      n.put("regions_at_end", s.regions());
    }
    ObjectNode wl = doc.putObject("workloads");
    for (Map.Entry<String, Map<Long, Workload>> e : workloads.entrySet()) {
      ObjectNode n = wl.putObject(e.getKey());
      // The top-level figures are those of the largest dataset; every size is listed below.
      Workload top = null;
      ArrayNode by = JSON.createArrayNode();
      for (Map.Entry<Long, Workload> d : e.getValue().entrySet()) {
        top = d.getValue();
        ObjectNode x = by.addObject();
        x.put("records", d.getKey());
        put(x, "default_ops_per_s", d.getValue().defaultOps);
        put(x, "pcm_ops_per_s", d.getValue().pcmOps);
        put(x, "speedup", d.getValue().speedup());
      }
      put(n, "default_ops_per_s", top.defaultOps);
      put(n, "pcm_ops_per_s", top.pcmOps);
      put(n, "speedup", top.speedup());
      ArrayNode paper = n.putArray("paper_speedups");
      for (double v : PAPER_FIG5.getOrDefault(e.getKey(), new double[0])) {
        paper.add(v);
      }
      n.set("datasets", by);
    }
    if (!classification.isEmpty()) {
      ObjectNode c = doc.putObject("classification");
      c.put("correct", correct());
      c.put("total", classification.size());
      ArrayNode mixes = c.putArray("mixes");
      for (Classification k : classification) {
        ObjectNode n = mixes.addObject();
        n.put("mix", k.mix().name());
        n.put("expected", k.mix().expected().label());
        n.put("got", k.result().got() == null ? null : k.result().got().label());
        n.put("correct", k.correct());
        n.put("seconds", k.result().seconds());
        put(n, "read_fraction", k.result().readFraction());
        put(n, "scan_share", k.result().scanShare());
        put(n, "insert_share", k.result().insertShare());
      }
    }
    if (phases != null) {
      ObjectNode a = doc.putObject("adaptation");
      put(a, "switch_s", switchSeconds());
      ArrayNode ph = a.putArray("phases");
      for (Phase p : phases) {
        ObjectNode n = ph.addObject();
        n.put("phase", p.name());
        n.put("expected", p.expected().label());
        n.put("classified", p.classified() == null ? null : p.classified().label());
        put(n, "switch_s", p.switchS());
        n.put("ops_per_s", p.opsPerSec());
      }
      ObjectNode second = a.putObject("second_phase");
      put(second, "pcm_ops_per_s", adaptPcmOps);
      put(second, "default_ops_per_s", adaptDefaultOps);
      put(second, "first_policy_kept_ops_per_s", adaptKeptOps);
      put(second, "speedup_vs_default", adaptPcmOps / adaptDefaultOps);
      put(second, "speedup_vs_first_policy_kept", adaptPcmOps / adaptKeptOps);
    }
    if (!failed.isEmpty()) {
      ObjectNode f = doc.putObject("failed");
      failed.forEach(f::put);
    }
    if (monitoring != null) {
      doc.set(BenchMonitor.SECTION, monitoring);
    }
    return doc;
  }

  private static void put(ObjectNode n, String key, double v) {
    if (Double.isNaN(v) || Double.isInfinite(v)) {
      n.putNull(key);
    } else {
      n.put(key, v);
    }
  }

  void writeJson(File f) throws IOException {
    JsonReports.write(f, toJson());
  }

  /** The console summary. */
  String summary() {
    StringBuilder sb = new StringBuilder();
    if (!table3.isEmpty()) {
      sb.append(String.format(Locale.ROOT, "Table III (bulk load of %,d records):%n",
        scale.bulkRecords()));
      for (Step s : table3InOrder()) {
        sb.append(String.format(Locale.ROOT, "  %-4s %-22s %,10.0f ops/s  %5.2fx  (paper %.1fx)%n",
          s.step().step(), s.step().config(), s.opsPerSec(), speedup(s),
          s.step().paperSpeedup()));
      }
    }
    for (Map.Entry<String, Map<Long, Workload>> e : workloads.entrySet()) {
      for (Map.Entry<Long, Workload> d : e.getValue().entrySet()) {
        sb.append(String.format(Locale.ROOT, "  %-9s %,9d records: default %,8.0f, PCM %,8.0f "
          + "ops/s: %5.2fx%n", e.getKey(), d.getKey(), d.getValue().defaultOps,
          d.getValue().pcmOps, d.getValue().speedup()));
      }
    }
    if (!classification.isEmpty()) {
      sb.append(String.format(Locale.ROOT, "Classification: %d of %d correct%n", correct(),
        classification.size()));
    }
    if (phases != null) {
      sb.append(String.format(Locale.ROOT, "Adaptation: switch after %.1f s; second phase PCM "
        + "%,.0f, default %,.0f, first policy kept %,.0f ops/s%n", switchSeconds(), adaptPcmOps,
        adaptDefaultOps, adaptKeptOps));
    }
    failed.forEach((k, v) -> sb.append("FAILED ").append(k).append(": ").append(v).append('\n'));
    return sb.toString();
  }
}
