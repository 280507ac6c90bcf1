package io.strata.bench.media;

import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.File;
import java.io.IOException;
import javax.imageio.ImageIO;

/**
 * What {@link BarChart} and {@link LineChart} share: a white anti-aliased image to draw on, and
 * writing it as a PNG file. Stateless; thread-safe.
 */
final class Canvas {
  private Canvas() {
  }

  /** A white image of the size, and its graphics with anti-aliased shapes and text. */
  static Graphics2D white(BufferedImage img) {
    Graphics2D g = img.createGraphics();
    g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
    g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING,
      RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, img.getWidth(), img.getHeight());
    return g;
  }

  /** Writes the image to {@code png}, creating its directory. */
  static void write(BufferedImage img, File png) throws IOException {
    File dir = png.getAbsoluteFile().getParentFile();
    if (dir != null && !dir.isDirectory() && !dir.mkdirs()) {
      throw new IOException("Cannot create directory " + dir);
    }
    if (!ImageIO.write(img, "png", png)) {
      throw new IOException("No PNG writer in this JVM for " + png);
    }
  }
}
