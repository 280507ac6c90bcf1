package io.strata.bench.ycsb;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.strata.bench.common.BenchJson;
import java.io.File;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * The comparison's checks, JSON and report on made-up runs: a run "over the endpoint" that the
 * counters do not back is refused, as is a Netty run with endpoint calls.
 */
public class RpcCompareTest {
  @Rule
  public TemporaryFolder tmp = new TemporaryFolder();

  private static final RpcCompare.Settings SETTINGS = new RpcCompare.Settings(1000, 500,
    Duration.ofSeconds(5), List.of("read", "write", "read-write"), List.of(1, 8, 16), 1, 100, 2,
    Map.of(), null, "loopback");

  private static RpcCompare.Cell cell(String workload, int threads, long reads, long updates,
    Map<String, Long> nettyCounters, Map<String, Long> rdmaCounters) {
    return new RpcCompare.Cell(workload, threads, List.of("netty", "rdma"),
      new RpcCompare.PathRun(YcsbSamples.rpcFigures(reads, updates, 100), nettyCounters),
      new RpcCompare.PathRun(YcsbSamples.rpcFigures(reads, updates, 40), rdmaCounters), 1.5);
  }

  @Test
  public void runsBackedByTheCountersPass() {
    assertEquals(List.of(), RpcCompare.violations(cell("read-write", 4, 300, 200,
      YcsbSamples.counters(0, 0), YcsbSamples.counters(301, 200))));
  }

  @Test
  public void bothPathsOverNettyIsRefused() {
    List<String> v = RpcCompare.violations(cell("read-write", 4, 300, 200, YcsbSamples.counters(0, 0),
      YcsbSamples.counters(0, 0)));
    assertEquals(v.toString(), 4, v.size());
    assertTrue(v.toString(), v.get(0).contains("rdma: 300 reads but client.Get.rdma +0"));
  }

  @Test
  public void endpointCallsDuringTheNettyRunAreRefused() {
    List<String> v = RpcCompare.violations(cell("read", 1, 500, 0, YcsbSamples.counters(500, 0),
      YcsbSamples.counters(500, 0)));
    assertEquals(v.toString(), 2, v.size());
    assertTrue(v.toString(), v.get(0).startsWith("read x1 netty: client.Get.rdma +500"));
  }

  @Test
  public void aPathWithoutOperationsIsRefused() {
    RpcCompare.Cell c = new RpcCompare.Cell("write", 2, List.of("rdma", "netty"),
      new RpcCompare.PathRun(YcsbSamples.rpcFigures(0, 0, 0), YcsbSamples.counters(0, 0)),
      new RpcCompare.PathRun(YcsbSamples.rpcFigures(0, 10, 50), YcsbSamples.counters(0, 10)), 0);
    assertEquals(List.of("write x2 netty: no operation"), RpcCompare.violations(c));
  }

  @Test
  public void jsonReportAndPlot() throws Exception {
    List<RpcCompare.Cell> cells = new ArrayList<>();
    for (String w : SETTINGS.workloads()) {
      for (int t : SETTINGS.threads()) {
        long reads = w.equals("write") ? 0 : 400;
        long updates = w.equals("read") ? 0 : 400;
        cells.add(cell(w, t, reads, updates, YcsbSamples.counters(0, 0), YcsbSamples.counters(reads, updates)));
      }
    }
    RpcCompare.Result r = new RpcCompare.Result(SETTINGS, "loopback", false, YcsbSamples.rpcFigures(0, 1000, 300), 1000, cells,
      List.of());
    JsonNode node = BenchJson.tree(YcsbResult.Rpc.of(r));
    assertEquals(1000, node.path("records").asLong());
    assertEquals(500, node.path("operations_per_run").asLong());
    assertTrue(node.path("endpoint_verified").asBoolean());
    assertEquals(9, node.path("workloads").size());
    var first = node.path("workloads").get(0);
    assertEquals("read", first.path("workload").asText());
    assertEquals(1, first.path("threads").asInt());
    assertEquals(100.0, first.path("netty").path("mean_us").asDouble(), 0);
    assertEquals(40.0, first.path("rdma").path("mean_us").asDouble(), 0);
    assertEquals(10_000, first.path("netty").path("ops_per_s").asLong());
    assertEquals(25_000, first.path("rdma").path("ops_per_s").asLong());
    assertEquals(2.5, first.path("ratio_ops").asDouble(), 1e-9);
    assertEquals(400, first.path("rdma").path("gets_over_endpoint").asLong());
    assertEquals(0.4, first.path("ratio_mean_us").asDouble(), 1e-9);

    File dir = tmp.newFolder("report");
    RpcCompareReport.write(r, "./strata bench ycsb --rpc-compare", dir);
    String md = Files.readString(new File(dir, RpcCompareReport.MARKDOWN).toPath());
    assertTrue(md, md.contains("Endpoint check: **passed**"));
    assertTrue(md, md.contains("| 8 | **rdma / netty** | **2.50** | | 0.40 |"));
    assertTrue(md, md.contains("| 1.5 |"));
    assertEquals(1.5, first.path("load_average_1m").asDouble(), 0);
    assertTrue(md, md.contains("174.6 µs"));
    assertTrue(md, md.contains("mean latency 40.0 vs 100.0 µs (ratio 0.40)"));
    assertTrue(md, md.contains("read latency ratio 0.40, update 0.40"));
    assertTrue(new File(dir, RpcCompareReport.PLOT).length() > 1000);

    RpcCompare.Result failed = new RpcCompare.Result(SETTINGS, "loopback", false, YcsbSamples.rpcFigures(0, 1000, 300), 1000,
      cells, List.of("read x1 rdma: 400 reads but client.Get.rdma +0"));
    JsonNode f = BenchJson.tree(YcsbResult.Rpc.of(failed));
    assertFalse(f.path("endpoint_verified").asBoolean());
    assertTrue(RpcCompareReport.markdown(failed, "x").contains("Endpoint check: **FAILED**"));
  }

