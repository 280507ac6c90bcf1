package io.strata.bench.writetail;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.junit.Test;

/**
 * {@code strata bench write-tail} end to end at a tiny size on the embedded tiered cluster: the
 * memstore each policy's store runs, every row back, ordered percentiles, flushes and in-memory
 * compactions where the policy has them.
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
    int code = WriteTailBench.run(new String[] { "--rows", String.valueOf(ROWS), "--warmup-rows",
      String.valueOf(WARMUP), "--threads", "2", "--rounds", "3", "--flush-mb", "1",
      "--in-memory-flush-factor", "0.25", "--work-dir", work.getPath(), "--json",
      json.getPath() }, new PrintStream(buf, true, StandardCharsets.UTF_8));
    String out = buf.toString(StandardCharsets.UTF_8);
    System.out.print(out);
    assertEquals(out, 0, code);

    JsonNode doc = new ObjectMapper().readTree(json);
    assertEquals("NONE", doc.path("baseline").asText());
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
  public void helpAndBadOptions() throws Exception {
    PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    assertEquals(0, WriteTailBench.run(new String[] { "--help" }, quiet));
    assertEquals(2, WriteTailBench.run(new String[] { "--policies", "NONE,LAZY" }, quiet));
    assertEquals(2, WriteTailBench.run(new String[] { "--policies", "BASIC,basic" }, quiet));
    assertEquals(2, WriteTailBench.run(new String[] { "--rows", "0" }, quiet));
    assertEquals(2, WriteTailBench.run(new String[] { "--rows", "5", "--rounds", "6" }, quiet));
    assertEquals(2, WriteTailBench.run(new String[] { "--in-memory-flush-factor", "2" }, quiet));
    assertEquals(2, WriteTailBench.run(new String[] { "--threads", "many" }, quiet));
  }
}
