package io.strata.bench.common;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.DoubleFunction;
import org.knowm.xchart.AnnotationLine;
import org.knowm.xchart.AnnotationText;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.BitmapEncoder.BitmapFormat;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The benchmarks' charts, drawn by XChart and saved as PNG files: line charts of y over x with
 * shaded bands (a fault and its repair, a flush), vertical markers (GC pauses) and labelled
 * dashed boundaries (a phase's start), several of them stackable in one PNG; and bar charts,
 * grouped or stacked, with a dashed reference value. Every chart is {@link #WIDTH} pixels wide.
 * Works headless. Not thread-safe per chart; the static methods hold no state.
 */
public final class Charts {
  public static final int WIDTH = 1100;
  public static final int HEIGHT = 480;
  private static final Color BAND = new Color(250, 210, 160, 120);
  private static final Color BOUNDARY = new Color(120, 120, 120);
  private static final Color REFERENCE = new Color(200, 30, 30);
  private static final BasicStroke DASHED = new BasicStroke(1f, BasicStroke.CAP_BUTT,
    BasicStroke.JOIN_MITER, 10f, new float[] { 4f, 4f }, 0f);

  private Charts() {
  }

  /** A line chart {@link #HEIGHT} pixels high, y from 0, its legend under the plot. */
  public static XYChart line(String title, String xAxis, String yAxis) {
    return line(title, xAxis, yAxis, HEIGHT);
  }

  /** A line chart of the height (a panel of a stacked PNG), y from 0. */
  public static XYChart line(String title, String xAxis, String yAxis, int height) {
    XYChart c = new XYChart(WIDTH, height);
    c.setTitle(title);
    c.setXAxisTitle(xAxis);
    c.setYAxisTitle(yAxis);
    style(c.getStyler());
    c.getStyler().setYAxisMin(0.0).setMarkerSize(5);
    return c;
  }

  /**
   * A series of y over x ({@code NaN} y leaves a gap); one with no figure to draw is left out,
   * as XChart refuses it. Points are marked on a short series only.
   */
  public static void series(XYChart c, String name, Color color, double[] x, double[] y) {
    if (x.length != y.length) {
      throw new IllegalArgumentException("series " + name + ": " + x.length + " x for "
        + y.length + " y");
    }
    if (Arrays.stream(y).allMatch(Double::isNaN)) {
      return;
    }
    XYSeries s = c.addSeries(name, x, y);
    s.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
    s.setLineColor(color);
    s.setMarkerColor(color);
    s.setLineWidth(1.6f);
    s.setMarker(x.length < 50 ? SeriesMarkers.CIRCLE : SeriesMarkers.NONE);
  }

  /** The top of the y axis: a round figure at or above every y drawn; fixed from here on. */
  private static double top(XYChart c) {
    Double fixed = c.getStyler().getYAxisMax();
    if (fixed != null) {
      return fixed;
    }
    double max = 0;
    for (XYSeries s : c.getSeriesMap().values()) {
      for (double v : s.getYData()) {
        max = Double.isNaN(v) ? max : Math.max(max, v);
      }
    }
    double top = max <= 0 ? 1 : niceCeiling(max);
    c.getStyler().setYAxisMax(top);
    return top;
  }

  /**
   * Shaded ranges of x ({@code [from, to]} each), one legend entry {@code name}, each with its
   * label at the top (in two alternating rows; none where the label is empty). Add them after
   * the series, whose largest y fixes the top of the axis.
   */
  public static void bands(XYChart c, String name, Color fill, List<double[]> ranges,
    List<String> labels) {
    if (ranges.isEmpty()) {
      return;
    }
    double top = top(c);
    // Each band a rectangle, a gap (NaN) between two.
    double[] x = new double[ranges.size() * 5];
    double[] y = new double[x.length];
    for (int i = 0; i < ranges.size(); i++) {
      double from = ranges.get(i)[0];
      double to = Math.max(from, ranges.get(i)[1]);
      System.arraycopy(new double[] { from, from, to, to, to }, 0, x, 5 * i, 5);
      System.arraycopy(new double[] { 0, top, top, 0, Double.NaN }, 0, y, 5 * i, 5);
      String label = i < labels.size() ? labels.get(i) : "";
      if (!label.isEmpty()) {
        c.addAnnotation(new AnnotationText(label, (from + to) / 2, top * (i % 2 == 0 ? 0.96 : 0.9),
          false));
      }
    }
    XYSeries s = c.addSeries(name, x, y);
    s.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Area);
    s.setFillColor(fill == null ? BAND : fill);
    s.setLineColor(fill == null ? BAND : fill);
    s.setMarker(SeriesMarkers.NONE);
    // Drawn first, under the lines: XChart draws the series in the order of its map.
    Map<String, XYSeries> others = new LinkedHashMap<>(c.getSeriesMap());
    others.remove(name);
    c.getSeriesMap().clear();
    c.getSeriesMap().put(name, s);
    c.getSeriesMap().putAll(others);
  }

  /** Vertical lines at each x across the plot, one legend entry {@code name}. After the series. */
  public static void markers(XYChart c, String name, Color color, List<Double> xs) {
    if (xs.isEmpty()) {
      return;
    }
    double top = top(c);
    double[] x = new double[xs.size() * 3];
    double[] y = new double[x.length];
    for (int i = 0; i < xs.size(); i++) {
      Arrays.fill(x, 3 * i, 3 * i + 3, xs.get(i));
      y[3 * i] = 0;
      y[3 * i + 1] = top;
      y[3 * i + 2] = Double.NaN;
    }
    XYSeries s = c.addSeries(name, x, y);
    s.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
    s.setLineColor(color);
    s.setLineWidth(1f);
    s.setMarker(SeriesMarkers.NONE);
  }

  /**
   * A dashed vertical line at x (a phase's start), labelled near the top in row 0 or 1 (a lower
   * one); no label where it is empty. After the series.
   */
  public static void boundary(XYChart c, double x, String label, int row) {
    double top = top(c);
    c.getStyler().setAnnotationLineColor(BOUNDARY).setAnnotationLineStroke(DASHED);
    c.addAnnotation(new AnnotationLine(x, true, false));
    if (!label.isEmpty()) {
      // XChart centres a text on its x: half the label's width (some 7 px a character over a
      // plot some 990 px wide) to the right, so that it starts at the line, as a reader expects.
      double shift = (label.length() / 2.0 + 1) * 7.0 / 990 * xSpan(c);
      c.addAnnotation(new AnnotationText(label, x + shift, top * (row == 0 ? 0.93 : 0.83),
        false));
    }
  }

  /** The x axis' span: as fixed by the styler, else the series'. */
  private static double xSpan(XYChart c) {
    Double min = c.getStyler().getXAxisMin();
    Double max = c.getStyler().getXAxisMax();
    if (min != null && max != null) {
      return max - min;
    }
    double lo = Double.POSITIVE_INFINITY;
    double hi = Double.NEGATIVE_INFINITY;
    for (XYSeries s : c.getSeriesMap().values()) {
      for (double v : s.getXData()) {
        lo = Math.min(lo, v);
        hi = Math.max(hi, v);
      }
    }
    return hi > lo ? hi - lo : 1;
  }

  /**
   * A bar chart, a bar per category and series side by side, each labelled with
   * {@code valueLabel}, as are the value axis' ticks; {@code stacked}: the series stacked in one
   * bar per category, its total after the category's name.
   */
  public static CategoryChart bars(String title, String axis, List<String> categories,
    List<BarSeries> series, boolean stacked, DoubleFunction<String> valueLabel) {
    for (BarSeries s : series) {
      if (s.values().length != categories.size()) {
        throw new IllegalArgumentException("series " + s.name() + " has " + s.values().length
          + " values for " + categories.size() + " categories");
      }
    }
    CategoryChart c = new CategoryChart(WIDTH, HEIGHT);
    c.setTitle(title);
    c.setYAxisTitle(axis);
    style(c.getStyler());
    c.getStyler().setStacked(stacked).setLabelsVisible(!stacked)
      .setLabelsFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10)).setLabelsRotation(90)
      .setXAxisLabelRotation(categories.size() > 4 ? 30 : 0).setYAxisMin(0.0)
      .setyAxisTickLabelsFormattingFunction(v -> valueLabel.apply(v));
    if (stacked) {
      List<String> named = new ArrayList<>();
      for (int i = 0; i < categories.size(); i++) {
        double total = 0;
        for (BarSeries s : series) {
          total += Double.isNaN(s.values()[i]) ? 0 : s.values()[i];
        }
        named.add(categories.get(i) + " (" + valueLabel.apply(total) + ")");
      }
      categories = named;
    }
    List<Color> colors = new ArrayList<>();
    for (BarSeries s : series) {
      List<Double> values = new ArrayList<>();
      for (double v : s.values()) {
        // XChart draws no bar for null: a figure this run does not have.
        values.add(Double.isNaN(v) ? null : v);
      }
      boolean none = values.stream().allMatch(v -> v == null);
      // XChart can draw no series without a figure (nor a chart without a series): zeros.
      c.addSeries(none ? s.name() + " (n/a)" : s.name(), categories,
        none ? values.stream().map(v -> 0.0).toList() : values);
      colors.add(s.color());
    }
    c.getStyler().setSeriesColors(colors.toArray(new Color[0]));
    return c;
  }

  /** One series of a bar chart: a value per category, {@code NaN} where it has none. */
  public record BarSeries(String name, Color color, double[] values) {
  }

  /** A dashed horizontal line at {@code value} (e.g. 100 % of the baseline), named in the axis. */
  public static void reference(CategoryChart c, double value, String label) {
    c.getStyler().setAnnotationLineColor(REFERENCE).setAnnotationLineStroke(DASHED);
    c.addAnnotation(new AnnotationLine(value, false, false));
    c.setYAxisTitle(c.getYAxisTitle() + " (dashed: " + label + ")");
  }

  /** Writes the chart to {@code png}, creating its directory. */
  public static void write(Chart<?, ?> chart, File png) throws IOException {
    legend(chart);
    try (OutputStream out = create(png)) {
      BitmapEncoder.saveBitmap(chart, out, BitmapFormat.PNG);
    }
  }

  /** The charts one above another in one PNG; they all have the same size. */
  public static void writeStacked(List<XYChart> charts, File png) throws IOException {
    charts.forEach(Charts::legend);
    try (OutputStream out = create(png)) {
      BitmapEncoder.saveBitmap(charts, charts.size(), 1, out, BitmapFormat.PNG);
    }
  }

  private static OutputStream create(File png) throws IOException {
    File dir = png.getAbsoluteFile().getParentFile();
    if (dir != null) {
      Files.createDirectories(dir.toPath());
    }
    return Files.newOutputStream(png.toPath());
  }

  /** A legend too long for one line under the plot (some 130 characters) goes to its right. */
  private static void legend(Chart<?, ?> chart) {
    int chars = chart.getSeriesMap().values().stream().mapToInt(s -> s.getName().length() + 6)
      .sum();
    if (chars > 130) {
      chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE)
        .setLegendLayout(Styler.LegendLayout.Vertical);
    }
  }

  private static void style(Styler s) {
    s.setChartBackgroundColor(Color.WHITE).setPlotBackgroundColor(Color.WHITE)
      .setLegendPosition(Styler.LegendPosition.OutsideS)
      .setLegendLayout(Styler.LegendLayout.Horizontal).setLegendBorderColor(Color.WHITE)
      .setChartTitleBoxVisible(false).setPlotBorderVisible(false)
      .setChartTitleFont(new Font(Font.SANS_SERIF, Font.BOLD, 15))
      .setAnnotationTextFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11))
      .setAnnotationTextFontColor(new Color(60, 60, 60)).setAntiAlias(true);
  }

  /** 1, 2, 2.5 or 5 times a power of ten, at least {@code v}. */
  static double niceCeiling(double v) {
    double p = Math.pow(10, Math.floor(Math.log10(v)));
    for (double m : new double[] { 1, 2, 2.5, 5, 10 }) {
      if (m * p >= v) {
        return m * p;
      }
    }
    return 10 * p;
  }
}
