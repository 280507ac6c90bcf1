package io.strata.bench.media;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.fs.StorageType;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * The SSD-count cases of the storage-media paper (its Figures 4 and 5): naming, option parsing
 * and validation, and their report section, on given figures (no cluster).
 *
 * <p>The storage-media paper: <i>Optimize Hadoop Cluster Performance with Various Storage Media</i>.
 */
public class SsdScalingTest {
  private static final long STUDY = SsdSetup.STUDY_CONTROLLER_BYTES_PER_SECOND;

  @Rule
  public TemporaryFolder tmp = new TemporaryFolder();

  @Test
  public void casesAreNamedAsInTheStudyAndGroupedByVolumeCount() {
    List<MediaCase> cases = MediaCases.ssdScaling(List.of(4, 8), List.of(0L, STUDY));
    assertEquals(List.of("50G_4SSD", "50G_4SSD_cap1536", "50G_8SSD", "50G_8SSD_cap1536"),
      cases.stream().map(MediaCase::name).toList());
    MediaCase base = MediaCases.byName("50G_SSD").orElseThrow();
    for (MediaCase c : cases) {
      assertEquals(c.name(), base.hbaseKeys(1), c.hbaseKeys(1));
      assertEquals(Dataset.FITS_RAM, c.dataset());
      assertTrue(c.allOn(Medium.SSD));
    }
    assertEquals(new SsdSetup(8, STUDY), cases.get(3).ssd());
    assertTrue(cases.get(3).study(), cases.get(3).study().contains("1536 MB/s"));
    assertEquals("Table 1's cases keep one SSD volume, no cap", SsdSetup.ONE_VOLUME,
      base.ssd());
    assertEquals("50G_2SSD_cap500", MediaCases.ssdScaling(List.of(2), List.of(500_000_000L))
      .get(0).name());
  }

  @Test
  public void theStudyCapBindsOnFourAndEightSsdsNotOnThree() {
    // 1536 MB/s is about 3.4 SSDs of 446 MB/s.
    assertFalse(new SsdSetup(3, STUDY).capBinds());
    assertTrue(new SsdSetup(4, STUDY).capBinds());
    assertTrue(new SsdSetup(8, STUDY).capBinds());
    assertFalse(new SsdSetup(8, 0).capBinds());
    assertEquals(1536, new SsdSetup(8, STUDY).controllerMegabytesPerSecond());
  }

  @Test
  public void parsesVolumeCountsAndRejectsBadOnes() {
    assertEquals(List.of(4, 8), SsdSetup.parseVolumes(" 4,8,4 "));
    assertEquals("the order given is the order they run in", List.of(16, 1),
      SsdSetup.parseVolumes("16,1"));
    for (String bad : List.of("0", "17", "-4", "four", "4.5", " , ")) {
      try {
        SsdSetup.parseVolumes(bad);
        fail(bad);
      } catch (IllegalArgumentException e) {
        assertTrue(e.getMessage(), e.getMessage().startsWith("--ssd-volumes: "));
      }
    }
  }

  @Test
  public void parsesControllerCapsAndRejectsBadOnes() {
    assertEquals(List.of(0L, STUDY), SsdSetup.parseCaps("none, Study"));
    assertEquals("1536 MB/s is the study's cap, once", List.of(STUDY, 0L),
      SsdSetup.parseCaps("1536,none,study"));
    assertEquals(List.of(800_000_000L), SsdSetup.parseCaps("800"));
    for (String bad : List.of("0", "-1", "fast", "1.5GB", ",")) {
      try {
        SsdSetup.parseCaps(bad);
        fail(bad);
      } catch (IllegalArgumentException e) {
        assertTrue(e.getMessage(), e.getMessage().startsWith("--controller-cap: "));
      }
    }
    try {
      new SsdSetup(0, 0);
      fail();
    } catch (IllegalArgumentException expected) {
      // a DataNode has at least one SSD volume
    }
  }

