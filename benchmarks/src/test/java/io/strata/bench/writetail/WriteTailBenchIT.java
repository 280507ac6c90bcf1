package io.strata.bench.writetail;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.strata.bench.common.LabelAssertions;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.strata.bench.monitor.BenchMonitor;
import io.strata.bench.monitor.MonitoringAssertions;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import javax.imageio.ImageIO;
import org.junit.Test;

/**
 * {@code strata bench write-tail} end to end at a tiny size on the embedded tiered cluster: the
 * memstore each policy's store runs, every row back, ordered percentiles, flushes and in-memory
 * compactions where the policy has them; then the study's settings with pre-split tables, the
 * off-heap memstore variant and the latency timeline with its plot.
 */
public class WriteTailBenchIT {
  private static final int ROWS = 12000;
  private static final int WARMUP = 1200;

  @Test
  public void everyPolicyRunsItsMemStoreAndFlushes() throws Exception {
    File work = new File("target/it-work/write-tail-"
      + UUID.randomUUID().toString().substring(0, 8));
    File json = new File(work, "write-tail.json");
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    // 1 MiB flushes (HBase's smallest; about 5,000 rows with a skip-list memstore, 6,500
    // with flat segments) and in-memory flushes every 256 KiB of data.
    int code = LabelAssertions.asLaunched(() -> WriteTailBench.run(new String[] { "--rows",
      String.valueOf(ROWS), "--warmup-rows", String.valueOf(WARMUP), "--threads", "2",
      "--rounds", "3", "--flush-mb", "1", "--in-memory-flush-factor", "0.25", "--work-dir",
      work.getPath(), "--json", json.getPath(), "--monitor-ms", "500" }, new PrintStream(buf,
        true, StandardCharsets.UTF_8)));
    String out = buf.toString(StandardCharsets.UTF_8);
    System.out.print(out);
    assertEquals(out, 0, code);

    JsonNode doc = new ObjectMapper().readTree(json);
    // HBase's sockets; no media emulation.
    LabelAssertions.assertLabelled(doc, "netty", "none");
    // Without --plot, the monitoring plot goes to the work directory. The RegionServer's values
    // are not asserted: when this test runs after the other one in the same JVM (a whole cluster,
    // HDFS and HBase, stopped before this one started), its RegionServer was seen with no metrics
    // bean on /jmx at all, and then the series are gaps, which is what the monitor must record.
    MonitoringAssertions.assertMonitored(doc, new File(work, BenchMonitor.PNG), true);
    assertEquals("NONE", doc.path("baseline").asText());
    assertEquals("default", doc.path("settings").path("profile").asText());
    assertEquals(1, doc.path("settings").path("regions_per_table").asInt());
    for (String policy : new String[] { "NONE", "BASIC", "EAGER" }) {
      JsonNode p = doc.path("policies").path(policy);
      String what = policy + ": " + p;
      assertTrue(out, out.contains(policy));
      if (policy.equals("NONE")) {
        assertEquals(what, "org.apache.hadoop.hbase.regionserver.DefaultMemStore",
          p.path("memstore_class").asText());
        assertTrue(what, p.path("memstore_compactor").isNull());
        assertEquals(what, 0, p.path("in_memory_compactions").asLong());
      } else {
        assertEquals(what, "org.apache.hadoop.hbase.regionserver.CompactingMemStore",
          p.path("memstore_class").asText());
        assertTrue(what, p.path("memstore_compactor").asText().startsWith(policy + ","));
        assertTrue(what, p.path("in_memory_compactions").asLong() > 0);
      }
      assertTrue(what, p.path("policy_in_effect").asBoolean());
      assertEquals(what, ROWS, p.path("ops").asLong());
      assertEquals(what, ROWS + WARMUP, p.path("rows_written").asLong());
      assertEquals(what, ROWS + WARMUP, p.path("rows_read_back").asLong());
      assertTrue(what, p.path("read_back_complete").asBoolean());
      assertTrue(what, p.path("flushes").asLong() > 0);
      assertTrue(what, p.path("throughput_ops_per_s").asDouble() > 0);
      assertTimeline(what, p);
      JsonNode lat = p.path("latency_us");
      double previous = 0;
      for (String name : new String[] { "p50", "p99", "p99.9", "p99.99", "max" }) {
        assertTrue(what, lat.has(name));
        double v = lat.path(name).asDouble();
        assertTrue(what + ": " + name + " " + v + " below the previous " + previous,
          v >= previous && v > 0);
        previous = v;
      }
    }
    // EAGER rewrites cells in memory; BASIC only flattens and merges segment indexes.
    assertTrue(doc.toString(),
      doc.path("policies").path("EAGER").path("in_memory_data_compactions").asLong() > 0);
    assertEquals(doc.toString(), 0,
      doc.path("policies").path("BASIC").path("in_memory_data_compactions").asLong());
    for (String policy : new String[] { "BASIC", "EAGER" }) {
      JsonNode r = doc.path("ratios").path(policy);
      assertTrue(doc.toString(), r.path("p99.99").asDouble() > 0
        && r.path("paired_by_round").path("p99.9").asDouble() > 0);
      assertEquals(3, doc.path("policies").path(policy).path("rounds_latency_us").size());
    }
  }

