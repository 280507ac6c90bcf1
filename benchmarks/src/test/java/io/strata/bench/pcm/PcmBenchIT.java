package io.strata.bench.pcm;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.strata.bench.common.LabelAssertions;
import io.strata.bench.monitor.BenchMonitor;
import io.strata.bench.monitor.MonitoringAssertions;
import io.strata.local.LocalClusterConfig;
import io.strata.local.TestClusters;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.Set;
import org.junit.Test;

/**
 * {@code strata bench pcm} end to end at a tiny scale on three embedded RegionServers, for the
 * parts that run on one cluster: the eight mixes classified from the cluster's metrics, and the
 * adaptation from a bulk load to a read-mostly phase under the watch loop, twice (the second
 * run with its sides rotated) against both baselines; the JSON has their checked fields (the
 * adaptation's median speed-up within its spread, no RegionServer restarted, the stock
 * baseline's tables under HBase 2.6's default SteppingSplitPolicy and the secondary's under
 * IncreasingToUpperBoundRegionSplitPolicy) and the report is written. Table III and the per-workload part restart HBase
 * for each heap setting (six clusters, 3 to 7 minutes here even at this scale): they are run by
 * the benchmark, not in the test suite.
 */
public class PcmBenchIT {
  /** Sizes / 64, a few thousand records, 1.5 s per workload, half-second monitor reads. */
  static final PcmScale TINY = new PcmScale("tiny", 64, 4_000, List.of(3_000L), 2, 4, 1.5, 3_000,
    500, 3, 2, 14);

  @Test
  public void classifiesEveryMixAndAdaptsToAPhaseChange() throws Exception {
    LocalClusterConfig config = TestClusters.small("pcm-bench");
    File out = new File(config.workDir(), "report");
    File json = new File(config.workDir(), "pcm.json");
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    int code = LabelAssertions.asLaunched(() -> PcmBench.run(config, TINY,
      Set.of("classification", "adaptation"), 2, out, json, 500,
      new PrintStream(buf, true, StandardCharsets.UTF_8)));
    String console = buf.toString(StandardCharsets.UTF_8);
    System.out.print(console);
    assertEquals(console, 0, code);

    JsonNode doc = new ObjectMapper().readTree(json);
    LabelAssertions.assertLabelled(doc, "netty", "none");
    JsonNode c = doc.path("classification");
    assertEquals(c.toString(), 8, c.path("total").asInt());
    assertTrue(c.toString(), c.path("correct").asInt() >= 0 && c.path("correct").asInt() <= 8);
    assertEquals(8, c.path("mixes").size());
    JsonNode a = doc.path("adaptation");
    assertTrue(a.toString(), a.has("switch_s"));
    // PCM's cluster runs PcmHeapTuner: in each run whose second phase switched class, the
    // RegionServers serving the PCM table moved their memstore and block-cache shares (read from
    // the RegionServers) toward the new policy's, online (restarts 0 below).
    JsonNode tuner = a.path("heap_tuner");
    assertTrue("adaptation.heap_tuner.enabled: " + a, tuner.path("enabled").asBoolean(false));
    assertEquals(tuner.toString(), 2, tuner.path("runs").size());
    int switched = 0;
    for (JsonNode run : tuner.path("runs")) {
      if (run.path("switched_to").isNull()) {
        continue;
      }
      switched++;
      double memTarget = run.path("memstore_share_target").asDouble();
      double cacheTarget = run.path("block_cache_share_target").asDouble();
      int serving = 0;
      for (JsonNode rs : run.path("region_servers")) {
        if (!rs.path("serves_pcm_table").asBoolean()) {
          continue;
        }
        serving++;
        double memBefore = Math.abs(rs.path("memstore_share_before").asDouble() - memTarget);
        double memAfter = Math.abs(rs.path("memstore_share_after").asDouble() - memTarget);
        double cacheBefore = Math.abs(rs.path("block_cache_share_before").asDouble()
          - cacheTarget);
        double cacheAfter = Math.abs(rs.path("block_cache_share_after").asDouble() - cacheTarget);
        assertTrue(run.toString(), rs.path("steps").asInt() >= 1);
        assertTrue(run.toString(), memAfter < memBefore - 0.01 || memBefore < 0.01);
        assertTrue(run.toString(), cacheAfter < cacheBefore - 0.01 || cacheBefore < 0.01);
        assertTrue(run.toString(), memAfter < 0.05 && cacheAfter < 0.05
          || memAfter < memBefore - 0.01 && cacheAfter < cacheBefore - 0.01);
      }
      assertTrue(run.toString(), serving >= 1);
    }
    assertTrue(tuner.toString(), switched >= 1);
    assertEquals(a.toString(), 2, a.path("phases").size());
    // The bulk load is seen as one: the table was empty when the watch began.
    assertEquals(a.toString(), "BL", a.path("phases").get(0).path("classified").asText());

    // Two runs; the adaptation's speed-up over stock is the median of the runs', within their
    // spread; nothing restarts.
    assertEquals(doc.toString(), 2, doc.path("runs").asInt());
    assertEquals(a.toString(), 2, a.path("runs").asInt());
    assertEquals(a.toString(), 2, a.path("runs_switch_s").size());
    double speedup = a.path("speedup").asDouble(-1);
    JsonNode spread = a.path("spread");
    assertTrue(a.toString(), speedup > 0 && spread.path("min").isNumber()
      && spread.path("min").asDouble() <= speedup && speedup <= spread.path("max").asDouble());
    assertEquals(a.toString(), 0, a.path("restarts").asInt(-1));
    assertTrue(a.toString(), a.path("speedup_vs_increasing_to_upper_bound").asDouble() > 0);
    assertTrue(a.toString(), a.path("second_phase").path("increasing_to_upper_bound_ops_per_s")
      .asDouble() > 0);
    // The baselines by name, and the split policy each one's tables really ran under.
    JsonNode primary = doc.path("baselines").path("primary");
    JsonNode secondary = doc.path("baselines").path("secondary");
    assertEquals(primary.toString(), "stock", primary.path("name").asText());
    assertTrue(primary.toString(), primary.path("split_policy_set").isNull());
    assertEquals(primary.toString(), "[\"org.apache.hadoop.hbase.regionserver.SteppingSplitPolicy\"]",
      primary.path("split_policy_used").toString());
    assertEquals(secondary.toString(), "increasing-to-upper-bound",
      secondary.path("name").asText());
    assertEquals(secondary.toString(),
      "[\"org.apache.hadoop.hbase.regionserver.IncreasingToUpperBoundRegionSplitPolicy\"]",
      secondary.path("split_policy_used").toString());

    String md = Files.readString(new File(out, PcmReport.MARKDOWN).toPath());
    assertTrue(md, md.contains("Classification:"));
    assertTrue(md, md.contains("primary `stock`") && md.contains(
      "secondary `increasing-to-upper-bound`") && md.contains("RegionServer restarts during the "
      + "adaptation: 0."));
    // Monitored every 500 ms, the RegionServers read while the mixes ran.
    JsonNode m = MonitoringAssertions.assertMonitored(doc, new File(out, BenchMonitor.PNG), true);
    assertTrue(m.path("phases").toString(), MonitoringAssertions.measuredIn(m, "classification",
      "memstore_mb"));
    assertTrue(md, md.contains("## Monitoring") && md.contains("](monitor.png)"));
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
