package io.strata.bench.ycsb;

import io.strata.bench.media.LineChart;
import java.awt.Color;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

/**
 * Server-side filtering as YCSB++ plots it (its Figures 14 and 16): per filter, time against
 * scan length, server-side filter against the client-side predicate, one chart per selectivity.
 * Both axes are log10 — rows scanned (0 = 1 row, 3 = 1,000) and the median scan's time in
 * tenths of a millisecond (1 = 1 ms, 3 = 100 ms; the chart's y axis starts at 0, and a scan takes
 * more than 0.1 ms) — so that scans of 1 and of 1,000 rows share the chart's linear scale.
 * Stateless.
 */
final class FilterPlot {
  private static final Color[] COLORS = { new Color(40, 100, 190), new Color(200, 90, 40),
    new Color(90, 170, 90), new Color(170, 110, 190) };

  private static final String[] SHORT = { "key", "qualifier", "value", "row by col" };

  private FilterPlot() {
  }

  /** {@code filters-<k>pct.png} in {@code dir} for each selectivity k; the files written. */
  static List<File> write(FilterComparison.Result r, File dir) throws IOException {
    Files.createDirectories(dir.toPath());
    List<File> files = new ArrayList<>();
    for (int k : r.settings().selectivities()) {
      LineChart chart = new LineChart("Scans with YCSB++'s filters at " + k + " % selectivity: "
        + "server-side filter (light) vs client-side predicate (dark)",
        "scan length, log10 rows (0 = 1 row, 3 = 1,000 rows)",
        "time per scan, log10 of 0.1 ms (1 = 1 ms, 2 = 10 ms, 3 = 100 ms)");
      int i = 0;
      for (FilterComparison.Kind kind : FilterComparison.Kind.values()) {
        List<FilterComparison.Cell> cells = r.cells().stream()
          .filter(c -> c.filter() == kind && c.selectivity() == k)
          .sorted((a, b) -> Integer.compare(a.scanRows(), b.scanRows())).toList();
        double[] x = new double[cells.size()];
        double[] server = new double[cells.size()];
        double[] client = new double[cells.size()];
        for (int j = 0; j < x.length; j++) {
          FilterComparison.Cell c = cells.get(j);
          x[j] = Math.log10(c.scanRows());
          server[j] = Math.max(0, Math.log10(c.server().msPerScan() * 10));
          client[j] = Math.max(0, Math.log10(c.client().msPerScan() * 10));
        }
        Color color = COLORS[i++ % COLORS.length];
        // short names: eight series share the legend's one line
        String name = SHORT[kind.ordinal()];
        chart.series(new LineChart.Series(name + " server", color.brighter(), x, server));
        chart.series(new LineChart.Series(name + " client", color.darker(), x, client));
      }
      File png = new File(dir, "filters-" + k + "pct.png");
      chart.write(png);
      files.add(png);
    }
    return files;
  }
}
