package io.strata.bench.media;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.strata.bench.common.LabelAssertions;
import io.strata.local.LocalClusterConfig;
import io.strata.local.TestClusters;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.Test;

/**
 * {@code strata bench media} end to end at a tiny scale: 50G_RAM and 50G_HDD on the emulated
 * media, and the report directory they leave.
 */
public class MediaBenchIT {
  /** 4 MiB of records, a 64 MiB RAM tier, loads of at most 20 s. */
  static final MediaScale TINY =
    new MediaScale("tiny", 64, 4, 80, 2, 2, 1, 4, 4, 4, 4, 32, 20, Duration.ofMinutes(2));

  @Test
  public void runsTwoCasesAndWritesTheReport() throws Exception {
    LocalClusterConfig config = TestClusters.small("media");
    File out = new File(config.workDir(), "report");
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    int code = LabelAssertions.asLaunched(() -> MediaBench.run(config, TINY,
      MediaCases.parse("50g_hdd,50G_RAM"), out, new PrintStream(buf, true,
        StandardCharsets.UTF_8)));
    String console = buf.toString(StandardCharsets.UTF_8);
    System.out.print(console);
    assertEquals(console, 0, code);

    JsonNode doc = new ObjectMapper().readTree(new File(out, MediaReport.JSON));
    // HBase's sockets; SSD and HDD emulated in the DataNodes.
    LabelAssertions.assertLabelled(doc, "netty", "in-process");
    JsonNode cases = doc.path("cases");
    List<String> names = new ArrayList<>();
    cases.fieldNames().forEachRemaining(names::add);
    assertEquals("in the study's order", List.of("50G_RAM", "50G_HDD"), names);
    for (String name : List.of("50G_RAM", "50G_HDD")) {
      JsonNode c = cases.path(name);
      assertTrue(c.toString(), c.path("ok").asBoolean());
      long records = c.path("records").asLong();
      long target = c.path("records_target").asLong();
      assertEquals(c.toString(), TINY.records(Dataset.FITS_RAM), target);
      assertTrue(c.toString(), records > 0 && records <= target);
      assertEquals("a load cut by the time limit says so: " + c, records < target,
        c.path("load_stopped_at_time_limit").asBoolean());
      assertTrue(c.toString(), c.path("throughput_ops").asDouble() > 0);
      assertTrue(c.toString(), c.path("latency_us_avg").asDouble() > 0);
      assertTrue(c.toString(), c.path("latency_us_p99").asDouble() > 0);
      assertEquals(c.toString(), 0, c.path("inserts_failed").asLong());
      assertTrue(c.toString(), c.path("bytes_written_per_storage_type").isObject());
      // The load's resources from its monitoring: the machine worked, the RegionServer's
      // metrics were read (not missing), and the timeline is plotted per case. A tiny load lasts
      // a few seconds, two or three samples, too few to see its memstore reliably (YcsbPlusIT
      // checks the values over a longer load).
      JsonNode res = c.path("resources");
      assertTrue(res.toString(), res.path("cpu_user_pct").asDouble() > 0
        && res.path("cpu_user_pct").asDouble() <= 100);
      for (String k : List.of("memstore_mb", "memstore_mb_max", "flush_queue", "store_files")) {
        assertTrue(k + " in " + res, res.path(k).isNumber() && res.path(k).asDouble() >= 0);
      }
      assertTrue(res.toString(), res.path("gc_ms_total").asDouble() >= 0
        && res.has("loopback_mb_s") && res.has("flush_queue"));
      assertNotNull(ImageIO.read(new File(out, "cases/" + name + "/monitor.png")));
    }
    JsonNode ram = cases.path("50G_RAM");
    JsonNode hdd = cases.path("50G_HDD");
    // Three replicas of every record went through the WAL on the case's tier.
    long ramOnRam = ram.path("bytes_written_per_storage_type").path("NVDIMM").asLong();
    assertTrue(ram.toString(), ramOnRam > 2 * ram.path("records").asLong() * 1000);
    assertTrue(ram.toString(),
      ram.path("bytes_written_per_storage_type").path("DISK").asLong() < ramOnRam / 20);
    long hddOnDisk = hdd.path("bytes_written_per_storage_type").path("DISK").asLong();
    assertTrue(hdd.toString(), hddOnDisk > hdd.path("records").asLong() * 1000);
    assertEquals(hdd.toString(), 0,
      hdd.path("bytes_written_per_storage_type").path("NVDIMM").asLong());
    assertEquals(1.0, hdd.path("throughput_vs_hdd").asDouble(), 1e-9);
    assertEquals("ALL_NVDIMM", ram.path("placement_keys").path("hbase.wal.storage.policy")
      .asText());
    assertEquals("true", ram.path("placement_keys").path("strata.unsafe.wal.volatile.accept")
      .asText());
    assertEquals(1.0, ram.path("placement_at_end").path("kinds").path("wal").path("share")
      .path("NVDIMM").asDouble(), 1e-9);
    assertTrue(doc.path("findings").size() > 0);

    String md = Files.readString(new File(out, MediaReport.MARKDOWN).toPath());
    assertTrue(md, md.contains("| 50G_RAM |") && md.contains("| 50G_HDD |"));
    for (String png : List.of(MediaReport.THROUGHPUT_PNG, MediaReport.LATENCY_PNG,
      MediaReport.RELATIVE_PNG, MediaReport.WRITTEN_PNG)) {
      BufferedImage img = ImageIO.read(new File(out, png));
      assertNotNull(png + " is a readable image", img);
      assertTrue(png, img.getWidth() > 500 && img.getHeight() > 100);
      assertTrue(md, md.contains("](" + png + ")"));
    }
  }

  @Test
  public void helpAndBadOptions() throws Exception {
    PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    assertEquals(0, MediaBench.run(new String[] { "--help" }, quiet));
    assertEquals(2, MediaBench.run(new String[] { "--cases", "1T_RAM,50G_SSD" }, quiet));
    assertEquals(2, MediaBench.run(new String[] { "--scale", "huge" }, quiet));
    assertEquals(2, MediaBench.run(new String[] { "--no-such-option" }, quiet));
  }
}
