package io.strata.bench.pcm;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.strata.local.LocalClusterConfig;
import io.strata.local.TestClusters;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.Set;
import javax.imageio.ImageIO;
import org.junit.Test;

/**
 * {@code strata bench pcm} end to end at a tiny scale on three embedded RegionServers: every
 * part runs, the JSON has the checked fields with positive speed-ups, all eight mixes were
 * classified, and the report and its plots are readable.
 */
public class PcmBenchIT {
  /** Sizes / 64, a few thousand records, 1.5 s per workload, half-second monitor reads. */
  static final PcmScale TINY = new PcmScale("tiny", 64, 4_000, List.of(3_000L), 2, 4, 1.5, 3_000,
    500, 3, 2, 14);

  @Test
  public void runsEveryPartAndWritesTheReport() throws Exception {
    LocalClusterConfig config = TestClusters.small("pcm-bench");
    File out = new File(config.workDir(), "report");
    File json = new File(config.workDir(), "pcm.json");
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    int code = PcmBench.run(config, TINY, Set.copyOf(PcmBench.PARTS), out, json,
      new PrintStream(buf, true, StandardCharsets.UTF_8));
    String console = buf.toString(StandardCharsets.UTF_8);
    System.out.print(console);
    assertEquals(console, 0, code);

    JsonNode doc = new ObjectMapper().readTree(json);
    JsonNode t3 = doc.path("table3");
    assertEquals(doc.toString(), 9, t3.size());
    for (int i = 0; i < 9; i++) {
      JsonNode s = t3.get(i);
      assertEquals("S." + (i + 1), s.path("step").asText());
      assertTrue(s.toString(), s.path("ops_per_s").asDouble() > 0);
      assertTrue(s.toString(), s.path("speedup").asDouble() > 0);
    }
    assertEquals(1.0, t3.get(0).path("speedup").asDouble(), 1e-9);
    for (String w : List.of("BL", "WO-Update", "RO-Read", "RO-Scan", "MixRW")) {
      JsonNode n = doc.path("workloads").path(w);
      assertTrue(w + ": " + doc.path("workloads"), n.path("default_ops_per_s").asDouble() > 0);
      assertTrue(w + ": " + n, n.path("pcm_ops_per_s").asDouble() > 0);
      assertTrue(w + ": " + n, n.path("speedup").asDouble() > 0);
    }
    JsonNode c = doc.path("classification");
    assertEquals(c.toString(), 8, c.path("total").asInt());
    assertTrue(c.toString(), c.path("correct").asInt() >= 0 && c.path("correct").asInt() <= 8);
    assertEquals(8, c.path("mixes").size());
    JsonNode a = doc.path("adaptation");
    assertTrue(a.toString(), a.has("switch_s"));
    assertEquals(a.toString(), 2, a.path("phases").size());
    // The bulk load is seen as one: the table was empty when the watch began.
    assertEquals(a.toString(), "BL", a.path("phases").get(0).path("classified").asText());

    String md = Files.readString(new File(out, PcmReport.MARKDOWN).toPath());
    assertTrue(md, md.contains("| S.9 |") && md.contains("Classification:"));
    for (String png : List.of(PcmReport.TABLE3_PNG, PcmReport.WORKLOADS_PNG)) {
      BufferedImage img = ImageIO.read(new File(out, png));
      assertNotNull(png + " is a readable image", img);
      assertTrue(png, img.getWidth() > 500 && img.getHeight() > 100);
    }
  }

  @Test
  public void helpAndBadOptions() throws Exception {
    PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    assertEquals(0, PcmBench.run(new String[] { "--help" }, quiet));
    assertEquals(2, PcmBench.run(new String[] { "--scale", "huge" }, quiet));
    assertEquals(2, PcmBench.run(new String[] { "--parts", "table3,nope" }, quiet));
    assertEquals(2, PcmBench.run(new String[] { "--no-such-option" }, quiet));
  }
}
