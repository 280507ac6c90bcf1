package io.strata.bench.monitor;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.strata.bench.common.BenchJson;
import java.io.File;
import java.util.List;
import java.util.Map;
import org.junit.Test;

/**
 * The {@code monitoring} section as a record keeps the JSON the monitor wrote node by node: the
 * kept sections (benchmarks/results/compare-quick/monitoring.json, and those of the benches'
 * JSON written before their Results were records) read into {@link Monitoring} (a field it does
 * not have refused) and written back are the same document; the report's line is rendered from
 * the record.
 */
public class MonitoringJsonTest {
  private static final ObjectMapper PLAIN = new ObjectMapper();

  private static JsonNode section(File f) throws Exception {
    return PLAIN.readTree(f).path(BenchMonitor.SECTION);
  }

  private static File resource(String path) throws Exception {
    return new File(MonitoringJsonTest.class.getResource(path).toURI());
  }

  @Test
  public void keptSectionsReadIntoTheRecordAndWriteBackTheSame() throws Exception {
    List<File> kept = List.of(new File("results/compare-quick/monitoring.json"),
      resource("/io/strata/bench/pcm/pcm-before.json"),
      resource("/io/strata/bench/rpc/rpc-loopback-results.json"),
      resource("/io/strata/bench/dnlocks/dn-locks-before.json"),
      resource("/io/strata/bench/writetail/write-tail-before.json"));
    for (File f : kept) {
      JsonNode section = section(f);
      assertTrue(f + " has no monitoring section", section.isObject());
      Monitoring m = BenchJson.convert(section, Monitoring.class);
      // As parsed text on both sides: numbers keep their kind, JSON nulls stay.
      assertEquals(f.toString(), section, PLAIN.readTree(BenchJson.tree(m).toString()));
      String md = BenchMonitor.markdown(m);
      // (A section cut short in a fixture may lack its samples: none counted.)
      assertTrue(md, md.startsWith("## Monitoring") && md.contains(String.format(
        "one sample every %d ms (%d samples, %d phases", m.intervalMs(),
        m.tS() == null ? 0 : m.tS().size(), m.phases() == null ? 0 : m.phases().size())));
      assertEquals(md, BenchMonitor.markdown(PLAIN.readTree(f)));
    }
  }

  @Test
  public void aTimelinesRecordIsWhatItsJsonHolds() throws Exception {
    Timeline t = new Timeline(0.5, new double[] { 0.5, 1.0004 },
      Map.of("cpu_user_pct", new double[] { 10, Double.NaN }),
      List.of(new Timeline.Phase("run", 0, 1)), Map.of("proc", 1));
    Monitoring m = t.monitoring();
    assertEquals(500, m.intervalMs());
    assertEquals(List.of(0.5, 1.0), m.tS());
    assertEquals(java.util.Arrays.asList(10.0, null), m.series().get("cpu_user_pct"));
    assertEquals(10.0, m.phases().get(0).means().get("cpu_user_pct"), 0);
    ObjectNode json = PLAIN.createObjectNode();
    t.toJson(json);
    assertEquals(json, BenchJson.tree(m));
    assertTrue(BenchMonitor.markdown(m).contains("1 proc samples missing (gaps)"));
  }

  @Test
  public void aMisspeltFieldIsRefused() throws Exception {
    JsonNode section = PLAIN.readTree("{\"interval_ms\": 1000, \"t_s\": [], \"series\": {}, "
      + "\"phases\": [{\"name\": \"a\", \"start_s\": 0, \"end_s\": 1, \"mean\": {}}]}");
    try {
      BenchJson.convert(section, Monitoring.class);
      throw new AssertionError("mean was read");
    } catch (IllegalArgumentException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("\"mean\""));
    }
  }
}
