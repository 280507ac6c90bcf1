package io.strata.bench.media;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Line charts as PNG files, drawn with headless {@code java.awt}: one or more series of y over x
 * (seconds of a run, a value size, a thread count), shaded bands with a label over the ranges
 * of x where something happened (a fault and its repair, a flush), vertical markers at single
 * instants (a GC pause) and labelled boundaries (a phase's start); several charts can share one
 * x axis stacked in one PNG. The companion of {@link BarChart}. Not thread-safe: one chart per
 * thread.
 */
public final class LineChart {
  /** One series: y at each x ({@code NaN} leaves a gap). */
  public record Series(String name, Color color, double[] x, double[] y) {
    public Series {
      if (x.length != y.length) {
        throw new IllegalArgumentException("series " + name + ": " + x.length + " x for "
          + y.length + " y");
      }
    }
  }

  /** A shaded range of x, labelled at its top. */
  public record Band(double from, double to, String label) {
  }

  /** A vertical line at x across the plot; its name goes in the legend once per name. */
  public record Marker(double x, String name, Color color) {
  }

  /**
   * A dashed vertical line at x (a phase boundary), labelled at its top in label row {@code row}
   * (0 or 1), or, when {@code row} is negative, in the rows alternately.
   */
  public record Boundary(double x, String label, int row) {
  }

  private static final int WIDTH = 1100;
  private static final int HEIGHT = 480;
  private static final int LEFT = 80;
  private static final int RIGHT = 30;
  private static final int TOP = 70;
  private static final int BOTTOM = 60;
  private static final Font TITLE = new Font(Font.SANS_SERIF, Font.BOLD, 17);
  private static final Font TEXT = new Font(Font.SANS_SERIF, Font.PLAIN, 12);
  private static final Color BAND = new Color(250, 210, 160, 120);

  private final String title;
  private final String xAxis;
  private final String yAxis;
  private final List<Series> series = new ArrayList<>();
  private final List<Band> bands = new ArrayList<>();
  private final List<Marker> markers = new ArrayList<>();
  private final List<Boundary> boundaries = new ArrayList<>();
  private Color bandColor = BAND;
  /** x range fixed by {@link #xRange}, so that stacked charts share one axis; else the data's. */
  private double fixedMinX = Double.NaN;
  private double fixedMaxX = Double.NaN;

  public LineChart(String title, String xAxis, String yAxis) {
    this.title = title;
    this.xAxis = xAxis;
    this.yAxis = yAxis;
  }

  public LineChart series(Series s) {
    series.add(s);
    return this;
  }

  public LineChart band(double from, double to, String label) {
    bands.add(new Band(from, to, label));
    return this;
  }

  public LineChart marker(Marker m) {
    markers.add(m);
    return this;
  }

  public LineChart boundary(double x, String label) {
    boundaries.add(new Boundary(x, label, -1));
    return this;
  }

  /** A boundary whose label goes in row 0 (the lower) or 1. */
  public LineChart boundary(double x, String label, int row) {
    boundaries.add(new Boundary(x, label, row));
    return this;
  }

  /** The fill of the bands (default a light orange). */
  public LineChart bandColor(Color c) {
    bandColor = c;
    return this;
  }

  public LineChart xRange(double min, double max) {
    fixedMinX = min;
    fixedMaxX = max;
    return this;
  }

  public void write(File png) throws IOException {
    Canvas.write(render(), png);
  }

  /** The chart as an image, for a caller that puts several charts into one file. */
  public BufferedImage render() {
    BufferedImage img = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = Canvas.white(img);
    try {
      draw(g, HEIGHT);
    } finally {
      g.dispose();
    }
    return img;
  }

  /** Charts one above another, each {@code panelHeight} pixels high, in one PNG. */
  public static void writeStacked(List<LineChart> charts, int panelHeight, File png)
    throws IOException {
    BufferedImage img = new BufferedImage(WIDTH, panelHeight * charts.size(),
      BufferedImage.TYPE_INT_RGB);
    Graphics2D g = Canvas.white(img);
    try {
      for (int i = 0; i < charts.size(); i++) {
        Graphics2D panel = (Graphics2D) g.create(0, i * panelHeight, WIDTH, panelHeight);
        try {
          charts.get(i).draw(panel, panelHeight);
        } finally {
          panel.dispose();
        }
      }
    } finally {
      g.dispose();
    }
    Canvas.write(img, png);
  }

  private void draw(Graphics2D g, int height) {
    double minX = Double.POSITIVE_INFINITY;
    double maxX = Double.NEGATIVE_INFINITY;
    double maxY = 0;
    for (Series s : series) {
      for (int i = 0; i < s.x().length; i++) {
        if (!Double.isNaN(s.y()[i])) {
          minX = Math.min(minX, s.x()[i]);
          maxX = Math.max(maxX, s.x()[i]);
          maxY = Math.max(maxY, s.y()[i]);
        }
      }
    }
    if (!Double.isNaN(fixedMinX)) {
      minX = fixedMinX;
      maxX = fixedMaxX;
    }
    if (minX > maxX) {
      minX = 0;
      maxX = 1;
    }
    if (maxX == minX) {
      maxX = minX + 1;
    }
    maxY = maxY <= 0 ? 1 : niceCeiling(maxY);
    {
      int plotW = WIDTH - LEFT - RIGHT;
      int plotH = height - TOP - BOTTOM;
      double x0 = minX;
      double xSpan = maxX - minX;
      double yMax = maxY;
      java.util.function.DoubleUnaryOperator px = v -> LEFT + (v - x0) / xSpan * plotW;
      java.util.function.DoubleUnaryOperator py = v -> TOP + plotH - v / yMax * plotH;

      g.setFont(TEXT);
      FontMetrics fm = g.getFontMetrics();
      for (Band b : bands) {
        if (b.to() < minX || b.from() > maxX) {
          continue;
        }
        int a = (int) px.applyAsDouble(Math.max(minX, b.from()));
        int e = (int) Math.max(a + 2, px.applyAsDouble(Math.min(maxX, b.to())));
        g.setColor(bandColor);
        g.fillRect(a, TOP, e - a, plotH);
        if (!b.label().isEmpty()) {
          g.setColor(new Color(150, 80, 0));
          g.drawString(b.label(), a + 2, TOP - 4 - (bands.indexOf(b) % 2) * 13);
        }
      }
      for (Marker m : markers) {
        if (m.x() < minX || m.x() > maxX) {
          continue;
        }
        int x = (int) px.applyAsDouble(m.x());
        g.setColor(m.color());
        g.drawLine(x, TOP, x, TOP + plotH);
      }
      for (int i = 0; i < boundaries.size(); i++) {
        Boundary m = boundaries.get(i);
        if (m.x() < minX || m.x() > maxX) {
          continue;
        }
        int x = (int) px.applyAsDouble(m.x());
        g.setColor(new Color(120, 120, 120));
        g.setStroke(new BasicStroke(1f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f,
          new float[] { 4f, 4f }, 0f));
        g.drawLine(x, TOP, x, TOP + plotH);
        g.setStroke(new BasicStroke(1f));
        g.setColor(new Color(60, 60, 60));
        // Alternate two rows so that the labels of close boundaries do not overprint.
        g.drawString(m.label(), x + 2, TOP - 4 - (m.row() < 0 ? i % 2 : m.row()) * 13);
      }
      g.setColor(new Color(225, 225, 225));
      for (int i = 0; i <= 4; i++) {
        int y = (int) py.applyAsDouble(yMax * i / 4);
        g.drawLine(LEFT, y, LEFT + plotW, y);
        g.setColor(Color.DARK_GRAY);
        String label = format(yMax * i / 4);
        g.drawString(label, LEFT - 6 - fm.stringWidth(label), y + 4);
        g.setColor(new Color(225, 225, 225));
      }
      g.setColor(Color.DARK_GRAY);
      g.drawLine(LEFT, TOP + plotH, LEFT + plotW, TOP + plotH);
      g.drawLine(LEFT, TOP, LEFT, TOP + plotH);
      for (int i = 0; i <= 5; i++) {
        double v = minX + xSpan * i / 5;
        int x = (int) px.applyAsDouble(v);
        String label = format(v);
        g.drawString(label, x - fm.stringWidth(label) / 2, TOP + plotH + 16);
      }
      g.drawString(xAxis, LEFT + plotW / 2 - fm.stringWidth(xAxis) / 2, TOP + plotH + 36);
      g.drawString(yAxis, 8, TOP - 24);
      g.setStroke(new BasicStroke(1.6f));
      int legendX = LEFT;
      for (Series s : series) {
        g.setColor(s.color());
        int lastX = -1;
        int lastY = -1;
        for (int i = 0; i < s.x().length; i++) {
          if (Double.isNaN(s.y()[i])) {
            lastX = -1;
            continue;
          }
          int x = (int) px.applyAsDouble(s.x()[i]);
          int y = (int) py.applyAsDouble(s.y()[i]);
          if (lastX >= 0) {
            g.drawLine(lastX, lastY, x, y);
          } else if (s.x().length < 50) {
            g.fillOval(x - 2, y - 2, 5, 5);
          }
          lastX = x;
          lastY = y;
        }
        g.fillRect(legendX, height - 16, 14, 8);
        g.setColor(Color.DARK_GRAY);
        g.drawString(s.name(), legendX + 18, height - 8);
        legendX += 30 + fm.stringWidth(s.name());
      }
      List<String> named = new ArrayList<>();
      for (Marker m : markers) {
        if (m.name().isEmpty() || named.contains(m.name())) {
          continue;
        }
        named.add(m.name());
        g.setColor(m.color());
        g.fillRect(legendX + 6, height - 18, 2, 12);
        g.setColor(Color.DARK_GRAY);
        g.drawString(m.name(), legendX + 12, height - 8);
        legendX += 24 + fm.stringWidth(m.name());
      }
      g.setFont(TITLE);
      g.setColor(Color.BLACK);
      g.drawString(title, LEFT, 24);
    }
  }

  private static double niceCeiling(double v) {
    double p = Math.pow(10, Math.floor(Math.log10(v)));
    for (double m : new double[] { 1, 2, 2.5, 5, 10 }) {
      if (m * p >= v) {
        return m * p;
      }
    }
    return 10 * p;
  }

  private static String format(double v) {
    return Math.abs(v - Math.rint(v)) < 1e-9 ? String.format(Locale.ROOT, "%.0f", v)
      : String.format(Locale.ROOT, "%.1f", v);
  }
}
