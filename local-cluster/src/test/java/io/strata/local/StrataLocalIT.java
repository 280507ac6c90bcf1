package io.strata.local;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.strata.hbase.placement.FileKind;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.Test;

/** {@code strata local} end to end: the demo's console report and its JSON document. */
public class StrataLocalIT {

  @Test
  public void upstreamDemoWritesTheDocumentedJson() throws Exception {
    LocalClusterConfig c = TestClusters.small("cli");
    File json = new File(c.workDir(), "report.json");
    ByteArrayOutputStream console = new ByteArrayOutputStream();
    int code = StrataLocal.run(new String[] { "--work-dir", c.workDir().getPath(), "--ram-dir",
      c.ramDir().getPath(), "--ram-mb", "256", "--data-mb", "8", "--reads", "100", "--json",
      json.getPath(), "--upstream" }, new PrintStream(console, true, StandardCharsets.UTF_8));
    String out = console.toString(StandardCharsets.UTF_8);
    System.out.print(out);
    assertEquals(0, code);
    assertTrue(out, out.contains("Placement of hdfs://"));
    assertTrue(out, out.contains("100 of 100 sampled rows read back"));
    assertTrue("RAM tier directory removed on shutdown", !c.ramDir().exists());

    JsonNode doc = new ObjectMapper().readTree(json);
    JsonNode kinds = doc.get("kinds");
    for (FileKind kind : FileKind.values()) {
      JsonNode k = kinds.get(kind.jsonName());
      assertTrue(kind + " missing in " + doc, k != null);
      assertTrue(k.get("files").isIntegralNumber());
      assertTrue(k.get("bytes").isIntegralNumber());
      assertTrue(k.get("replicas").isObject());
    }
    // Upstream HBase places nothing: every replica of every kind on DISK (HOT), the baseline.
    for (FileKind kind : FileKind.values()) {
      JsonNode replicas = kinds.get(kind.jsonName()).get("replicas");
      assertTrue(kind + " " + replicas, replicas.size() == 0
        || (replicas.size() == 1 && replicas.has("DISK")));
    }
    assertTrue(kinds.get("archived").get("replicas").get("DISK").asLong() > 0);
    // The time-series family, on upstream's date-tiered engine here: its section in the console
    // report, and in the JSON its three window outputs (one per age), each with its age.
    assertTrue(out, out.contains("Time-series family strata_metrics/m (engine "
      + "org.apache.hadoop.hbase.regionserver.DateTieredStoreEngine)"));
    assertEquals("org.apache.hadoop.hbase.regionserver.DateTieredStoreEngine",
      doc.get("families").get("strata_metrics/m").get("engine").asText());
    int windows = 0;
    for (JsonNode f : doc.get("files")) {
      if (f.get("path").asText().contains("/data/default/strata_metrics/")
        && "compacted".equals(f.get("kind").asText())) {
        windows++;
        assertTrue(f.toString(), f.get("age_ms").asLong() > 0);
      }
    }
    assertEquals(doc.get("files").toString(), 3, windows);
    assertEquals("upstream", doc.get("cluster").get("placement").asText());
    assertEquals(100, doc.get("workload").get("rows_read_back").asLong());
    assertTrue(doc.get("workload").get("put").get("latency_us_p50").asLong() > 0);
  }

  @Test
  public void refusesARamTierLargerThanItsFileSystem() throws Exception {
    LocalClusterConfig c = TestClusters.small("full");
    long tooBig = (c.ramDir().getParentFile().getUsableSpace() >> 20) + 1024;
    int code = StrataLocal.run(new String[] { "--work-dir", c.workDir().getPath(), "--ram-dir",
      c.ramDir().getPath(), "--ram-mb", Long.toString(tooBig), "--datanodes", "1" },
      new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    assertEquals(1, code);
    assertTrue("no RAM tier directory left behind", !c.ramDir().exists());
  }
}