  @Test
  public void roundsMergeIntoOnePathRun() {
    RpcCompare.PathRun a = new RpcCompare.PathRun(YcsbSamples.rpcFigures(100, 100, 100), YcsbSamples.counters(100, 100));
    RpcCompare.PathRun b = new RpcCompare.PathRun(YcsbSamples.rpcFigures(300, 100, 50), YcsbSamples.counters(301, 100));
    RpcCompare.PathRun m = RpcCompare.PathRun.merge(List.of(a, b));
    assertEquals(600, m.figures().operations());
    assertEquals(200, m.figures().count(MeasuredDb.UPDATE));
    assertEquals(401, m.counter("client.Get.rdma"));
    // 200 ops in 0.02 s, then 400 in 0.02 s: 600 in 0.04 s
    assertEquals(15_000, m.figures().opsPerSec(), 1e-6);
    assertEquals(List.of(10_000.0, 20_000.0), m.roundOpsPerSec());
    assertEquals((200 * 100 + 400 * 50) / 600.0, m.figures().all().meanUs(), 0.2);
  }

  @Test
  public void propertiesTurnBufferingOffAndNameThePathsConnection() throws Exception {
    RpcCompare.Settings s = new RpcCompare.Settings(1000, 500, Duration.ofSeconds(5),
      List.of("write"), List.of(1), 1, 0, 2, Map.of("fieldlength", "50"), null, "verbs");
    Properties p = RpcCompare.properties(s, "write", RpcCompare.RDMA, 500);
    assertEquals("false", p.getProperty(HBaseClient26.CLIENT_BUFFERING));
    assertEquals("rpc-compare-rdma", p.getProperty(HBaseClient26.CONNECTION));
    assertEquals("1", p.getProperty("updateproportion"));
    assertEquals("0", p.getProperty("readproportion"));
    assertEquals("true", p.getProperty("writeallfields"));
    assertEquals("50", p.getProperty("fieldlength"));
    assertEquals("1000", p.getProperty("recordcount"));
    assertEquals("500", p.getProperty("operationcount"));
    assertEquals("1", RpcCompare.properties(s, "read", RpcCompare.NETTY, 1)
      .getProperty("readproportion"));
    assertEquals("rpc-compare-netty", RpcCompare.properties(s, "read", RpcCompare.NETTY, 1)
      .getProperty(HBaseClient26.CONNECTION));
  }

  @Test
  public void anUnknownTransportIsRefusedByName() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
      () -> new RpcCompare.Settings(1000, 500, Duration.ofSeconds(5), List.of("write"),
        List.of(1), 1, 0, 2, Map.of(), null, "tcp"));
    assertTrue(e.getMessage(), e.getMessage().contains("'tcp'")
      && e.getMessage().contains("verbs"));
  }

  /**
   * A client JVM's figures arrive whole: merged with others they give what merging the
   * originals gives (counts, times, every percentile).
   */
  @Test
  public void figuresFromAClientProcessMergeAsTheOriginals() throws Exception {
    InProcessYcsb.Figures a = YcsbSamples.rpcFigures(100, 100, 100);
    InProcessYcsb.Figures b = YcsbSamples.rpcFigures(300, 100, 57);
    InProcessYcsb.Figures a2 = RemoteYcsbClient.JSON.readValue(RemoteYcsbClient.JSON
      .writeValueAsString(RemoteYcsbClient.EncodedFigures.of(a)),
      RemoteYcsbClient.EncodedFigures.class).figures();
    assertEquals(a.operations(), a2.operations());
    assertEquals(a.seconds(), a2.seconds(), 0);
    assertEquals(a.byTypeNs().keySet(), a2.byTypeNs().keySet());
    InProcessYcsb.Figures m = InProcessYcsb.Figures.merge(List.of(a, b));
    InProcessYcsb.Figures m2 = InProcessYcsb.Figures.merge(List.of(a2, b));
    assertEquals(m.all(), m2.all());
    assertEquals(m.byType(), m2.byType());
    assertEquals(m.count(MeasuredDb.UPDATE), m2.count(MeasuredDb.UPDATE));
  }
}
