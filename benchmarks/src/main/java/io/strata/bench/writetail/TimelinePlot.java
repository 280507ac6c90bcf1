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
 * GC pauses during its turns as vertical lines. The x axis is the policy's own writing time: its
 * turns put end to end (the policies' turns alternate, with settling in between), so a chart is
 * not mostly gaps; a flush that ran between turns is drawn at the start of the next one.
 * Stateless.
 */
final class TimelinePlot {
  private static final Color FLUSH = new Color(80, 140, 220, 110);
  private static final Color GC = new Color(200, 40, 40, 110);

  private TimelinePlot() {
  }

  /**
   * One policy's chart: its buckets, turns and flushes ({@code [start, end]} s of the run) and
   * GC pauses (s of the run).
   */
  record Panel(String label, List<Timeline.Bucket> buckets, List<double[]> turns,
    List<double[]> flushes, List<Double> gcPauses) {
    /** Seconds of the run to seconds of this policy's writing (its turns end to end). */
    double writingTime(double t) {
      double before = 0;
      for (double[] turn : turns) {
        if (t < turn[0]) {
          return before;
        }
        if (t <= turn[1]) {
          return before + t - turn[0];
        }
        before += turn[1] - turn[0];
      }
      return before;
    }
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
      p.gcPauses().size()), "seconds of the policy's writing (its turns end to end; Puts by "
        + "second sent)", "ms").bandColor(FLUSH);
    chart.series(series("p50", new Color(90, 170, 90), p, Timeline.Bucket::p50Ms));
    chart.series(series("p99", new Color(40, 100, 190), p, Timeline.Bucket::p99Ms));
    chart.series(series("p99.9", new Color(200, 120, 30), p, Timeline.Bucket::p999Ms));
    chart.series(series("max", new Color(110, 110, 110), p, Timeline.Bucket::maxMs));
    for (double[] f : p.flushes()) {
      chart.band(p.writingTime(f[0]), p.writingTime(f[1]), "");
    }
    for (double t : p.gcPauses()) {
      chart.marker(new LineChart.Marker(p.writingTime(t), "GC pause", GC));
    }
    return chart;
  }

  /** One percentile over the buckets, each at its middle in the policy's writing time. */
  private static LineChart.Series series(String name, Color color, Panel p,
    ToDoubleFunction<Timeline.Bucket> value) {
    List<double[]> points = new ArrayList<>();
    for (Timeline.Bucket b : p.buckets()) {
      points.add(new double[] { p.writingTime(b.second() + 0.5), value.applyAsDouble(b) });
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
