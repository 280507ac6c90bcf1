package io.strata.bench.rpc;

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
 * {@code strata bench rpc} end to end at the smallest size: the table, and the JSON document's
 * fields, with the rdma-loopback calls really over the endpoint. Timing is not asserted.
 */
public class RpcBenchIT {

  @Test
  public void writesTheTableAndTheJsonDocument() throws Exception {
    File work = new File("target/it-work/rpc-" + UUID.randomUUID().toString().substring(0, 8));
    File json = new File(work, "rpc.json");
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    int code = RpcBench.run(new String[] { "--warmup", "1", "--iterations", "1", "--seconds", "1",
      "--work-dir", work.getPath(), "--json", json.getPath() },
      new PrintStream(buf, true, StandardCharsets.UTF_8));
    String out = buf.toString(StandardCharsets.UTF_8);
    System.out.print(out);
    assertEquals(0, code);
    assertTrue(out, out.contains("rdma-loopback / netty"));
    JsonNode doc = new ObjectMapper().readTree(json);
    for (String mode : new String[] { "netty", "rdma-loopback" }) {
      JsonNode m = doc.path(mode);
      for (String f : new String[] { "get_us_p50", "put_us_p50", "get_us_p99", "put_us_p99",
        "get_cpu_us_per_call", "get_alloc_bytes_per_call" }) {
        assertTrue(mode + "." + f + " in " + m, m.path(f).asDouble() > 0);
      }
    }
    JsonNode rdma = doc.path("rdma-loopback");
    assertTrue("Gets went over the endpoint: " + rdma,
      rdma.path("gets_over_endpoint").asLong() >= rdma.path("get_samples").asLong());
    assertTrue(rdma.path("mutates_over_endpoint").asLong() >= rdma.path("put_samples").asLong());
  }

  @Test
  public void helpAndBadOptions() throws Exception {
    PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    assertEquals(0, RpcBench.run(new String[] { "--help" }, quiet));
    assertEquals(2, RpcBench.run(new String[] { "--iterations", "0" }, quiet));
    assertEquals(2, RpcBench.run(new String[] { "--no-such-option" }, quiet));
  }
}
