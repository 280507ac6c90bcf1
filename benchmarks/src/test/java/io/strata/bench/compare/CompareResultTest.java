package io.strata.bench.compare;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.strata.bench.common.BenchJson;
import java.io.File;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.Test;

/**
 * The JSON {@code strata bench compare --json} writes: exactly the field names the issue asks
 * for, the medians of the runs, and Strata's ratios.
 */
public class CompareResultTest {
  /** Three runs per configuration, Strata twice as fast as stock with half its p99. */
  private static Map<String, Map<String, List<CompareResult.Run>>> runs(double scale) {
    Map<String, Map<String, List<CompareResult.Run>>> byWorkload = new LinkedHashMap<>();
    for (String w : CompareResult.WORKLOADS) {
      Map<String, List<CompareResult.Run>> byConfig = new LinkedHashMap<>();
      byConfig.put("stock", List.of(run(1, 100, 1000), run(2, 90, 1200), run(3, 110, 800)));
      byConfig.put("tuned", List.of(run(1, 160, 900), run(2, 150, 600), run(3, 140, 700)));
      byConfig.put("strata", List.of(run(1, 200 * scale, 500), run(2, 150, 400),
        run(3, 250, 600)));
      byWorkload.put(w, byConfig);
    }
    return byWorkload;
  }

  private static CompareResult.Run run(int rep, double ops, double p99) {
    return new CompareResult.Run(rep, ops, p99 / 4, p99, p99 * 2);
  }

  private static CompareResult result() {
    ObjectMapper m = new ObjectMapper();
    return new CompareResult("abc123", "2026-11-28T06:00:00Z", "netty", "blkio",
      m.createObjectNode().put("skipped", "test"), CompareResult.workloads(runs(1)),
      CompareResult.workloads(runs(1)));
  }

  private static List<String> fields(JsonNode n) {
    List<String> names = new ArrayList<>();
    for (Iterator<String> it = n.fieldNames(); it.hasNext();) {
      names.add(it.next());
    }
    return names;
  }

  @Test
  public void jsonHasExactlyTheNamedFields() throws Exception {
    File f = Files.createTempFile("compare", ".json").toFile();
    BenchJson.write(f, result());
    JsonNode doc = new ObjectMapper().readTree(f);
    assertEquals(List.of("commit", "date", "transport", "emulation", "probe", "workloads",
      "workloads_hsync"), fields(doc));
    assertEquals("blkio", doc.get("emulation").asText());
    assertEquals("netty", doc.get("transport").asText());
    for (String mode : List.of("workloads", "workloads_hsync")) {
      JsonNode ws = doc.get(mode);
      assertEquals(List.of("load", "a", "b", "c", "e", "f"), fields(ws));
      for (String w : CompareResult.WORKLOADS) {
        JsonNode wl = ws.get(w);
        assertEquals(List.of("stock", "tuned", "strata", "strata_vs_stock", "strata_vs_tuned"),
          fields(wl));
        for (String c : CompareResult.CONFIGS) {
          assertEquals(mode + "/" + w + "/" + c, List.of("ops_per_s", "p50_us", "p99_us",
            "p999_us", "runs"), fields(wl.get(c)));
          assertEquals(3, wl.get(c).get("runs").size());
          assertEquals(List.of("rep", "ops_per_s", "p50_us", "p99_us", "p999_us"),
            fields(wl.get(c).get("runs").get(0)));
        }
        for (String r : List.of("strata_vs_stock", "strata_vs_tuned")) {
          assertEquals(List.of("ops_per_s", "p99_us"), fields(wl.get(r)));
        }
      }
    }
    // Read back into the record: no field it does not know.
    CompareResult back = BenchJson.read(f, CompareResult.class);
    assertEquals(result().workloads(), back.workloads());
  }

  @Test
  public void mediansAndRatios() {
    CompareResult.Workload a = result().workloads().get("a");
    assertEquals(100.0, a.stock().opsPerS(), 0);
    assertEquals(1000.0, a.stock().p99Us(), 0);
    assertEquals(250.0, a.stock().p50Us(), 0);
    assertEquals(2000.0, a.stock().p999Us(), 0);
    assertEquals(150.0, a.tuned().opsPerS(), 0);
    assertEquals(700.0, a.tuned().p99Us(), 0);
    assertEquals(200.0, a.strata().opsPerS(), 0);
    assertEquals(500.0, a.strata().p99Us(), 0);
    assertEquals(2.0, a.strataVsStock().opsPerS(), 0);
    assertEquals(0.5, a.strataVsStock().p99Us(), 0);
    assertEquals(1.333, a.strataVsTuned().opsPerS(), 0);
    assertEquals(0.714, a.strataVsTuned().p99Us(), 0);
    assertEquals(0.2, a.stock().opsSpread(), 1e-12);
    assertEquals(0.5, a.strata().opsSpread(), 1e-12);
  }

  @Test
  public void aMissingConfigurationOrWorkloadIsRefusedByName() {
    Map<String, Map<String, List<CompareResult.Run>>> r = runs(1);
    r.get("c").put("tuned", List.of());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
      () -> CompareResult.workloads(r));
    assertTrue(e.getMessage(), e.getMessage().contains("c") && e.getMessage().contains("tuned"));
    Map<String, Map<String, List<CompareResult.Run>>> noE = runs(1);
    noE.remove("e");
    e = assertThrows(IllegalArgumentException.class, () -> CompareResult.workloads(noE));
    assertTrue(e.getMessage(), e.getMessage().contains("workload e"));
  }

  @Test
  public void reportHasBothModesAndTheRatios() {
    String md = CompareResult.markdown(result());
    assertTrue(md, md.contains("### WAL hflush") && md.contains("### WAL hsync"));
    assertTrue(md, md.contains("| a | strata | 200 | 50% | 125 | 500 |"));
    assertTrue(md, md.contains("| a | 2.00 | 0.50 | 1.33 | 0.71 |"));
  }
}
