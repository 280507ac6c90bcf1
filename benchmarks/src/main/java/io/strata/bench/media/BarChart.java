package io.strata.bench.media;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.File;
import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.function.DoubleFunction;

/**
 * Horizontal bar charts as PNG files, drawn with headless {@code java.awt}: one row per category
 * (the long case names read as they are), bars either side by side per series or stacked. Used by
 * the media and PCM benchmarks. Not thread-safe: one chart per thread.
 */
public final class BarChart {
  /** One series of values, one per category; {@code NaN} draws no bar. */
  public record Series(String name, Color color, double[] values) {
  }

  private static final int WIDTH = 1100;
  private static final int LABEL_WIDTH = 190;
  private static final int RIGHT = 110;
  private static final int TOP = 56;
  private static final int BAR = 15;
  private static final int GAP = 12;
  private static final Font TITLE = new Font(Font.SANS_SERIF, Font.BOLD, 17);
  private static final Font TEXT = new Font(Font.SANS_SERIF, Font.PLAIN, 12);

  private final String title;
  private final String axis;
  private final List<String> categories;
  private final List<Series> series;
  private final boolean stacked;
  private final DoubleFunction<String> valueLabel;
  private double reference = Double.NaN;
  private String referenceLabel;

  private BarChart(String title, String axis, List<String> categories, List<Series> series,
    boolean stacked, DoubleFunction<String> valueLabel) {
    for (Series s : series) {
      if (s.values().length != categories.size()) {
        throw new IllegalArgumentException("series " + s.name() + " has " + s.values().length
          + " values for " + categories.size() + " categories");
      }
    }
    this.title = title;
    this.axis = axis;
    this.categories = categories;
    this.series = series;
    this.stacked = stacked;
    this.valueLabel = valueLabel;
  }

  /** Bars of each series side by side, each labelled with {@code valueLabel}. */
  public static BarChart grouped(String title, String axis, List<String> categories,
    List<Series> series, DoubleFunction<String> valueLabel) {
    return new BarChart(title, axis, categories, series, false, valueLabel);
  }

  /** The series stacked in one bar per category, labelled with the total. */
  public static BarChart stacked(String title, String axis, List<String> categories,
    List<Series> series, DoubleFunction<String> totalLabel) {
    return new BarChart(title, axis, categories, series, true, totalLabel);
  }

  /** A dashed vertical line at {@code value}, e.g. 100 % of the baseline. */
  public BarChart reference(double value, String label) {
    this.reference = value;
    this.referenceLabel = label;
    return this;
  }

