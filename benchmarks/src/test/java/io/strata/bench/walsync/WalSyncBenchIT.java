package io.strata.bench.walsync;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.strata.bench.common.LabelAssertions;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import org.junit.Test;

/**
 * {@code strata bench wal-sync} at a tiny size: every policy and sync mode measured, the JSON's
 * fields as documented, and each policy's replicas where the policy puts them, read back from the
 * NameNode: ALL_NVDIMM all on the RAM tier, Strata's RAM_SSD one RAM replica and two SSD ones.
 */
public class WalSyncBenchIT {

  @Test
  public void measuresEveryPolicyAndModeAndSaysWhereTheReplicasWere() throws Exception {
    File work = new File("target/it-work/wal-sync").getAbsoluteFile();
    File out = new File(work.getParentFile(), "wal-sync-report");
    File ram = new File("/dev/shm").isDirectory()
      ? new File("/dev/shm/strata-" + System.getProperty("user.name") + "-wal-sync-it")
      : new File(work.getParentFile(), "wal-sync-ram");
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    int code = LabelAssertions.asLaunched(() -> WalSyncBench.run(new String[] { "--entries",
      "40", "--rounds", "2", "--work-dir", work.getPath(), "--ram-dir", ram.getPath(), "--out",
      out.getPath() }, new PrintStream(buf, true, StandardCharsets.UTF_8)));
    String text = buf.toString(StandardCharsets.UTF_8);
    System.out.print(text);
    assertEquals(0, code);

    JsonNode doc = new ObjectMapper().readTree(new File(out, "results.json"));
    for (String f : new String[] { "command", "durability" }) {
      assertTrue(f + " in " + doc, doc.has(f));
    }
    // No HBase RPC; the volumes are this machine's disk and tmpfs.
    LabelAssertions.assertLabelled(doc, "none", "none");
    for (String p : WalSyncBench.POLICIES) {
      for (String m : WalSyncBench.MODES) {
        JsonNode c = doc.path("policies").path(p).path(m);
        assertEquals(p + " " + m, 80, c.path("ops").asLong());
        assertTrue(p + " " + m + " " + c, c.path("p50_us").asLong() > 0
          && c.path("p50_us").asLong() <= c.path("p99_us").asLong()
          && c.path("p99_us").asLong() <= c.path("p999_us").asLong());
        assertEquals(c.toString(), 2, c.path("round_p50_us").size());
        assertTrue(p + " " + m + " not placed by its policy: " + c, c.path("as_policy")
          .asBoolean());
      }
    }
    JsonNode allRam = doc.path("policies").path("ALL_NVDIMM").path("hflush").path("replicas");
    assertEquals(allRam.toString(), 1, allRam.size());
    assertTrue(allRam.toString(), allRam.path("NVDIMM").asLong() > 0);
    JsonNode ramSsd = doc.path("policies").path("RAM_SSD").path("hsync").path("replicas");
    assertEquals(ramSsd.toString(), 2 * ramSsd.path("NVDIMM").asLong(),
      ramSsd.path("SSD").asLong());
    assertTrue(ramSsd.toString(), ramSsd.path("NVDIMM").asLong() > 0);
    JsonNode hot = doc.path("policies").path("HOT").path("hflush").path("replicas");
    assertTrue(hot.toString(), hot.path("DISK").asLong() > 0 && hot.size() == 1);
    String md = Files.readString(new File(out, "report.md").toPath());
    assertTrue(md, md.contains("| RAM_SSD | hsync |") && md.contains("survives"));
  }
}
