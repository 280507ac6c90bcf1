package io.strata.bench.monitor;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.Arrays;
import javax.imageio.ImageIO;

/** What the benches' integration tests check of their monitoring: cheap, values not asserted. */
public final class MonitoringAssertions {
  private static final byte[] PNG_SIGNATURE = { (byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a,
    '\n' };

  private MonitoringAssertions() {
  }

  /**
   * {@code doc}'s {@code monitoring} section has samples, phases and every machine series with a
   * number per sample (and, with {@code hbase}, every RegionServer series, a value or a gap per
   * sample); {@code png} is a PNG image. Returns the section.
   */
  public static JsonNode assertMonitored(JsonNode doc, File png, boolean hbase)
    throws IOException {
    JsonNode m = doc.path(BenchMonitor.SECTION);
    assertTrue("no monitoring section in " + doc.fieldNames().next() + "...", m.isObject());
    int samples = m.path("t_s").size();
    assertTrue(m.toString(), samples >= 1 && m.path("interval_ms").asLong() >= BenchMonitor.MIN_MS);
    assertTrue(m.path("phases").toString(), m.path("phases").size() >= 1);
    for (String s : Monitor.MACHINE_SERIES) {
      JsonNode values = m.path("series").path(s);
      assertEquals(s + " " + values, samples, values.size());
      values.forEach(v -> assertTrue(s + " " + values, v.isNumber()));
    }
    for (String s : Monitor.HBASE_SERIES) {
      JsonNode values = m.path("series").path(s);
      if (hbase) {
        assertEquals(s + " " + values, samples, values.size());
        values.forEach(v -> assertTrue(s + " " + values, v.isNumber() || v.isNull()));
      } else {
        assertTrue(s + " in a bench without HBase", values.isMissingNode());
      }
    }
    assertTrue(png + " missing", png.isFile());
    byte[] head = Arrays.copyOf(Files.readAllBytes(png.toPath()), PNG_SIGNATURE.length);
    assertArrayEquals(png + " is not a PNG", PNG_SIGNATURE, head);
    assertNotNull(png + " does not decode", ImageIO.read(png));
    return m;
  }

  /** Whether some phase whose name starts with {@code prefix} has a mean of {@code series}. */
  public static boolean measuredIn(JsonNode monitoring, String prefix, String series) {
    for (JsonNode p : monitoring.path("phases")) {
      if (p.path("name").asText().startsWith(prefix) && p.path("means").path(series).isNumber()) {
        return true;
      }
    }
    return false;
  }
}
