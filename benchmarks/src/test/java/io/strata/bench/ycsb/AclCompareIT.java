package io.strata.bench.ycsb;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.strata.bench.monitor.BenchMonitor;
import io.strata.bench.monitor.MonitoringAssertions;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.imageio.ImageIO;
import org.junit.Test;

/**
 * {@code strata bench ycsb --acl-compare} end to end at a small size: two HBase on one HDFS,
 * without and with the AccessController; every run of every variant loads every row (the
 * baseline once next to each protected variant) and scans rows with
 * all their fields; with the AccessController a user without grants is refused, the table's
 * grants read back, and a user named only in the cells' ACLs reads a row's fields; without it the
 * same user's put goes through. The JSON fields and the plot. Timing is not asserted.
 */
public class AclCompareIT {
  private static final int RECORDS = 1500;

  @Test
  public void measuresEveryVariantWithTheAclsInEffect() throws Exception {
    File work = new File("target/it-work/ycsb-acl-" + UUID.randomUUID().toString().substring(0, 8));
    File json = new File(work, "acl.json");
    File out = new File(work, "plots");
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    int code = YcsbBench.run(new String[] { "--acl-compare", "--records", Integer.toString(RECORDS),
      "--threads", "2", "--regions", "2", "--rounds", "1", "--acl-entries", "4,11",
      "--acl-scan-length", "300", "--ram-mb", "512",
      "--work-dir", new File(work, "cluster").getPath(), "--out", out.getPath(),
      "--json", json.getPath() }, new PrintStream(buf, true, StandardCharsets.UTF_8));
    String text = buf.toString(StandardCharsets.UTF_8);
    System.out.print(text);
    assertEquals(text, 0, code);

    JsonNode acl = new ObjectMapper().readTree(json).path("acl");
    assertEquals(acl.toString(), AclComparison.USER, acl.path("user").asText());
    assertEquals(RECORDS, acl.path("records").asLong());
    JsonNode variants = acl.path("variants");
    List<String> names = new ArrayList<>();
    for (JsonNode v : variants) {
      names.add(v.path("level").asText() + "/" + v.path("entries").asInt());
    }
    assertEquals(List.of("none/0", "table/4", "table/11", "cell/4", "cell/11"), names);
    for (JsonNode v : variants) {
      String where = v.path("level").asText() + "/" + v.path("entries").asInt();
      for (String f : List.of("insert_ops_per_s", "scan_rows_per_s", "insert_ratio",
        "scan_ratio")) {
        assertTrue(where + " " + f + " in " + v, v.path(f).asDouble() > 0);
      }
      boolean baseline = "none".equals(v.path("level").asText());
      // one baseline run next to each of the four protected variants
      assertEquals(where, baseline ? 4 : 1, v.path("per_round").size());
      for (JsonNode round : v.path("per_round")) {
        // every insert landed (the bench counts the table's rows) and the scans read rows
        assertEquals(where, RECORDS, round.path("rows").asLong());
        assertTrue(where, round.path("scanned_rows").asLong() >= RECORDS);
        assertEquals(where + " " + round, !baseline,
          round.path("baseline_insert_ops_per_s").asDouble() > 0);
      }
      JsonNode proof = v.path("proof");
      boolean protectedVariant = !"none".equals(v.path("level").asText());
      assertEquals(where, protectedVariant, v.path("access_controller").asBoolean());
      if (!protectedVariant) {
        // no AccessController: a user without grants writes like any other
        assertFalse(where + " " + proof, proof.path("outsider_put_denied").asBoolean());
        assertEquals(1.0, v.path("insert_ratio").asDouble(), 1e-9);
        continue;
      }
      assertTrue(where + " " + proof, proof.path("outsider_put_denied").asBoolean());
      assertTrue(where + " " + proof, proof.path("outsider_scan_denied").asBoolean()
        || proof.path("outsider_scan_rows").asLong() == 0);
      if ("table".equals(v.path("level").asText())) {
        // the N grants on the table, read back from hbase:acl
        assertEquals(where, v.path("entries").asInt(), proof.path("table_grants").asInt());
        assertTrue(where + " " + proof, proof.path("outsider_scan_denied").asBoolean());
      } else {
        // only the inserting user's write grant on the table; the reads come from the cells'
        // ACLs: the last user named there, with no grant at all, reads all 10 fields of a row
        assertEquals(where, 1, proof.path("table_grants").asInt());
        assertEquals(where + " " + proof, 10, proof.path("cell_reader_cells").asInt());
        assertEquals(where + " " + proof, 0, proof.path("outsider_scan_rows").asLong());
      }
    }
    assertTrue(text, text.contains("YCSB++ (IcyTable, cell ACLs, 1 client): inserts -24 %"));

    File png = new File(out, YcsbPlots.ACL_PNG);
    BufferedImage image = ImageIO.read(png);
    assertTrue(png + " is not a PNG", image != null && image.getWidth() > 100
      && image.getHeight() > 100);

    // Monitored throughout, following the cluster each step ran on: both were read.
    JsonNode m = MonitoringAssertions.assertMonitored(new ObjectMapper().readTree(json),
      new File(out, BenchMonitor.PNG), true);
    assertTrue(m.path("phases").toString(), MonitoringAssertions.measuredIn(m, "plain ",
      "memstore_mb") && MonitoringAssertions.measuredIn(m, "acl ", "memstore_mb"));
  }
}
