package io.strata.bench.pcm;

import io.strata.bench.common.BenchJson;
import io.strata.bench.common.Charts;
import io.strata.bench.monitor.BenchMonitor;
import java.awt.Color;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.knowm.xchart.CategoryChart;

/**
 * The report of a {@code strata bench pcm} run, rendered from its {@link PcmResult} (and the
 * scale's thread counts and durations): {@code report.md} with the paper's figures beside the
 * measured ones, {@code results.json}, PNG plots of the speed-ups, and the console summary.
 * Not thread-safe.
 */
final class PcmReport {
  static final String MARKDOWN = "report.md";
  static final String JSON = "results.json";
  static final String TABLE3_PNG = "table3-speedup.png";
  static final String WORKLOADS_PNG = "workloads-speedup.png";
  private static final Color STRATA = new Color(40, 110, 180);
  private static final Color PAPER = new Color(200, 120, 40);

  private final PcmResult r;
  private final PcmScale s;

  PcmReport(PcmResult r, PcmScale s) {
    this.r = r;
    this.s = s;
  }

  /** A figure the Result holds as JSON null (not a number) as NaN, as it is printed. */
  private static double n(Double v) {
    return v == null ? Double.NaN : v;
  }

  /** Writes the report into {@code dir}; returns the files written. */
  List<File> write(File dir) throws IOException {
    if (!dir.isDirectory() && !dir.mkdirs()) {
      throw new IOException("cannot create report directory " + dir);
    }
    List<File> files = new ArrayList<>();
    File json = new File(dir, JSON);
    BenchJson.write(json, r);
    files.add(json);
    List<String> plots = new ArrayList<>();
    if (!r.table3().isEmpty()) {
      List<String> cats = new ArrayList<>();
      List<PcmResult.Step> steps = r.table3();
      double[] here = new double[steps.size()];
      double[] paper = new double[steps.size()];
      for (int i = 0; i < steps.size(); i++) {
        cats.add(steps.get(i).step() + " " + steps.get(i).config());
        here[i] = n(steps.get(i).speedup());
        paper[i] = steps.get(i).paperSpeedup();
      }
      File png = new File(dir, TABLE3_PNG);
      speedups("Table III: bulk-load speed-up over S.1 (default)", "speed-up over S.1", cats,
        here, "PCM paper", paper, png);
      files.add(png);
      plots.add(TABLE3_PNG);
    }
    if (!r.workloads().isEmpty()) {
      List<String> cats = new ArrayList<>();
      List<Double> here = new ArrayList<>();
      List<Double> paper = new ArrayList<>();
      for (Map.Entry<String, PcmResult.Workload> e : r.workloads().entrySet()) {
        List<Double> p = e.getValue().paperSpeedups();
        int i = 0;
        for (PcmResult.Dataset d : e.getValue().datasets()) {
          cats.add(String.format(Locale.ROOT, "%s %,d", e.getKey(), d.records()));
          here.add(n(d.speedup()));
          // The paper's smallest dataset against ours, then the next.
          paper.add(i < p.size() ? p.get(i) : Double.NaN);
          i++;
        }
      }
      File png = new File(dir, WORKLOADS_PNG);
      speedups("Fig. 5: PCM policy over the default, per workload", "speed-up over default",
        cats, array(here), "PCM paper (1M, 10M records)", array(paper), png);
      files.add(png);
      plots.add(WORKLOADS_PNG);
    }
    File md = new File(dir, MARKDOWN);
    Files.writeString(md.toPath(), markdown(plots), StandardCharsets.UTF_8);
    files.add(0, md);
    return files;
  }

  /** Measured speed-ups beside the paper's, a dashed line at 1x. */
  private static void speedups(String title, String axis, List<String> cats, double[] here,
    String paperName, double[] paper, File png) throws IOException {
    CategoryChart c = Charts.bars(title, axis, cats, List.of(
      new Charts.BarSeries("Strata (measured)", STRATA, here),
      new Charts.BarSeries(paperName, PAPER, paper)), false,
      v -> String.format(Locale.ROOT, "%.2fx", v));
    Charts.reference(c, 1.0, "1x");
    Charts.write(c, png);
  }

  private static double[] array(List<Double> l) {
    double[] a = new double[l.size()];
    for (int i = 0; i < a.length; i++) {
      a[i] = l.get(i);
    }
    return a;
  }

