package io.strata.bench.walsync;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
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
 * {@code strata bench wal-sync} at a tiny size: the three policies' lines, where their replicas
 * were (ALL_NVDIMM all NVDIMM, RAM_SSD one NVDIMM to two SSD, ALL_SSD all SSD), the verdict on
 * each, and the JSON.
 */
public class WalSyncBenchIT {

  @Test(timeout = 600_000)
  public void measuresEachPolicyAndSaysWhatARebootLeaves() throws Exception {
    String id = UUID.randomUUID().toString().substring(0, 8);
    File work = new File("target/it-work/wal-sync-" + id);
    File json = new File(work, "wal-sync.json");
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    int code = WalSyncBench.run(new String[] { "--syncs", "60", "--warmup", "5", "--rounds", "2",
      "--work-dir", work.getPath(), "--ram-dir", "/dev/shm/strata-it-wal-sync-" + id, "--json",
      json.getPath() }, new PrintStream(buf, true, StandardCharsets.UTF_8));
    String out = buf.toString(StandardCharsets.UTF_8);
    System.out.print(out);
    assertEquals(out, 0, code);
    assertTrue(out, out.contains("LOST on tmpfs"));
    assertFalse("every block where its policy puts it: " + out, out.contains("note: "));
    JsonNode doc = new ObjectMapper().readTree(json);
    JsonNode policies = doc.get("policies");
    assertEquals(3, policies.size());
    JsonNode nvdimm = policies.get(0);
    JsonNode ramSsd = policies.get(1);
    JsonNode ssd = policies.get(2);
    assertEquals("ALL_NVDIMM", nvdimm.get("policy").asText());
    assertFalse(nvdimm.get("durable_across_reboot").asBoolean());
    assertEquals(1, nvdimm.get("replicas").size());
    assertTrue(nvdimm.toString(), nvdimm.get("replicas").get("NVDIMM").asInt() > 0);
    assertEquals("RAM_SSD", ramSsd.get("policy").asText());
    assertTrue(ramSsd.get("durable_across_reboot").asBoolean());
    assertEquals(ramSsd.toString(), 2 * ramSsd.get("replicas").get("NVDIMM").asInt(),
      ramSsd.get("replicas").get("SSD").asInt());
    assertTrue(ssd.get("durable_across_reboot").asBoolean());
    assertEquals(1, ssd.get("replicas").size());
    for (JsonNode p : policies) {
      for (String sync : new String[] { "hflush_us", "hsync_us" }) {
        JsonNode l = p.get(sync);
        assertTrue(p.toString(), l.get("p50").asLong() > 0
          && l.get("p50").asLong() <= l.get("p99").asLong()
          && l.get("p99").asLong() <= l.get("p999").asLong());
      }
    }
  }
}
