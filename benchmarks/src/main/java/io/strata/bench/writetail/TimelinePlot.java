package io.strata.bench.writetail;

import io.strata.bench.media.LineChart;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;
import javax.imageio.ImageIO;

/**
 * The write-tail bench's latency over time as one PNG: a chart per policy, stacked, with the
 * p50, p99, p99.9 and max of each second of its turns, its tables' flushes shaded and the JVM's
 * GC pauses during its turns as vertical lines, on the run's clock (the policies' turns
 * alternate, so each chart has gaps where the others wrote). Stateless.
 */
final class TimelinePlot {
  private static final Color FLUSH = new Color(120, 170, 230, 90);
  private static final Color GC = new Color(200, 40, 40);

  private TimelinePlot() {
  }

  /** One policy's chart: its buckets, flushes ({@code [start, end]} s) and GC pauses (s). */
  record Panel(String label, List<Timeline.Bucket> buckets, List<double[]> flushes,
    List<Double> gcPauses) {
  }

  static void write(List<Panel> panels, File png) throws IOException {
    if (png.getAbsoluteFile().getParentFile() != null) {
      Files.createDirectories(png.getAbsoluteFile().getParentFile().toPath());
    }
    List<BufferedImage> images = new ArrayList<>();
    for (Panel p : panels) {
      images.add(chart(p).render());
    }
    int width = images.stream().mapToInt(BufferedImage::getWidth).max().orElse(1);
    int height = images.stream().mapToInt(BufferedImage::getHeight).sum();
    BufferedImage all = new BufferedImage(width, Math.max(1, height), BufferedImage.TYPE_INT_RGB);
    Graphics2D g = all.createGraphics();
    try {
      int y = 0;
      for (BufferedImage i : images) {
        g.drawImage(i, 0, y, null);
        y += i.getHeight();
      }
    } finally {
      g.dispose();
    }
    if (!ImageIO.write(all, "png", png)) {
      throw new IOException("No PNG writer for " + png);
    }
  }

  private static LineChart chart(Panel p) {
    LineChart chart = new LineChart(String.format(Locale.ROOT, "%s: Put latency per second "
      + "(shaded: flushes, %d; red lines: GC pauses, %d)", p.label(), p.flushes().size(),
      p.gcPauses().size()), "seconds of the run (sent)", "ms").bandColor(FLUSH);
    chart.series(series("p50", new Color(90, 170, 90), p, Timeline.Bucket::p50Ms));
    chart.series(series("p99", new Color(40, 100, 190), p, Timeline.Bucket::p99Ms));
    chart.series(series("p99.9", new Color(200, 120, 30), p, Timeline.Bucket::p999Ms));
    chart.series(series("max", new Color(110, 110, 110), p, Timeline.Bucket::maxMs));
    for (double[] f : p.flushes()) {
      chart.band(f[0], f[1], "");
    }
    for (double t : p.gcPauses()) {
      chart.marker(new LineChart.Marker(t, "GC pause", GC));
    }
    return chart;
  }

  /** One percentile over the buckets, broken (NaN) where a second has no Put of this policy. */
  private static LineChart.Series series(String name, Color color, Panel p,
    ToDoubleFunction<Timeline.Bucket> value) {
    List<double[]> points = new ArrayList<>();
    long previous = Long.MIN_VALUE;
    for (Timeline.Bucket b : p.buckets()) {
      if (previous != Long.MIN_VALUE && b.second() > previous + 1) {
        points.add(new double[] { previous + 1, Double.NaN });
      }
      points.add(new double[] { b.second(), value.applyAsDouble(b) });
      previous = b.second();
    }
    double[] x = new double[points.size()];
    double[] y = new double[points.size()];
    for (int i = 0; i < x.length; i++) {
      x[i] = points.get(i)[0];
      y[i] = points.get(i)[1];
    }
    return new LineChart.Series(name, color, x, y);
  }
}