  @Test
  public void studySettingsPresplitOffheapAndTimeline() throws Exception {
    File work = new File("target/it-work/write-tail-study-"
      + UUID.randomUUID().toString().substring(0, 8));
    File json = new File(work, "write-tail.json");
    File png = new File(work, "timeline.png");
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    int rows = 16000;
    int warmup = 1000;
    // The study's RegionServer settings but 1 MiB flushes, so that two regions per table go
    // through flushes in seconds; NONE again on a 256 MiB off-heap memstore in its own JVM.
    int code = WriteTailBench.run(new String[] { "--settings", "study", "--flush-mb", "1",
      "--regions", "2", "--policies", "NONE", "--offheap", "NONE", "--offheap-memstore-mb", "256",
      "--rows", String.valueOf(rows), "--warmup-rows", String.valueOf(warmup), "--threads", "2",
      "--rounds", "2", "--work-dir", work.getPath(), "--json", json.getPath(), "--plot",
      png.getPath() }, new PrintStream(buf, true, StandardCharsets.UTF_8));
    String out = buf.toString(StandardCharsets.UTF_8);
    System.out.print(out);
    assertEquals(out, 0, code);
    assertTrue(out, out.contains("P999") && out.contains("NONE-offheap"));

    JsonNode doc = new ObjectMapper().readTree(json);
    // Beside --plot: this JVM's run and the off-heap variant's, each its own timeline.
    MonitoringAssertions.assertMonitored(doc, new File(work, BenchMonitor.PNG), true);
    ObjectNode offheap = new ObjectMapper().createObjectNode();
    offheap.set(BenchMonitor.SECTION, doc.path("monitoring_offheap_variant"));
    MonitoringAssertions.assertMonitored(offheap, new File(work, "monitor-offheap.png"), true);
    JsonNode settings = doc.path("settings");
    assertEquals("study", settings.path("profile").asText());
    assertEquals(2, settings.path("regions_per_table").asInt());
    assertEquals(1, settings.path("flush_mb").asInt());
    // Read back from the RegionServer's configuration, not echoed from the profile.
    JsonNode rs = settings.path("regionserver");
    assertEquals(rs.toString(), "5", rs.path("hbase.hregion.memstore.block.multiplier").asText());
    assertEquals(rs.toString(), "268435456", rs.path("hbase.hregion.memstore.flush.size").asText());
    assertEquals(rs.toString(), "0.4", rs.path("hbase.regionserver.global.memstore.size").asText());
    assertEquals(rs.toString(), "0.625",
      rs.path("hbase.regionserver.global.memstore.size.lower.limit").asText());
    assertEquals(rs.toString(), "BASIC", rs.path("hbase.hregion.compacting.memstore.type").asText());
    assertEquals(rs.toString(), "0",
      rs.path("hbase.regionserver.offheap.global.memstore.size").asText());

    for (String label : new String[] { "NONE", "NONE-offheap" }) {
      JsonNode p = doc.path("policies").path(label);
      String what = label + ": " + p;
      assertEquals(what, "org.apache.hadoop.hbase.regionserver.DefaultMemStore",
        p.path("memstore_class").asText());
      assertEquals(what, rows, p.path("ops").asLong());
      assertTrue(what, p.path("read_back_complete").asBoolean());
      assertEquals(what, 2, p.path("regions").asInt());
      assertEquals(what, 2, p.path("regions_written").asInt());
      assertTrue(what, p.path("flushes").asLong() > 0);
      assertTimeline(what, p);
      assertTrue(doc.path("ratios").path(label).toString(), label.equals("NONE")
        || doc.path("ratios").path(label).path("p99.9").asDouble() > 0);
    }
    // On-heap MSLAB chunks hold no off-heap byte; the variant's regions held some at turns' ends.
    assertEquals(0, doc.path("policies").path("NONE").path("memstore_offheap_bytes_max").asLong());
    assertTrue(doc.toString(), doc.path("policies").path("NONE-offheap")
      .path("memstore_offheap_bytes_max").asLong() > 0);
    JsonNode variant = settings.path("offheap_variant").path("settings");
    assertTrue(variant.toString(), variant.path("memstore_offheap").asBoolean());
    assertEquals(variant.toString(), "256", variant.path("regionserver")
      .path("hbase.regionserver.offheap.global.memstore.size").asText());
    assertEquals(variant.toString(), "5", variant.path("regionserver")
      .path("hbase.hregion.memstore.block.multiplier").asText());
    assertTrue(variant.toString(), variant.path("max_direct_memory_mb").asLong() >= 256);
    assertEquals(100, doc.path("study").path("fix").path("p999_ms_below").asInt());

    assertPng(png, 1);
    assertPng(WriteTailBench.offheapPlot(png), 1);
  }

