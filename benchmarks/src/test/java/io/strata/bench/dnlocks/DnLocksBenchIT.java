package io.strata.bench.dnlocks;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.strata.bench.common.LabelAssertions;
import io.strata.bench.monitor.BenchMonitor;
import io.strata.bench.monitor.MonitoringAssertions;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.Test;

/**
 * {@code strata bench dn-locks} end to end at a small size: both variants run, each in the JVM
 * its class path makes (upstream's FsDatasetImpl from hadoop-hdfs, Strata's from the overlay),
 * and the table and JSON carry every load and operation.
 */
public class DnLocksBenchIT {

  @Test
  public void runsBothVariantsAndReports() throws Exception {
    File work = new File("target/it-work/dn-locks").getAbsoluteFile();
    File json = new File(work.getParentFile(), "dn-locks.json");
    File ram = new File("/dev/shm").isDirectory()
      ? new File("/dev/shm/strata-" + System.getProperty("user.name") + "-dn-locks-it")
      : new File(work.getParentFile(), "dn-locks-ram");
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    int code = LabelAssertions.asLaunched(() -> DnLocksBench.run(new String[] { "--seconds", "3",
      "--delay-ms", "1000", "--work-dir", work.getPath(), "--ram-dir", ram.getPath(), "--json",
      json.getPath() }, new PrintStream(buf, true, StandardCharsets.UTF_8)));
    String out = buf.toString(StandardCharsets.UTF_8);
    System.out.print(out);
    assertEquals(0, code);
    assertTrue(out, out.contains("createRbw+finalizeBlock wait ms"));

    JsonNode doc = new ObjectMapper().readTree(json);
    // No HBase RPC; the DISK volume slowed by the DataNode-side hook.
    LabelAssertions.assertLabelled(doc, "none", "in-process");
    assertEquals(1000, doc.path("settings").path("delay_ms").asInt());
    // The machine monitored, each variant's load levels marked as its JVM announced them.
    JsonNode m = MonitoringAssertions.assertMonitored(doc, new File(work, BenchMonitor.PNG),
      false);
    List<String> phases = new ArrayList<>();
    m.path("phases").forEach(p -> phases.add(p.path("name").asText()));
    assertTrue(phases.toString(), phases.containsAll(List.of("upstream start", "upstream light",
      "upstream heavy", "strata start", "strata light", "strata heavy")));
    JsonNode up = doc.path("upstream");
    JsonNode strata = doc.path("strata");
    assertFalse(up.path("patched").asBoolean());
    assertTrue(up.toString(), new File(up.path("fsdataset_impl_from").asText()).getName()
      .startsWith("hadoop-hdfs-3.4.2"));
    assertTrue(strata.path("patched").asBoolean());
    assertFalse(strata.toString(), new File(strata.path("fsdataset_impl_from").asText())
      .getName().startsWith("hadoop-hdfs"));
    for (JsonNode v : List.of(up, strata)) {
      assertTrue(v.has("fast_wait_ms_p99") && v.has("fast_wait_ms_max"));
      for (String load : List.of("light", "heavy")) {
        JsonNode l = v.path("loads").path(load);
        assertEquals(l.toString(), 0, l.path("errors").asInt());
        assertTrue(l.toString(), l.path("slow_volume_delayed_ops").asLong() > 0);
        for (String op : List.of(DnLocksWorkload.CREATE_RBW, DnLocksWorkload.FINALIZE,
          DnLocksWorkload.CREATE_TEMPORARY)) {
          JsonNode o = l.path("ops").path(DnLocksWorkload.FAST).path(op);
          assertTrue(load + " " + op + ": " + o, o.path("count").asInt() > 0);
          assertTrue(o.toString(), o.path("wait_ms_max").asDouble() >= o.path("wait_ms_p99")
            .asDouble());
        }
        // Each DISK writer starts by finalizing the block it wrote before the slowdown.
        assertTrue(l.toString(), l.path("ops").path(DnLocksWorkload.SLOW)
          .path(DnLocksWorkload.FINALIZE).path("count").asInt() > 0);
      }
      assertEquals(Math.max(v.path("loads").path("light").path("fast_wait_ms_max").asDouble(),
        v.path("loads").path("heavy").path("fast_wait_ms_max").asDouble()),
        v.path("fast_wait_ms_max").asDouble(), 1e-9);
    }
    // Upstream's fast volume waits for a DISK operation (a finalizeBlock: three 1 s delays).
    assertTrue(up.toString(), up.path("fast_wait_ms_max").asDouble() >= 500);
  }

  @Test
  public void helpAndBadOptions() throws Exception {
    PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    assertEquals(0, DnLocksBench.run(new String[] { "--help" }, quiet));
    assertEquals(2, DnLocksBench.run(new String[] { "--seconds", "0" }, quiet));
    assertEquals(2, DnLocksBench.run(new String[] { "--delay-ms", "soon" }, quiet));
    assertEquals(2, DnLocksBench.run(new String[] { "--no-such-option" }, quiet));
  }
}
