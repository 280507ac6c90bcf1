package io.strata.bench.ycsb;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.Test;

/**
 * {@code strata bench ycsb --rpc-compare} end to end at a small size: the JSON section's fields,
 * operations on both paths, the endpoint path's Gets and Mutates counted over the endpoint (by
 * the client and the server) and the Netty path's not, the report and the plot. Timing is not
 * asserted.
 */
public class YcsbRpcCompareIT {

  @Test
  public void runsEveryWorkloadOverBothPathsAndProvesWhichWentOverTheEndpoint() throws Exception {
    File work = new File("target/it-work/ycsb-rpc-" + UUID.randomUUID().toString().substring(0, 8));
    File json = new File(work, "rpc.json");
    File out = new File(work, "report");
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    int code = YcsbBench.run(new String[] { "--rpc-compare", "--records", "2000",
      "--operations", "1200", "--rpc-threads", "1,4", "--rpc-seconds", "20",
      "--rpc-rounds", "2", "--rpc-warmup-ops", "400", "--settle-quiet-s", "1", "--regions", "2",
      "--ram-mb", "256",
      "--work-dir", new File(work, "cluster").getPath(), "--out", out.getPath(),
      "--json", json.getPath() }, new PrintStream(buf, true, StandardCharsets.UTF_8));
    String text = buf.toString(StandardCharsets.UTF_8);
    System.out.print(text);
    assertEquals(text, 0, code);

    JsonNode rc = new ObjectMapper().readTree(json).path("rpc_compare");
    assertEquals(rc.toString(), 2000, rc.path("records").asLong());
    assertEquals(1200, rc.path("operations_per_run").asLong());
    assertEquals(2, rc.path("rounds").asInt());
    assertEquals(1000, rc.path("record_bytes").asInt());
    assertEquals(2000, rc.path("load").path("operations").asLong());
    assertTrue(rc.path("endpoint_verified").asBoolean());
    assertEquals(0, rc.path("violations").size());
    JsonNode cells = rc.path("workloads");
    assertEquals(6, cells.size());
    Set<String> seen = new HashSet<>();
    for (JsonNode c : cells) {
      String where = c.path("workload").asText() + " x" + c.path("threads").asInt();
      seen.add(where);
      for (String path : List.of("netty", "rdma")) {
        JsonNode p = c.path(path);
        for (String f : List.of("ops_per_s", "mean_us", "p50_us", "p99_us")) {
          assertTrue(where + " " + path + "." + f + " in " + p, p.path(f).asDouble() > 0);
        }
        assertTrue(where + " " + path, p.path("p99_us").asDouble() >= p.path("p50_us").asDouble());
        // two rounds of 1200
        assertEquals(where + " " + path, 2400, p.path("operations").asLong());
        assertEquals(where + " " + path, 2, p.path("rounds_ops_per_s").size());
        assertEquals(where + " " + path, 0, p.path("failed").asLong());
      }
      assertTrue(where, c.path("ratio_ops").asDouble() > 0);

      JsonNode rdma = c.path("rdma");
      long reads = rdma.path("ops").path("READ").path("count").asLong();
      long updates = rdma.path("ops").path("UPDATE").path("count").asLong();
      assertEquals(where, 2400, reads + updates);
      assertEquals(where, 4, c.path("order").size());
      assertTrue(where + ": Gets over the endpoint " + rdma,
        rdma.path("gets_over_endpoint").asLong() >= reads);
      assertTrue(where + ": Mutates over the endpoint " + rdma,
        rdma.path("mutates_over_endpoint").asLong() >= updates);
      assertTrue(where + ": the server's endpoint Gets " + rdma,
        rdma.path("counters").path("server.Get.calls").asLong() >= reads);
      assertTrue(where + ": the server's endpoint Mutates " + rdma,
        rdma.path("counters").path("server.Mutate.calls").asLong() >= updates);
      String workload = c.path("workload").asText();
      if (!workload.equals("write")) {
        assertTrue(where + " reads", reads > 0);
      }
      if (!workload.equals("read")) {
        assertTrue(where + " updates", updates > 0);
      }

      JsonNode netty = c.path("netty");
      assertEquals(where + ": Netty run over the endpoint " + netty, 0,
        netty.path("gets_over_endpoint").asLong());
      assertEquals(where + ": Netty run over the endpoint " + netty, 0,
        netty.path("mutates_over_endpoint").asLong());
      assertEquals(where + " " + netty, 0,
        netty.path("counters").path("server.Get.calls").asLong());
      assertEquals(where + " " + netty, 0,
        netty.path("counters").path("server.Mutate.calls").asLong());
    }
    assertEquals(Set.of("read x1", "read x4", "write x1", "write x4", "read-write x1",
      "read-write x4"), seen);

    String report = Files.readString(new File(out, RpcCompareReport.MARKDOWN).toPath());
    assertTrue(report, report.contains("Endpoint check: **passed**"));
    assertTrue(report, report.contains("./strata bench ycsb --rpc-compare --records 2000"));
    assertTrue(report, report.contains("174.6"));
    assertTrue(new File(out, RpcCompareReport.PLOT).length() > 1000);
  }
}