  /**
   * The policy's per-second buckets: ordered percentiles, Puts summing to the measured Puts,
   * every turn covered and no bucket outside the turns; flush marks when it flushed, GC marks
   * within its turns.
   */
  private static void assertTimeline(String what, JsonNode p) {
    JsonNode turns = p.path("turns_s");
    assertTrue(what, turns.size() > 0);
    long puts = 0;
    for (JsonNode b : p.path("timeline")) {
      puts += b.path("puts").asLong();
      assertTrue(what + ": " + b, b.path("puts").asLong() > 0
        && b.path("p50_ms").asDouble() <= b.path("p99_ms").asDouble()
        && b.path("p99_ms").asDouble() <= b.path("p999_ms").asDouble()
        && b.path("p999_ms").asDouble() <= b.path("max_ms").asDouble());
      assertTrue(what + ": bucket " + b + " outside the turns", within(turns,
        b.path("t_s").asLong(), b.path("t_s").asLong() + 1));
    }
    assertEquals(what, p.path("ops").asLong(), puts);
    for (JsonNode t : turns) {
      boolean covered = false;
      for (JsonNode b : p.path("timeline")) {
        long s = b.path("t_s").asLong();
        covered |= s + 1 > t.get(0).asDouble() && s <= t.get(1).asDouble();
      }
      assertTrue(what + ": turn " + t + " has no bucket", covered);
    }
    if (p.path("flushes").asLong() > 0) {
      assertTrue(what, p.path("flush_marks").size() > 0);
    }
    for (JsonNode f : p.path("flush_marks")) {
      assertTrue(what + ": " + f, f.path("start_s").asDouble() >= 0
        && f.path("end_s").asDouble() >= f.path("start_s").asDouble());
    }
    for (JsonNode g : p.path("gc_marks")) {
      double t = g.path("t_s").asDouble();
      assertTrue(what + ": GC " + g, within(turns, t, t));
    }
  }

  /** Whether {@code [from, to)} overlaps one of the turns (1 ms slack for rounding). */
  private static boolean within(JsonNode turns, double from, double to) {
    for (JsonNode t : turns) {
      if (to >= t.get(0).asDouble() - 0.001 && from <= t.get(1).asDouble() + 0.001) {
        return true;
      }
    }
    return false;
  }

  private static void assertPng(File png, int panels) throws Exception {
    BufferedImage img = ImageIO.read(png);
    assertNotNull(png + " is not an image", img);
    assertEquals(1100, img.getWidth());
    assertEquals(480 * panels, img.getHeight());
  }

  @Test
  public void helpAndBadOptions() throws Exception {
    PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    assertEquals(0, WriteTailBench.run(new String[] { "--help" }, quiet));
    assertEquals(2, WriteTailBench.run(new String[] { "--policies", "NONE,LAZY" }, quiet));
    assertEquals(2, WriteTailBench.run(new String[] { "--policies", "BASIC,basic" }, quiet));
    assertEquals(2, WriteTailBench.run(new String[] { "--rows", "0" }, quiet));
    assertEquals(2, WriteTailBench.run(new String[] { "--rows", "5", "--rounds", "6" }, quiet));
    assertEquals(2, WriteTailBench.run(new String[] { "--in-memory-flush-factor", "2" }, quiet));
    assertEquals(2, WriteTailBench.run(new String[] { "--threads", "many" }, quiet));
    assertEquals(2, WriteTailBench.run(new String[] { "--settings", "paper" }, quiet));
    assertEquals(2, WriteTailBench.run(new String[] { "--regions", "0" }, quiet));
    assertEquals(2, WriteTailBench.run(new String[] { "--offheap", "NONE,LAZY" }, quiet));
    assertEquals(2, WriteTailBench.run(new String[] { "--plot", "timeline.svg" }, quiet));
  }
}
