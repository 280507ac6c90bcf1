package io.strata.bench.rpc;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.strata.bench.common.LabelAssertions;
import io.strata.bench.monitor.BenchMonitor;
import io.strata.bench.monitor.MonitoringAssertions;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.UUID;
import javax.imageio.ImageIO;
import org.junit.Test;

/**
 * {@code strata bench rpc} end to end at a small size: every section of the JSON document, each
 * path's calls counted over its own transport (the endpoint's over the endpoint, the sockets'
 * not), the stages of both paths adding up to their calls, the plots readable PNGs. Timing is not
 * asserted.
 */
public class RpcBenchIT {

  @Test
  public void writesEverySectionReportAndPlots() throws Exception {
    File work = new File("target/it-work/rpc-" + UUID.randomUUID().toString().substring(0, 8));
    File out = new File(work, "report");
    File json = new File(work, "rpc.json");
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    int code = LabelAssertions.asLaunched(() -> RpcBench.run(new String[] { "--sizes",
      "1,1024,16384,65536", "--threads", "1,4", "--cell-ms", "150", "--warmup-ms", "50",
      "--stage-calls", "100", "--work-dir", new File(work, "cluster").getPath(), "--out",
      out.getPath(), "--json", json.getPath() }, new PrintStream(buf, true,
        StandardCharsets.UTF_8)));
    String text = buf.toString(StandardCharsets.UTF_8);
    System.out.print(text);
    assertEquals(0, code);
    JsonNode doc = new ObjectMapper().readTree(json);
    // Both paths named; no media emulation.
    LabelAssertions.assertLabelled(doc, "loopback vs netty", "none");

    // As before: the 1 KiB figures per mode.
    for (String mode : new String[] { "netty", "rdma-loopback" }) {
      for (String f : new String[] { "get_us_p50", "put_us_p50", "get_us_p99", "put_us_p99",
        "get_cpu_us_per_call", "get_alloc_bytes_per_call" }) {
        assertTrue(mode + "." + f + " in " + doc.path(mode), doc.path(mode).path(f).asDouble() > 0);
      }
    }

    assertEquals(4, doc.path("sizes").size());
    for (JsonNode row : doc.path("sizes")) {
      JsonNode n = row.path("netty");
      JsonNode r = row.path("rdma");
      for (JsonNode m : new JsonNode[] { n, r }) {
        assertTrue(row.toString(), m.path("get_us_p50").asDouble() > 0);
        assertTrue(row.toString(), m.path("put_us_p50").asDouble() > 0);
      }
      // Each path over its own transport: the endpoint's calls all over it, the sockets' none.
      assertTrue("endpoint Gets at " + row, r.path("gets_over_endpoint").asLong()
        >= r.path("get_calls").asLong());
      assertTrue("endpoint Puts at " + row, r.path("puts_over_endpoint").asLong()
        >= r.path("put_calls").asLong());
      assertEquals("socket Gets over the endpoint at " + row, 0,
        n.path("gets_over_endpoint").asLong());
      assertEquals(0, n.path("puts_over_endpoint").asLong());
    }

    for (String path : new String[] { "netty", "rdma" }) {
      JsonNode st = doc.path("stages").path(path);
      assertTrue(path + " stages " + st, st.path("calls").asInt() >= 90);
      double total = st.path("total_us").asDouble();
      double parts = 0;
      String[] stages = path.equals("rdma")
        ? new String[] { "client_serialization_us", "send_and_transport_to_server_us",
          "server_decode_us", "queue_wait_us", "handler_us", "response_serialization_us",
          "transport_back_us", "client_processing_us" }
        : new String[] { "client_to_server_us", "server_decode_us", "queue_wait_us", "handler_us",
          "response_serialization_us", "server_to_client_us" };
      for (String s : stages) {
        assertTrue(path + "." + s + " in " + st, st.path(s).isNumber());
        assertTrue(path + "." + s + " in " + st, st.path(s).asDouble() >= 0);
        parts += st.path(s).asDouble();
      }
      assertEquals(path + " stages add up to the call: " + st, total, parts, total * 0.01);
      assertTrue(st.path("handler_us").asDouble() > 0);
      JsonNode w = doc.path("wire_bytes").path(path);
      // A 1 KiB value is in the Get's response and the Put's request, not the other way round.
      assertTrue(path + " wire " + w, w.path("get_response").asInt() > 1024);
      assertTrue(path + " wire " + w, w.path("put_request").asInt() > 1024);
      assertTrue(path + " wire " + w, w.path("get_request").asInt() < 512);
      assertTrue(path + " wire " + w, w.path("put_response").asInt() < 512);
      assertTrue(doc.path("instrumentation").path(path).path("get_us_p50_recording_on")
        .asDouble() > 0);
    }

    assertEquals(2, doc.path("threads").size());
    for (JsonNode row : doc.path("threads")) {
      for (String path : new String[] { "netty", "rdma" }) {
        JsonNode m = row.path(path);
        for (String f : new String[] { "get_ops_per_s", "cpu_us_per_get", "put_ops_per_s",
          "get_us_mean", "get_us_p99" }) {
          assertTrue(path + "." + f + " in " + row, m.path(f).asDouble() > 0);
        }
      }
      assertTrue(row.toString(), row.path("rdma").path("gets_over_endpoint").asLong() > 0);
      assertEquals(row.toString(), 0, row.path("netty").path("gets_over_endpoint").asLong());
    }

    JsonNode async = doc.path("async");
    for (String v : new String[] { "netty", "rdma", "rdma_unpolled" }) {
      assertTrue(v + " in " + async, async.path(v).path("get_us_p50").asDouble() > 0);
    }
    assertTrue("async Gets over the endpoint " + async,
      async.path("rdma").path("gets_over_endpoint").asLong()
        >= async.path("rdma").path("get_calls").asLong());
    assertEquals(0, async.path("netty").path("gets_over_endpoint").asLong());
    assertTrue(doc.path("goals").size() >= 6);

    String report = Files.readString(new File(out, "report.md").toPath());
    assertTrue(report, report.contains("Figure 7") && report.contains("43.7"));
    // The machine the report describes is the one it ran on, not a fixed one.
    assertTrue(report, report.contains("a machine with "
      + Runtime.getRuntime().availableProcessors() + " processors") && !report.contains("2-core"));
    for (String png : new String[] { "latency-vs-size.png", "stages.png", "threads.png" }) {
      BufferedImage img = ImageIO.read(new File(out, png));
      assertTrue(png, img != null && img.getWidth() > 100);
    }
    assertTrue(new File(out, "results.json").isFile());
    JsonNode m = MonitoringAssertions.assertMonitored(doc, new File(out, BenchMonitor.PNG), true);
    assertTrue(m.path("phases").toString(), MonitoringAssertions.measuredIn(m, "size ",
      "memstore_mb"));
    assertTrue(report, report.contains("## Monitoring") && report.contains("](monitor.png)"));
  }

  @Test
  public void helpAndBadOptions() throws Exception {
    PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    assertEquals(0, RpcBench.run(new String[] { "--help" }, quiet));
    assertEquals(2, RpcBench.run(new String[] { "--sizes", "0" }, quiet));
    assertEquals(2, RpcBench.run(new String[] { "--threads", "x" }, quiet));
    assertEquals(2, RpcBench.run(new String[] { "--scale", "huge" }, quiet));
    assertEquals(2, RpcBench.run(new String[] { "--no-such-option" }, quiet));
  }
}