  String markdown(List<String> plots) {
    StringBuilder sb = new StringBuilder();
    sb.append("# strata bench pcm: the PCM paper's evaluation on Strata\n\n");
    sb.append(String.format(Locale.ROOT, "Scale `%s`: %d RegionServers and %d DataNodes in one "
      + "JVM of %d MiB heap; the paper's byte sizes (heap, memstore flush size, max file size) "
      + "divided by %d; bulk load of %,d records of 1 KB (10 fields of 100 bytes); datasets %s; "
      + "%d write and %d read client threads; %.0f s per measured workload. Run took %.0f s.%n%n",
      s.optionName(), PcmBench.REGION_SERVERS, PcmBench.REGION_SERVERS,
      r.scale().jvmHeapBytes() >> 20, s.sizeDivisor(), s.bulkRecords(), s.datasets(),
      s.writeThreads(), s.readThreads(), s.runSeconds(), r.seconds()));
    sb.append(baselines());
    sb.append("A RegionServer heap of H GB is emulated: the three RegionServers share this "
      + "JVM's heap, so each gets the memstore and block-cache bytes of an H GB heap (scaled) "
      + "as its global memstore and block cache fractions. Heap settings take an HBase restart "
      + "(a fresh cluster here); every other setting is applied online by PCM's executor "
      + "(modifyTable). No media emulation: all volumes are this machine's disk.\n\n");
    if (!r.table3().isEmpty()) {
      sb.append("## Table III: bulk load step by step\n\n");
      sb.append("Speed-up over S.1 (the stock baseline) of the same run, median of the runs, "
        + "spread the least and greatest run; beside it, the median speed-up over S.1 on the "
        + "increasing-to-upper-bound baseline.\n\n");
      sb.append("| step | configuration | ops/s | speed-up | spread | runs | vs "
        + "increasing-to-upper-bound | paper | regions at end |\n");
      sb.append("|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
      for (PcmResult.Step st : r.table3()) {
        sb.append(String.format(Locale.ROOT, "| %s | %s | %,.0f | %.2fx | %s | %d | %.2fx | "
          + "%.1fx | %d |%n", st.step(), st.config(), st.opsPerS(), n(st.speedup()),
          spread(st.spread()), st.runs(), n(st.speedupVsIncreasing()), st.paperSpeedup(),
          st.regionsAtEnd()));
      }
      sb.append("\n");
    }
    if (!r.workloads().isEmpty()) {
      sb.append("## Per workload (Fig. 5): PCM policy vs default\n\n");
      sb.append("Default: HBase's settings (1 GB heap emulated), the table created with one "
        + "region. PCM: the class's policy from workload-policies (X from the paper's 8 GB "
        + "node), the table pre-split and loaded under PCM-BL, then the class's policy applied "
        + "online; read phases run after a major compaction on both sides.\n\n");
      sb.append("Default is the stock baseline; ops/s are medians of the runs, the speed-up the "
        + "median of the runs' (PCM over stock in the same run), spread their least and "
        + "greatest.\n\n");
      sb.append("| workload | records | default ops/s | PCM ops/s | speed-up | spread | runs "
        + "| increasing-to-upper-bound ops/s | vs increasing-to-upper-bound | paper |\n");
      sb.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
      for (Map.Entry<String, PcmResult.Workload> e : r.workloads().entrySet()) {
        StringBuilder ps = new StringBuilder();
        for (double v : e.getValue().paperSpeedups()) {
          ps.append(ps.length() == 0 ? "" : " / ").append(String.format(Locale.ROOT, "%.1fx", v));
        }
        for (PcmResult.Dataset d : e.getValue().datasets()) {
          sb.append(String.format(Locale.ROOT, "| %s | %,d | %,.0f | %,.0f | %.2fx | %s | %d | "
            + "%,.0f | %.2fx | %s |%n", e.getKey(), d.records(), n(d.defaultOpsPerS()),
            n(d.pcmOpsPerS()), n(d.speedup()), spread(d.spread()), d.runs(),
            n(d.increasingOpsPerS()), n(d.speedupVsIncreasing()),
            ps.length() == 0 ? "not given" : ps + " (1M/10M/100M)"));
        }
      }
      sb.append("\n");
    }
    if (r.distributions() != null) {
      sb.append("## Per key distribution (Fig. 6)\n\n");
      sb.append("RO-Read and RO-Scan with the records picked uniformly, by YCSB's scrambled "
        + "Zipfian, and by its skewed-latest after 10 % more records were inserted (the paper's "
        + "Latest test); a scan's start is picked that way, its length uniformly. Each side "
        + "loads its table as in the per-workload comparison; each read phase after a major "
        + "compaction.\n\n");
      sb.append("| workload | keys | records | default ops/s | PCM ops/s | speed-up | spread | runs "
        + "| increasing-to-upper-bound ops/s | vs increasing-to-upper-bound | paper |\n");
      sb.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
      for (Map.Entry<String, Map<String, PcmResult.Dataset>> e : r.distributions().entrySet()) {
        for (Map.Entry<String, PcmResult.Dataset> k : e.getValue().entrySet()) {
          PcmResult.Dataset d = k.getValue();
          Double paper = PcmResults.PAPER_FIG6.getOrDefault(e.getKey() + "/" + k.getKey(), null);
          sb.append(String.format(Locale.ROOT, "| %s | %s | %,d | %,.0f | %,.0f | %.2fx | %s | %d "
            + "| %,.0f | %.2fx | %s |%n", e.getKey(), k.getKey(), d.records(),
            n(d.defaultOpsPerS()), n(d.pcmOpsPerS()), n(d.speedup()), spread(d.spread()),
            d.runs(), n(d.increasingOpsPerS()), n(d.speedupVsIncreasing()),
            paper == null ? "not given" : String.format(Locale.ROOT, "%.1fx", paper)));
        }
      }
      sb.append("\n");
    }
    if (r.adaptation() != null) {
      sb.append("## Adaptation: bulk load, then read-mostly (YCSB B)\n\n");
      sb.append("| phase | expected | classified | policy applied after | ops/s |\n");
      sb.append("|---|---|---|---:|---:|\n");
      for (PcmResult.PhaseRow p : r.adaptation().phases()) {
        sb.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %,.0f |%n", p.phase(),
          p.expected(), p.classified() == null ? "none" : p.classified(),
          p.switchS() == null ? "no switch" : String.format(Locale.ROOT, "%.1f s",
            p.switchS()), p.opsPerS()));
      }
      PcmResult.SecondPhase second = r.adaptation().secondPhase();
      double pcm = n(second.pcmOpsPerS());
      double dflt = n(second.defaultOpsPerS());
      double kept = n(second.firstPolicyKeptOpsPerS());
      PcmResult.Adaptation a = r.adaptation();
      sb.append(String.format(Locale.ROOT, "%nSecond phase (medians of %s run(s); phases above: "
        + "the first run): PCM %,.0f ops/s; stock baseline %,.0f (%.2fx; median of the runs' "
        + "speed-ups %.2fx, spread %s); increasing-to-upper-bound baseline %,.0f (%.2fx); first "
        + "phase's policy left in place %,.0f (%.2fx). RegionServer restarts during the "
        + "adaptation: %s.%n%n", a.runs() == null ? "?" : a.runs().toString(), pcm, dflt,
        pcm / dflt, n(a.speedup()), spread(a.spread()), n(second.increasingOpsPerS()),
        n(a.speedupVsIncreasing()), kept, pcm / kept,
        a.restarts() == null ? "not observed" : a.restarts().toString()));
      PcmResult.HeapTuner t = a.heapTuner();
      if (t != null) {
        sb.append(String.format(Locale.ROOT, "Heap shares under PcmHeapTuner in the second phase "
          + "(of the emulated heap, read from the RegionServers serving PCM's table; medians of "
          + "the runs): memstore %.2f -> %.2f, block cache %.2f -> %.2f; %d step(s) seen.%n%n",
          n(t.memstoreBefore()), n(t.memstoreAfter()), n(t.blockCacheBefore()),
          n(t.blockCacheAfter()), t.steps()));
      }
    }
    if (r.classification() != null) {
      sb.append(String.format(Locale.ROOT, "## Classification: %d of %d correct%n%n",
        r.classification().correct(), r.classification().total()));
      sb.append("| mix | expected | got | reads | scan share | insert share | time |\n");
      sb.append("|---|---|---|---:|---:|---:|---:|\n");
      for (PcmResult.MixRow c : r.classification().mixes()) {
        sb.append(String.format(Locale.ROOT, "| %s | %s | %s%s | %.1f %% | %s | %s | %.1f s |%n",
          c.mix(), c.expected(), c.got() == null ? "none" : c.got(), c.correct() ? ""
            : " (wrong)", 100 * n(c.readFraction()), share(n(c.scanShare())),
          share(n(c.insertShare())), c.seconds()));
      }
      sb.append("\nReads are read operations (Gets and Scan calls, from HBase's per-table "
        + "request metrics, which also give the scan share), writes rows mutated (the "
        + "RegionServers' write request counts); the insert share is the share of Puts that "
        + "wrote a new row, from InsertSampler's sampled existence checks.\n\n");
    }
    for (String p : plots) {
      sb.append("![").append(p).append("](").append(p).append(")\n\n");
    }
    if (r.monitoring() != null) {
      sb.append(BenchMonitor.markdown(BenchJson.tree(r)));
    }
    if (r.failed() != null) {
      sb.append("## Failed parts\n\n");
      r.failed().forEach((k, v) -> sb.append("- ").append(k).append(": ").append(v).append('\n'));
    }
    return sb.toString();
  }

  /** The baselines, by name, with the split policies their tables ran under. */
  private String baselines() {
    if (r.baselines() == null) {
      return "";
    }
    StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "Every comparison ran %d "
      + "time(s), its sides' order rotated from run to run. Baselines:%n%n",
      r.runs() == null ? 1 : r.runs()));
    for (PcmResult.Baseline b : List.of(r.baselines().primary(), r.baselines().secondary())) {
      sb.append(String.format(Locale.ROOT, "- %s `%s`: split policy %s; the RegionServers "
        + "resolved %s%n", b == r.baselines().primary() ? "primary" : "secondary", b.name(),
        b.splitPolicySet() == null ? "not set (HBase's default)" : "`" + b.splitPolicySet()
          + "` set on the table", b.splitPolicyUsed().isEmpty() ? "none (no table of it ran)"
          : "`" + String.join("`, `", b.splitPolicyUsed()) + "`"));
    }
    return sb.append('\n').toString();
  }

  /** A spread as min-max, or "n/a" when no run had both sides. */
  private static String spread(PcmResult.Spread s) {
    return s == null || s.min() == null ? "n/a" : String.format(Locale.ROOT, "%.2f-%.2fx",
      s.min(), s.max());
  }

  /** The console summary. */
  static String summary(PcmResult r) {
    StringBuilder sb = new StringBuilder();
    if (r.runs() != null && r.baselines() != null) {
      sb.append(String.format(Locale.ROOT, "%d run(s); baselines %s (primary) and %s%n",
        r.runs(), r.baselines().primary().name(), r.baselines().secondary().name()));
    }
    if (!r.table3().isEmpty()) {
      sb.append(String.format(Locale.ROOT, "Table III (bulk load of %,d records):%n",
        r.scale().bulkRecords()));
      for (PcmResult.Step s : r.table3()) {
        sb.append(String.format(Locale.ROOT, "  %-4s %-22s %,10.0f ops/s  %5.2fx  [%s]  (paper "
          + "%.1fx)%n", s.step(), s.config(), s.opsPerS(), n(s.speedup()), spread(s.spread()),
          s.paperSpeedup()));
      }
    }
    r.workloads().forEach((name, w) -> {
      for (PcmResult.Dataset d : w.datasets()) {
        sb.append(String.format(Locale.ROOT, "  %-9s %,9d records: default %,8.0f, PCM %,8.0f "
          + "ops/s: %5.2fx [%s] (vs increasing-to-upper-bound %.2fx)%n", name, d.records(),
          n(d.defaultOpsPerS()), n(d.pcmOpsPerS()), n(d.speedup()), spread(d.spread()),
          n(d.speedupVsIncreasing())));
      }
    });
    if (r.classification() != null) {
      sb.append(String.format(Locale.ROOT, "Classification: %d of %d correct%n",
        r.classification().correct(), r.classification().total()));
    }
    if (r.adaptation() != null) {
      PcmResult.SecondPhase second = r.adaptation().secondPhase();
      sb.append(String.format(Locale.ROOT, "Adaptation: switch after %.1f s; second phase PCM "
        + "%,.0f, default %,.0f, first policy kept %,.0f ops/s; speed-up %.2fx [%s], restarts "
        + "%s%n", n(r.adaptation().switchS()), n(second.pcmOpsPerS()), n(second.defaultOpsPerS()),
        n(second.firstPolicyKeptOpsPerS()), n(r.adaptation().speedup()),
        spread(r.adaptation().spread()), r.adaptation().restarts() == null ? "not observed"
          : r.adaptation().restarts().toString()));
    }
    if (r.failed() != null) {
      r.failed().forEach((k, v) -> sb.append("FAILED ").append(k).append(": ").append(v)
        .append('\n'));
    }
    return sb.toString();
  }

  private static String share(double v) {
    return Double.isNaN(v) ? "unknown" : String.format(Locale.ROOT, "%.2f", v);
  }
}
