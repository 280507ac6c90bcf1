package io.strata.bench.chooser;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.strata.bench.common.LabelAssertions;
import io.strata.bench.monitor.BenchMonitor;
import io.strata.bench.monitor.MonitoringAssertions;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.junit.Test;

/** {@code strata bench chooser} end to end at a tiny size: options, table and JSON document. */
public class ChooserBenchIT {

  @Test
  public void writesTheTableAndTheJsonDocument() throws Exception {
    File work = new File("target/it-work/chooser-" + UUID.randomUUID().toString().substring(0, 8));
    File json = new File(work, "chooser.json");
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    int code = LabelAssertions.asLaunched(() -> ChooserBench.run(new String[] { "--files", "4",
      "--file-mb", "2", "--delay-ms", "20", "--work-dir", work.getPath(), "--json",
      json.getPath(), "--monitor-ms", "250" }, new PrintStream(buf, true,
      StandardCharsets.UTF_8)));
    String out = buf.toString(StandardCharsets.UTF_8);
    System.out.print(out);
    assertEquals(0, code);
    assertTrue(out, out.contains("round-robin") && out.contains("latency-aware"));

    JsonNode doc = new ObjectMapper().readTree(json);
    // No HBase RPC; the slowed volume is the DataNode-side hook's.
    LabelAssertions.assertLabelled(doc, "none", "in-process");
    assertEquals(20, doc.path("settings").path("delay_ms").asInt());
    assertEquals(250, MonitoringAssertions.assertMonitored(doc, new File(work, BenchMonitor.PNG),
      false).path("interval_ms").asInt());
    JsonNode rr = doc.path("policies").path("round-robin");
    JsonNode la = doc.path("policies").path("latency-aware");
    for (JsonNode p : new JsonNode[] { rr, la }) {
      assertEquals(p.toString(), 8, p.path("blocks").asInt());
      assertEquals(p.toString(), 4, p.path("blocks_per_volume").size());
      long sum = 0;
      for (JsonNode n : p.path("blocks_per_volume")) {
        sum += n.asLong();
      }
      assertEquals(8, sum);
      assertEquals(4 * (2L << 20), p.path("bytes").asLong());
      assertTrue(p.toString(), p.path("mb_per_s").asDouble() > 0);
      assertEquals(p.path("slow_blocks").asDouble() / 8, p.path("slow_share").asDouble(), 1e-9);
    }
    assertEquals("round-robin gives the slowed volume its quarter", 0.25,
      rr.path("slow_share").asDouble(), 1e-9);
    assertTrue(doc.path("probe").path("mean_ms").asDouble() > 0);
  }

  @Test
  public void helpAndBadOptions() throws Exception {
    PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    assertEquals(0, ChooserBench.run(new String[] { "--help" }, quiet));
    assertEquals(2, ChooserBench.run(new String[] { "--files", "none" }, quiet));
    assertEquals(2, ChooserBench.run(new String[] { "--delay-ms", "-5" }, quiet));
    assertEquals(2, ChooserBench.run(new String[] { "--no-such-option" }, quiet));
  }
}