  @Test
  public void optionsThatDoNotGoTogetherAreRefused() throws Exception {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    PrintStream oldErr = System.err;
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      assertEquals(2, MediaBench.run(new String[] { "--ssd-volumes", "4,8", "--cases",
        "50G_SSD" }, quiet));
      assertEquals(2, MediaBench.run(new String[] { "--controller-cap", "study" }, quiet));
      assertEquals(2, MediaBench.run(new String[] { "--ssd-volumes", "99" }, quiet));
    } finally {
      System.setErr(oldErr);
    }
    String messages = err.toString(StandardCharsets.UTF_8);
    assertTrue(messages, messages.contains("drop --cases"));
    assertTrue(messages, messages.contains("add --ssd-volumes"));
    assertTrue(messages, messages.contains("99 is out of range"));
  }

  private static CaseResult result(MediaCase c, double ops, double avgUs, double p99Us) {
    return new CaseResult(c, 1000, 1000, ops, avgUs, p99Us, 0, 10, 20,
      Map.of(StorageType.SSD, 300_000_000L), null, null, Map.of());
  }

  @Test
  public void theFewestSsdsAreTheBaselineWhateverOrderTheyRanIn() {
    List<MediaCase> cases = MediaCases.ssdScaling(List.of(8, 4), List.of(STUDY, 0L));
    assertEquals(List.of("50G_8SSD_cap1536", "50G_8SSD", "50G_4SSD_cap1536", "50G_4SSD"),
      cases.stream().map(MediaCase::name).toList());
    SsdScaling s = new SsdScaling(List.of(result(cases.get(0), 1040, 790, 1),
      result(cases.get(1), 1100, 800, 1), result(cases.get(2), 1000, 1000, 1),
      result(cases.get(3), 1000, 1000, 1)));
    assertEquals(List.of(4, 8), s.volumeCounts());
    assertEquals(List.of("50G_8SSD_cap1536 vs 50G_4SSD_cap1536", "50G_8SSD vs 50G_4SSD"),
      s.comparisons().stream().map(SsdScaling.Comparison::label).toList());
    assertEquals(1.04, s.comparisons().get(0).throughputRatio(), 1e-9);
  }

  @Test
  public void comparesEachCountWithTheFewestUnderTheSameCapAndReportsTheStudy()
    throws Exception {
    List<MediaCase> cases = MediaCases.ssdScaling(List.of(4, 8), List.of(0L, STUDY));
    List<CaseResult> results = List.of(result(cases.get(0), 1000, 5000, 100_000),
      result(cases.get(1), 900, 6000, 120_000), result(cases.get(2), 1500, 4000, 80_000),
      result(cases.get(3), 936, 4740, 120_000));
    SsdScaling s = new SsdScaling(results);
    assertEquals(List.of(4, 8), s.volumeCounts());
    assertEquals(List.of(0L, STUDY), s.caps());
    assertEquals(2, s.comparisons().size());
    SsdScaling.Comparison none = s.comparisons().get(0);
    assertEquals("50G_8SSD vs 50G_4SSD", none.label());
    assertEquals(1.5, none.throughputRatio(), 1e-9);
    assertEquals(0.8, none.latencyAvgRatio(), 1e-9);
    assertFalse(none.littleGain());
    SsdScaling.Comparison capped = s.comparisons().get(1);
    assertEquals("50G_8SSD_cap1536 vs 50G_4SSD_cap1536", capped.label());
    assertEquals(1.04, capped.throughputRatio(), 1e-9);
    assertTrue(capped.littleGain());

    File dir = tmp.newFolder("report");
    MediaBench.Settings settings = new MediaBench.Settings(MediaScale.QUICK, cases, dir, dir, 3,
      dir, true);
    MediaReport report = new MediaReport(settings, results);
    assertTrue("Table 1's findings are not about these cases", report.findings().isEmpty());
    report.write(dir);
    // The same document the bench wrote for these cases before its JSON was a record (but for
    // the temporary directory).
    ObjectNode before = (ObjectNode) new ObjectMapper().readTree(
      MediaResultJsonTest.resource("media-scaling-before.json"));
    ((ObjectNode) before.path("settings")).put("ram_tier_dir", dir.getPath());
    assertEquals(before.toString(),
      new ObjectMapper().readTree(new File(dir, MediaReport.JSON)).toString());
    JsonNode scaling = new ObjectMapper().readTree(new File(dir, MediaReport.JSON))
      .path("ssd_scaling");
    assertEquals("[4,8]", scaling.path("ssd_volumes_per_datanode").toString());
    assertEquals(4, scaling.path("cases").size());
    JsonNode row = scaling.path("cases").get(3);
    assertEquals("50G_8SSD_cap1536", row.path("case").asText());
    assertEquals(STUDY, row.path("controller_cap_bytes_per_s").asLong());
    assertTrue(scaling.path("cases").get(0).path("controller_cap_bytes_per_s").isNull());
    assertEquals(10e6, row.path("ssd_write_bytes_per_s_per_datanode").asDouble(), 1);
    assertEquals(1.04, scaling.path("comparisons").get(1).path("throughput_ratio").asDouble(),
      1e-9);
    assertEquals(1.04, scaling.path("study").path("throughput_ratio_8_vs_4").asDouble(), 1e-9);
    assertEquals(0.79, scaling.path("study").path("latency_ratio_8_vs_4").asDouble(), 1e-9);
    // The study's Table 8 tuning every case ran with is in the report, not only in the bench.
    JsonNode doc = new ObjectMapper().readTree(new File(dir, MediaReport.JSON));
    assertEquals("multiwal", doc.path("settings").path("study_tuning").path("hbase")
      .path("hbase.wal.provider").asText());
    assertEquals("64", doc.path("settings").path("study_tuning").path("hdfs")
      .path("dfs.datanode.handler.count").asText());
    assertEquals("15", doc.path("cases").path("50G_4SSD").path("tuning")
      .path("hbase.hstore.flusher.count").asText());
    String md = Files.readString(new File(dir, MediaReport.MARKDOWN).toPath());
    assertTrue(md, md.contains("Every case runs the study's tuning (its Table 8): "
      + "`hbase.hstore.blockingStoreFiles=15`"));
    assertTrue(md, md.contains("`hbase.wal.regiongrouping.numgroups=4`"));
    assertFalse(md, md.contains("upstream's default provider"));
    assertTrue(md, md.contains("| 50G_8SSD_cap1536 | 8 | 1,536 MB/s | 936 |"));
    assertTrue(md, md.contains("| study: 50G_8SSD vs 50G_4SSD |"));
    assertTrue(md, md.contains("](" + MediaReport.SSD_SCALING_PNG + ")"));
    assertFalse("no all-HDD case to compare with", md.contains(MediaReport.RELATIVE_PNG));
    assertTrue(new File(dir, MediaReport.SSD_SCALING_PNG).length() > 0);
  }
}
