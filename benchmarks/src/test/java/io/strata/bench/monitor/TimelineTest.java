package io.strata.bench.monitor;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.awt.image.BufferedImage;
import java.io.File;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.Test;

public class TimelineTest {

  @Test
  public void phaseMeansCoverTheSamplesInsideEachPhase() throws Exception {
    Timeline t = new Timeline(1.0, new double[] { 1, 2, 3, 4 },
      Map.of("cpu_user_pct", new double[] { 10, 20, Double.NaN, 40 }),
      List.of(new Timeline.Phase("load", 0, 2), new Timeline.Phase("run", 2, 4),
        new Timeline.Phase("blink", 4.0, 4.2)), Map.of("proc", 1, "hbase", 0));
    assertEquals(15, t.means(t.phases().get(0)).get("cpu_user_pct"), 1e-9);
    // The missing sample is left out, not counted as zero.
    assertEquals(40, t.means(t.phases().get(1)).get("cpu_user_pct"), 1e-9);
    // A phase shorter than a sample and after the last one has no mean.
    assertTrue(Double.isNaN(t.means(t.phases().get(2)).get("cpu_user_pct")));

    ObjectNode json = new ObjectMapper().createObjectNode();
    t.toJson(json);
    assertEquals(1000, json.get("interval_ms").asInt());
    assertTrue(json.get("series").get("cpu_user_pct").get(2).isNull());
    assertEquals("run", json.get("phases").get(1).get("name").asText());
    assertEquals(40, json.get("phases").get(1).get("means").get("cpu_user_pct").asDouble(), 0);
    assertEquals(1, json.get("missing_samples").get("proc").asInt());

    File png = Files.createTempFile("timeline", ".png").toFile();
    t.plot("test", png);
    BufferedImage img = ImageIO.read(png);
    assertNotNull(img);
    // No RegionServer series: the machine's three panels only.
    assertEquals(3 * 260, img.getHeight());

    Timeline withHBase = new Timeline(1.0, t.t(), Map.of("cpu_user_pct", new double[4],
      "memstore_mb", new double[] { 1, 2, Double.NaN, 3 }), t.phases(), t.missing());
    withHBase.plot("test", png);
    assertEquals(Timeline.PANELS.size() * 260, ImageIO.read(png).getHeight());
  }

  @Test
  public void phaseNamesOnlyWhereTheyHaveRoomInTheirRow() {
    // 100 s over 990 px: a character takes about 0.7 s.
    List<Timeline.Phase> phases = List.of(new Timeline.Phase("start cluster", 0, 20),
      new Timeline.Phase("warm-up", 20, 21), new Timeline.Phase("r1 NONE", 21, 22),
      new Timeline.Phase("r1 BASIC", 22, 23), new Timeline.Phase("read back", 60, 90),
      new Timeline.Phase("stop", 90, 100));
    assertEquals(List.of(new Timeline.Label("start cluster", 0), new Timeline.Label("warm-up", 0),
      new Timeline.Label("r1 NONE", 1), new Timeline.Label("", 0),
      new Timeline.Label("read back", 0), new Timeline.Label("stop", 0)),
      Timeline.labels(phases, 100));
    // A long phase after a long name: the upper row, where there is room.
    assertEquals(new Timeline.Label("adaptation", 1), Timeline.labels(List.of(
      new Timeline.Phase("start 1g-m0.40-c0.40", 0, 5), new Timeline.Phase("adaptation", 5, 100)),
      100).get(1));
  }

  @Test
  public void aSourceThatCannotBeReadLeavesGapsAndSamplingGoesOn() throws Exception {
    File nowhere = Files.createTempDirectory("no-proc").toFile();
    Monitor m = Monitor.start(Duration.ofMillis(50), nowhere.toPath(), null);
    m.phase("a");
    Thread.sleep(300);
    m.phase("b");
    Thread.sleep(200);
    Timeline t = m.stop();
    assertTrue(t.t().length >= 6);
    assertEquals(t.t().length, (int) t.missing().get("proc"));
    assertTrue(Double.isNaN(t.series().get("cpu_user_pct")[0]));
    assertEquals(List.of("a", "b"), t.phases().stream().map(Timeline.Phase::name).toList());
    assertEquals(t.phases().get(0).endS(), t.phases().get(1).startS(), 0);
    // Stopping twice gives the same timeline.
    assertEquals(t, m.stop());
  }
}
