package io.strata.bench.common;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

import java.awt.Color;
import java.awt.image.BufferedImage;
import java.io.File;
import java.nio.file.Files;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.Test;
import org.knowm.xchart.XYChart;

/**
 * The charts are written as PNGs of the sizes the reports use, headless, also from the figures
 * a short or failed run leaves: no point, one point, all zeros, a series without any figure.
 */
public class ChartsTest {
  @Test
  public void lineChartsWithBandsMarkersAndBoundariesStackedInOnePng() throws Exception {
    File dir = Files.createTempDirectory("charts").toFile();
    XYChart a = Charts.line("a", "seconds", "ms", 260);
    Charts.series(a, "p99", Color.BLUE, new double[] { 0, 1, 2 }, new double[] { 1, Double.NaN, 3 });
    Charts.bands(a, "flush", null, List.of(new double[] { 0.5, 1 }, new double[] { 1.5, 2 }),
      List.of("one", ""));
    Charts.markers(a, "GC pause", Color.RED, List.of(1.2));
    Charts.boundary(a, 1, "phase", 1);
    XYChart b = Charts.line("b", "seconds", "ms", 260);
    Charts.series(b, "none yet", Color.BLUE, new double[0], new double[0]);
    Charts.series(b, "no figure", Color.BLUE, new double[] { 1 }, new double[] { Double.NaN });
    Charts.boundary(b, 1, "phase", 0);
    File png = new File(dir, "sub/stacked.png");
    Charts.writeStacked(List.of(a, b), png);
    BufferedImage img = ImageIO.read(png);
    assertEquals(Charts.WIDTH, img.getWidth());
    assertEquals(2 * 260, img.getHeight());

    XYChart one = Charts.line("one point", "x", "y");
    Charts.series(one, "s", Color.BLUE, new double[] { 4 }, new double[] { 0 });
    Charts.write(one, new File(dir, "one.png"));
    assertEquals(Charts.HEIGHT, ImageIO.read(new File(dir, "one.png")).getHeight());
    assertThrows(IllegalArgumentException.class,
      () -> Charts.series(one, "t", Color.RED, new double[2], new double[3]));
  }

  @Test
  public void barChartsGroupedAndStackedEvenWithASeriesWithoutFigures() throws Exception {
    File dir = Files.createTempDirectory("charts").toFile();
    List<String> cats = List.of("50G_RAM", "50G_HDD");
    File grouped = new File(dir, "grouped.png");
    var c = Charts.bars("grouped", "%", cats, List.of(
      new Charts.BarSeries("measured", Color.BLUE, new double[] { 120, Double.NaN }),
      new Charts.BarSeries("paper", Color.GRAY, new double[] { Double.NaN, Double.NaN })), false,
      v -> v + " %");
    Charts.reference(c, 100, "HDD = 100 %");
    Charts.write(c, grouped);
    assertEquals(Charts.WIDTH, ImageIO.read(grouped).getWidth());
    File stacked = new File(dir, "stacked.png");
    Charts.write(Charts.bars("stacked", "MiB", cats, List.of(
      new Charts.BarSeries("RAM", Color.RED, new double[] { 1, 0 }),
      new Charts.BarSeries("HDD", Color.GRAY, new double[] { 2, 3 })), true, v -> v + " MiB"),
      stacked);
    assertEquals(Charts.WIDTH, ImageIO.read(stacked).getWidth());
    // A run with no figure of any series (every case failed) still gets its chart.
    File none = new File(dir, "none.png");
    Charts.write(Charts.bars("none", "%", cats, List.of(new Charts.BarSeries("measured",
      Color.BLUE, new double[] { Double.NaN, Double.NaN })), false, v -> v + " %"), none);
    assertEquals(Charts.WIDTH, ImageIO.read(none).getWidth());
    assertThrows(IllegalArgumentException.class, () -> Charts.bars("bad", "x", cats,
      List.of(new Charts.BarSeries("s", Color.RED, new double[1])), false, v -> ""));
  }
}
