package io.strata.bench.ycsb;

import io.strata.bench.common.Charts;
import java.awt.Color;
import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.StringJoiner;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.XYChart;

/**
 * The YCSB++ experiments' plots, drawn as the paper draws them: the read-after-write lag (its
 * Figure 6), server-side filtering (Figures 14 and 16) and the access-control cost (Figures 17
 * and 19). Stateless.
 */
final class YcsbPlots {
  static final String ACL_PNG = "acl-throughput.png";
  private static final Color[] COLORS = { new Color(40, 100, 190), new Color(200, 90, 40),
    new Color(90, 170, 90), new Color(170, 110, 190), new Color(120, 90, 60) };
  private static final String[] FILTER_SHORT = { "key", "qualifier", "value", "row by col" };

  private YcsbPlots() {
  }

  /**
   * Per client buffer size, the cumulative distribution of the read-after-write lag over only the
   * keys that were not readable at their first read.
   */
  static void lag(List<ReadAfterWriteLag.Result> results, File png) throws IOException {
    XYChart chart = Charts.line("Read-after-write lag of the keys that needed a retry (CDF)",
      "lag (ms)", "fraction of those keys");
    int i = 0;
    for (ReadAfterWriteLag.Result r : results) {
      List<double[]> cdf = r.retriedCdf();
      Charts.series(chart, label(r) + String.format(Locale.ROOT, " (%.1f %% of keys)",
        100 * r.retriedShare()), COLORS[i++ % COLORS.length],
        cdf.stream().mapToDouble(p -> p[0]).toArray(), cdf.stream().mapToDouble(p -> p[1])
          .toArray());
    }
    Charts.write(chart, png);
  }

  /** "unbuffered 0.4 %, 1024 KiB 93.1 %": the share of keys that needed a retry per buffer. */
  static String lagShares(List<ReadAfterWriteLag.Result> results) {
    StringJoiner j = new StringJoiner(", ");
    for (ReadAfterWriteLag.Result r : results) {
      j.add(String.format(Locale.ROOT, "%s %.1f %%", label(r), 100 * r.retriedShare()));
    }
    return j.toString();
  }

  private static String label(ReadAfterWriteLag.Result r) {
    long b = r.settings().bufferBytes();
    return b == 0 ? "unbuffered" : (b >> 10) + " KiB buffer";
  }

  /**
   * {@code filters-<k>pct.png} in {@code dir} for each selectivity k (the files written): per
   * filter, time against scan length, server-side filter against the client-side predicate.
   * Both axes are log10 — rows scanned (0 = 1 row, 3 = 1,000) and the median scan's time in
   * tenths of a millisecond (1 = 1 ms, 3 = 100 ms; the y axis starts at 0, and a scan takes more
   * than 0.1 ms) — so that scans of 1 and of 1,000 rows share one linear scale.
   */
  static List<File> filters(FilterComparison.Result r, File dir) throws IOException {
    List<File> files = new ArrayList<>();
    for (int k : r.settings().selectivities()) {
      XYChart chart = Charts.line("Scans with YCSB++'s filters at " + k + " % selectivity: "
        + "server-side filter (light) vs client-side predicate (dark)",
        "scan length, log10 rows (0 = 1 row, 3 = 1,000 rows)",
        "time per scan, log10 of 0.1 ms (1 = 1 ms, 2 = 10 ms, 3 = 100 ms)");
      for (FilterComparison.Kind kind : FilterComparison.Kind.values()) {
        List<FilterComparison.Cell> cells = r.cells().stream()
          .filter(c -> c.filter() == kind && c.selectivity() == k)
          .sorted((a, b) -> Integer.compare(a.scanRows(), b.scanRows())).toList();
        double[] x = cells.stream().mapToDouble(c -> Math.log10(c.scanRows())).toArray();
        Color color = COLORS[kind.ordinal() % COLORS.length];
        // short names: eight series share the legend's one line
        String name = FILTER_SHORT[kind.ordinal()];
        Charts.series(chart, name + " server", color.brighter(), x, cells.stream()
          .mapToDouble(c -> Math.max(0, Math.log10(c.server().msPerScan() * 10))).toArray());
        Charts.series(chart, name + " client", color.darker(), x, cells.stream()
          .mapToDouble(c -> Math.max(0, Math.log10(c.client().msPerScan() * 10))).toArray());
      }
      File png = new File(dir, "filters-" + k + "pct.png");
      Charts.write(chart, png);
      files.add(png);
    }
    return files;
  }

  /**
   * Per variant, insert and scan throughput relative to HBase without the
   * {@code AccessController}, beside the paper's ratios for cell-level ACLs (insert at 4 and 11
   * entries; scans 40-50 % lower at any count, drawn at the middle).
   */
  static void acl(AclComparison.Result r, File png) throws IOException {
    List<String> cats = new ArrayList<>();
    int n = r.variants().size();
    double[] insert = new double[n];
    double[] scan = new double[n];
    double[] paperInsert = new double[n];
    double[] paperScan = new double[n];
    for (int i = 0; i < n; i++) {
      AclComparison.Variant v = r.variants().get(i);
      cats.add(v.label());
      insert[i] = r.insertRatio(v);
      scan[i] = r.scanRatio(v);
      boolean cell = "cell".equals(v.level());
      boolean none = "none".equals(v.level());
      Double p = AclComparison.PAPER_INSERT_RATIO.get(v.entries());
      paperInsert[i] = none ? 1.0 : cell && p != null ? p : Double.NaN;
      paperScan[i] = none ? 1.0 : cell ? AclComparison.PAPER_SCAN_RATIO : Double.NaN;
    }
    CategoryChart c = Charts.bars("Access-control cost: throughput over no AccessController "
      + "(user " + AclComparison.USER + ", " + r.settings().threads() + " threads)",
      "throughput / no AccessController", cats, List.of(
        new Charts.BarSeries("insert ops/s (Strata)", COLORS[0], insert),
        new Charts.BarSeries("scan rows/s (Strata)", COLORS[2], scan),
        new Charts.BarSeries("insert (YCSB++, cell ACLs)", new Color(150, 180, 230), paperInsert),
        new Charts.BarSeries("scan (YCSB++, 0.5-0.6)", new Color(180, 220, 180), paperScan)),
      false, v -> String.format(Locale.ROOT, "%.2f", v));
    Charts.reference(c, 1.0, "1.0");
    Charts.write(c, png);
  }
}
