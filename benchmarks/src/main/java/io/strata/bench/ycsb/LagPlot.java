package io.strata.bench.ycsb;

import io.strata.bench.media.LineChart;
import java.awt.Color;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.Locale;
import java.util.StringJoiner;

/**
 * The read-after-write lag as YCSB++ plots it (its Figure 6): per client buffer size, the
 * cumulative distribution of the lag over only the keys that were not readable at their first
 * read. Stateless.
 */
final class LagPlot {
  private static final Color[] COLORS = { new Color(40, 100, 190), new Color(200, 90, 40),
    new Color(90, 170, 90), new Color(170, 110, 190), new Color(120, 90, 60) };

  private LagPlot() {
  }

  static void write(List<ReadAfterWriteLag.Result> results, File png) throws IOException {
    Files.createDirectories(png.toPath().getParent());
    LineChart chart = new LineChart("Read-after-write lag of the keys that needed a retry (CDF)",
      "lag (ms)", "fraction of those keys");
    int i = 0;
    for (ReadAfterWriteLag.Result r : results) {
      List<double[]> cdf = r.retriedCdf();
      double[] x = new double[cdf.size()];
      double[] y = new double[cdf.size()];
      for (int k = 0; k < x.length; k++) {
        x[k] = cdf.get(k)[0];
        y[k] = cdf.get(k)[1];
      }
      chart.series(new LineChart.Series(label(r) + String.format(Locale.ROOT, " (%.1f %% of keys)",
        100 * r.retriedShare()), COLORS[i++ % COLORS.length], x, y));
    }
    chart.write(png);
  }

  /** "unbuffered 0.4 %, 1024 KiB 93.1 %": the share of keys that needed a retry per buffer. */
  static String shares(List<ReadAfterWriteLag.Result> results) {
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
}