  public void write(File png) throws IOException {
    int perRow = stacked ? BAR : BAR * series.size();
    int rowHeight = perRow + GAP;
    int legendHeight = 34 + 18 * (legendRows() - 1);
    int height = TOP + categories.size() * rowHeight + 40 + legendHeight;
    BufferedImage img = new BufferedImage(WIDTH, height, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = Canvas.white(img);
    try {
      g.setColor(Color.BLACK);
      g.setFont(TITLE);
      g.drawString(title, 16, 28);
      g.setFont(TEXT);
      FontMetrics fm = g.getFontMetrics();

      double max = max();
      double step = niceStep(max / 5);
      double top = Math.max(step, Math.ceil(max / step) * step);
      int x0 = LABEL_WIDTH;
      int plotWidth = WIDTH - LABEL_WIDTH - RIGHT;
      int plotBottom = TOP + categories.size() * rowHeight;

      // Grid and axis ticks.
      for (double v = 0; v <= top + step / 2; v += step) {
        int x = x0 + (int) Math.round(v / top * plotWidth);
        g.setColor(new Color(225, 225, 225));
        g.drawLine(x, TOP - 4, x, plotBottom);
        g.setColor(Color.DARK_GRAY);
        String tick = tick(v, step);
        g.drawString(tick, x - fm.stringWidth(tick) / 2, plotBottom + 16);
      }
      g.drawString(axis, x0 + plotWidth / 2 - fm.stringWidth(axis) / 2, plotBottom + 32);

      for (int c = 0; c < categories.size(); c++) {
        int y = TOP + c * rowHeight;
        g.setColor(Color.BLACK);
        String name = categories.get(c);
        g.drawString(name, x0 - 8 - fm.stringWidth(name), y + perRow / 2 + fm.getAscent() / 2 - 1);
        if (stacked) {
          double sum = 0;
          for (Series s : series) {
            double v = s.values()[c];
            if (Double.isNaN(v) || v <= 0) {
              continue;
            }
            int xa = x0 + (int) Math.round(sum / top * plotWidth);
            sum += v;
            int xb = x0 + (int) Math.round(sum / top * plotWidth);
            g.setColor(s.color());
            g.fillRect(xa, y, Math.max(1, xb - xa), BAR);
          }
          label(g, fm, valueLabel.apply(sum), x0 + (int) Math.round(sum / top * plotWidth), y);
        } else {
          for (int i = 0; i < series.size(); i++) {
            double v = series.get(i).values()[c];
            int yb = y + i * BAR;
            if (Double.isNaN(v)) {
              g.setColor(Color.GRAY);
              g.drawString("n/a", x0 + 4, yb + BAR - 3);
              continue;
            }
            int w = (int) Math.round(v / top * plotWidth);
            g.setColor(series.get(i).color());
            g.fillRect(x0, yb + 1, Math.max(1, w), BAR - 2);
            label(g, fm, valueLabel.apply(v), x0 + w, yb);
          }
        }
      }
      g.setColor(Color.BLACK);
      g.drawLine(x0, TOP - 4, x0, plotBottom);

      if (!Double.isNaN(reference) && reference <= top) {
        int x = x0 + (int) Math.round(reference / top * plotWidth);
        g.setColor(new Color(200, 30, 30));
        g.setStroke(new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10,
          new float[] { 6, 4 }, 0));
        g.drawLine(x, TOP - 8, x, plotBottom);
        g.drawString(referenceLabel, x + 4, TOP - 10);
        g.setStroke(new BasicStroke());
      }

      // Legend.
      int lx = x0;
      int ly = plotBottom + 44;
      for (Series s : series) {
        int w = legendWidth(fm, s);
        if (lx > x0 && lx + w > WIDTH - 8) {
          // The rest on the next row: a wide legend is wrapped, not cut off at the image's edge.
          lx = x0;
          ly += 18;
        }
        g.setColor(s.color());
        g.fillRect(lx, ly, 14, 12);
        g.setColor(Color.BLACK);
        g.drawString(s.name(), lx + 20, ly + 11);
        lx += w;
      }
    } finally {
      g.dispose();
    }
    Canvas.write(img, png);
  }

  private static int legendWidth(FontMetrics fm, Series s) {
    return 20 + fm.stringWidth(s.name()) + 24;
  }

  /** Rows the legend takes, measured with the text font as drawn. */
  private int legendRows() {
    BufferedImage scratch = new BufferedImage(1, 1, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = scratch.createGraphics();
    try {
      g.setFont(TEXT);
      FontMetrics fm = g.getFontMetrics();
      int rows = 1;
      int lx = LABEL_WIDTH;
      for (Series s : series) {
        int w = legendWidth(fm, s);
        if (lx > LABEL_WIDTH && lx + w > WIDTH - 8) {
          rows++;
          lx = LABEL_WIDTH;
        }
        lx += w;
      }
      return rows;
    } finally {
      g.dispose();
    }
  }

  private double max() {
    double max = 0;
    for (int c = 0; c < categories.size(); c++) {
      double sum = 0;
      for (Series s : series) {
        double v = s.values()[c];
        if (!Double.isNaN(v)) {
          sum = stacked ? sum + Math.max(0, v) : Math.max(sum, v);
        }
      }
      max = Math.max(max, sum);
    }
    if (!Double.isNaN(reference)) {
      max = Math.max(max, reference);
    }
    return max > 0 ? max : 1;
  }

  private static void label(Graphics2D g, FontMetrics fm, String text, int x, int y) {
    g.setColor(Color.DARK_GRAY);
    g.drawString(text, x + 4, y + BAR - 3);
  }

  /** 1, 2 or 5 times a power of ten, at least {@code raw}. */
  static double niceStep(double raw) {
    if (raw <= 0 || Double.isNaN(raw)) {
      return 1;
    }
    double p = Math.pow(10, Math.floor(Math.log10(raw)));
    for (double m : new double[] { 1, 2, 5, 10 }) {
      if (m * p >= raw) {
        return m * p;
      }
    }
    return 10 * p;
  }

  private static String tick(double v, double step) {
    if (step >= 1) {
      return String.format(Locale.ROOT, "%,.0f", v);
    }
    return String.format(Locale.ROOT, "%.2f", v);
  }
}
