package io.strata.bench.writetail;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The console report of {@code strata bench write-tail} and its latency-over-time plot, rendered
 * from a {@link WriteTailResult}: a row per policy (the off-heap variant's after this run's), the
 * ratios to the baseline, paired by round where the rows ran in the same rounds, and every row's
 * tail beside the study's.
 */
final class WriteTailReport {
  /** The study's tail figures, as it gives them. */
  static final String STUDY_TAIL = "study (HBase 2.1.2, 256 MB flushes, 5 nodes): before the "
    + "HBASE-21738 fix P999 spikes to 150 ms, P9999 over 1 s; with the fix P999 < 100 ms, P9999 "
    + "200-500 ms; with the fix and in-memory compaction (BASIC) P999 < 50 ms, P9999 about 100 ms";
  private static final String ROW_HEADER = "%-13s %-24s %8s %8s %8s %8s %8s %8s %8s %7s %10s %9s "
    + "%12s%n";
  private static final String ROW = "%-13s %-24s %8d %8.0f %8.2f %8.2f %8.2f %8.2f %8.2f %7d %10d "
    + "%9d %7d (%d)%n";

  private WriteTailReport() {
  }

  /** The text table: a row per policy, then the ratios to the baseline. */
  static String table(WriteTailResult r) {
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT, ROW_HEADER, "policy", "memstore in effect", "Puts",
      "Puts/s", "p50 ms", "p99 ms", "p99.9 ms", "p99.99ms", "max ms", "flushes", "in-mem cmp",
      "(data)", "GC ms (max)"));
    r.policies().forEach((label, p) -> sb.append(String.format(Locale.ROOT, ROW, label,
      p.memstoreShortName(), p.ops(), p.throughputOpsPerS(), p.micros(50) / 1e3,
      p.micros(99) / 1e3, p.micros(99.9) / 1e3, p.micros(99.99) / 1e3, p.micros(100) / 1e3,
      p.flushes(), p.inMemoryCompactions(), p.inMemoryDataCompactions(), p.gc().totalMs(),
      p.gc().maxMs())));
    WriteTailResult.Policy base = r.policies().get(r.baseline());
    if (!r.ratios().isEmpty()) {
      sb.append(String.format(Locale.ROOT, "ratios to %s (latency: below 1 is better; "
        + "throughput: above 1 is better)%n", r.baseline()));
      r.ratios().forEach((label, ratio) -> {
        sb.append(String.format(Locale.ROOT, "%-13s Puts/s x%.2f", label, ratio.throughput()));
        for (int i = 0; i < WriteTailBench.PERCENTILES.length; i++) {
          sb.append(String.format(Locale.ROOT, "  %s x%.2f", WriteTailBench.PERCENTILE_NAMES[i],
            ratio.at(i)));
        }
        sb.append(String.format(Locale.ROOT, "  flushes x%.2f%s%n",
          (double) r.policies().get(label).flushes() / Math.max(1, base.flushes()),
          r.offheapVariantRow(label) ? "  (own cluster, run after)" : ""));
      });
    }
    List<String> paired = new ArrayList<>();
    r.ratios().forEach((label, ratio) -> {
      if (ratio.pairedByRound() != null) {
        paired.add(label);
      }
    });
    if (!paired.isEmpty()) {
      sb.append(String.format(Locale.ROOT, "paired by round (median over the %d rounds of the "
        + "ratio to %s in the same round)%n", base.roundsLatencyUs().size(), r.baseline()));
      for (String label : paired) {
        sb.append(String.format(Locale.ROOT, "%-8s", label));
        for (Map.Entry<String, Double> e : r.ratios().get(label).pairedByRound().entrySet()) {
          sb.append(String.format(Locale.ROOT, "  %s x%.2f", e.getKey(), e.getValue()));
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

  /** P999 and P9999 of every row beside the study's. */
  static String againstStudy(WriteTailResult r) {
    StringBuilder sb = new StringBuilder(STUDY_TAIL).append(System.lineSeparator());
    sb.append("here (HBase 2.6.4, which has the fix):");
    r.policies().forEach((label, p) -> sb.append(String.format(Locale.ROOT,
      "  %s P999 %.1f ms P9999 %.1f ms;", label, p.micros(99.9) / 1e3, p.micros(99.99) / 1e3)));
    return sb.append(System.lineSeparator()).toString();
  }

  /** The plot's panels: one per policy row, its latency over time with turns, flushes, GCs. */
  static List<Timeline.Panel> panels(WriteTailResult r) {
    List<Timeline.Panel> panels = new ArrayList<>();
    r.policies().forEach((label, p) -> panels.add(new Timeline.Panel(label,
      p.timeline().stream().map(t -> new Timeline.Bucket(t.tS(), t.puts(), t.p50Ms(), t.p99Ms(),
        t.p999Ms(), t.maxMs())).toList(), p.turnsS(),
      p.flushMarks().stream().map(f -> new double[] { f.startS(), f.endS() }).toList(),
      p.gcMarks().stream().map(WriteTailResult.GcMark::tS).toList())));
    return panels;
  }
}
