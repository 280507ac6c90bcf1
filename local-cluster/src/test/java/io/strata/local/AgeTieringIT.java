package io.strata.local;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import com.fasterxml.jackson.databind.JsonNode;
import io.strata.hbase.placement.FileKind;
import io.strata.hbase.placement.PlacedFile;
import io.strata.hbase.placement.PlacementReport;
import io.strata.hbase.placement.PlacementScanner;
import io.strata.hbase.tiering.MigrateTool;
import io.strata.hbase.tiering.TieredStoreEngine;
import io.strata.hbase.tiering.TieringKeys;
import io.strata.hbase.tiering.TieringMetrics;
import io.strata.hdfs.tiermover.TierMover;
import io.strata.hdfs.tiermover.TierMoverStatus;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.ClassRule;
import org.junit.Test;

/**
 * Aging by time on a real tiered MiniDFSCluster (NVDIMM, SSD, DISK and ARCHIVE volumes, the
 * Storage Policy Satisfier) with real HBase: a default family with {@code strata.age.threshold =
 * 1d} gets two flushed files, one of cells written with timestamps 30 days old and one of
 * current cells. Both are flushed onto ALL_SSD; the RegionServer's age chore re-places the old
 * one on the aged policy (COLD: every replica on ARCHIVE) through the satisfier, without a
 * compaction, while the new one stays on SSD. The placement report gives each file's age and the
 * rule behind its policy, the metrics count the re-placed file, and {@code strata migrate} leaves
 * the aged file on its aged policy. The validator refuses an age
 * threshold on a family whose STORAGE_POLICY pins its files, naming both.
 */
public class AgeTieringIT {
  private static final long DAY_MS = 86_400_000L;

  @ClassRule
  public static final TestClusters.Running CLUSTER = TestClusters.running(
    TestClusters.small("aging").hbase(TieringKeys.AGE_INTERVAL_MS, "1000"));

  private static void writeAndFlush(TableName table, long timestamp) throws IOException {
    EmbeddedHBase hbase = CLUSTER.hbase();
    try (Table t = hbase.connection().getTable(table)) {
      List<Put> puts = new ArrayList<>();
      for (int i = 0; i < 500; i++) {
        Put p = new Put(Bytes.toBytes(String.format("r%06d-%d", i, timestamp)));
        p.addColumn(Bytes.toBytes("f"), Bytes.toBytes("q"), timestamp, new byte[512]);
        puts.add(p);
      }
      t.put(puts);
    }
    hbase.connection().getAdmin().flush(table);
  }

  private static PlacementReport report() throws IOException {
    return new PlacementScanner(CLUSTER.dfs().fileSystem(), CLUSTER.hbase().configuration())
      .scan(CLUSTER.hbase().rootDir(), "data/default/aging");
  }

  private static List<PlacedFile> flushed(PlacementReport report) {
    List<PlacedFile> files = new ArrayList<>();
    for (PlacedFile f : report.files()) {
      if (f.kind() == FileKind.FLUSHED) {
        files.add(f);
      }
    }
    return files;
  }

  private static String policy(PlacedFile f) throws IOException {
    return CLUSTER.dfs().fileSystem().getStoragePolicy(new Path(f.path())).getName();
  }

  @Test(timeout = 300_000)
  public void oldFilesMoveToTheColdTierAndNewOnesStayOnSsd() throws Exception {
    TableName table = TableName.valueOf("aging");
    CLUSTER.hbase().connection().getAdmin().createTable(TableDescriptorBuilder.newBuilder(table)
      .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(Bytes.toBytes("f"))
        .setConfiguration(TieringKeys.AGE_THRESHOLD, "1d")
        // two flushes must stay two files: no compaction rewrites them here
        .setConfiguration("hbase.hstore.compaction.min", "10").build())
      .build());
    long now = System.currentTimeMillis();
    writeAndFlush(table, now - 30 * DAY_MS);
    writeAndFlush(table, now);
    long flushedMs = System.currentTimeMillis();

    // The chore runs every second here; the satisfier then moves the old file's blocks.
    long deadline = flushedMs + 90_000;
    PlacedFile old = null;
    PlacedFile young = null;
    while (true) {
      PlacementReport r = report();
      List<PlacedFile> files = flushed(r);
      assertEquals("two flushed files, no compaction: " + files.size(), 2, files.size());
      old = files.get(0).ageMs() > files.get(1).ageMs() ? files.get(0) : files.get(1);
      young = old == files.get(0) ? files.get(1) : files.get(0);
      if (old.replicas().keySet().equals(EnumSet.of(StorageType.ARCHIVE))) {
        break;
      }
      if (System.currentTimeMillis() > deadline) {
        fail("the store file of 30-day-old cells is still on " + old.replicas() + " (policy "
          + policy(old) + ") 90 s after its flush; aged re-placements: "
          + TieringMetrics.count("aged", "COLD", "files"));
      }
      Thread.sleep(250);
    }
    long toColdMs = System.currentTimeMillis() - flushedMs;
    System.out.println("AgeTieringIT: the 30-day-old store file reached ARCHIVE " + toColdMs
      + " ms after the flushes");

    assertEquals("COLD", policy(old));
    assertEquals("ALL_SSD", policy(young));
    assertEquals(EnumSet.of(StorageType.SSD), young.replicas().keySet());
    assertTrue(old.ageMs() + " ms", old.ageMs() >= 30 * DAY_MS);
    assertTrue(young.ageMs() + " ms", young.ageMs() < DAY_MS);
    assertTrue(TieringMetrics.count("aged", "COLD", "files") >= 1);

    // The tier mover's status shows the RegionServer's re-placement by age (its report under
    // hbase.rootdir, read at most every few seconds): one file handed over, none pending.
    TierMover tierMover = CLUSTER.dfs().tierMover();
    assertNotNull("the test cluster runs a tier mover", tierMover);
    long statusDeadline = System.currentTimeMillis() + 30_000;
    TierMoverStatus.Aging aging = tierMover.status().aging();
    while (aging.replacedFiles() < 1 || aging.pendingFiles() != 0) {
      if (System.currentTimeMillis() > statusDeadline) {
        fail("the tier mover's status does not show the re-placement by age 30 s after the file "
          + "reached ARCHIVE: " + aging + "; status line: " + tierMover.status());
      }
      Thread.sleep(500);
      aging = tierMover.status().aging();
    }
    assertEquals(aging.toString(), 1, aging.sources());
    assertEquals(aging.toString(), 0, aging.stale());
    assertEquals(aging.toString(), 0, aging.failures());
    assertTrue(aging.toString(), aging.replacedBytes() >= old.bytes());
    JsonNode status = tierMover.status().toJson();
    assertTrue(status.toString(), status.get("aging").get("replaced_files").asLong() >= 1);
    assertTrue(tierMover.status().toString(), tierMover.status().toString().contains(
      "re-placed by age, 0 (0 bytes) pending"));

    // The report: each file's age and rule, the family's engine and age rule.
    JsonNode json = report().toJson(true);
    JsonNode family = json.get("families").get("aging/f");
    assertEquals(TieredStoreEngine.class.getName(), family.get("engine").asText());
    assertEquals(DAY_MS, family.get("age_threshold_ms").asLong());
    assertEquals("COLD", family.get("aged").get("policy").asText());
    int seen = 0;
    for (JsonNode f : json.get("files")) {
      if (!"flushed".equals(f.get("kind").asText())) {
        continue;
      }
      seen++;
      String rule = f.get("rule").asText();
      if (f.get("path").asText().equals(old.path())) {
        assertTrue(f.toString(), f.get("age_ms").asLong() >= 30 * DAY_MS);
        assertEquals(f.toString(), "COLD", f.get("policy").asText());
        assertTrue(f.toString(), rule.startsWith("age: newest cell ")
          && rule.contains("family strata.age.threshold = 1d"));
      } else {
        assertTrue(f.toString(), f.get("age_ms").asLong() < DAY_MS);
        assertEquals(f.toString(), "ALL_SSD", f.get("policy").asText());
        assertEquals(f.toString(), "Strata default", rule);
      }
    }
    assertEquals(2, seen);

    // strata migrate re-pins by the same rules: the aged file is not taken back to ALL_SSD.
    ByteArrayOutputStream console = new ByteArrayOutputStream();
    int code = MigrateTool.migrate(CLUSTER.hbase().configuration(), "aging", null, null,
      null, 60, false, new PrintStream(console, true, StandardCharsets.UTF_8));
    String out = console.toString(StandardCharsets.UTF_8);
    assertEquals(out, 0, code);
    assertTrue(out, out.contains("aging: 0 files to move, 2 already in place"));
    assertEquals("COLD", policy(old));
  }

  @Test(timeout = 120_000)
  public void ageThresholdOnAFamilyPinnedByStoragePolicyIsRefused() throws Exception {
    Admin admin = CLUSTER.hbase().connection().getAdmin();
    try {
      admin.createTable(TableDescriptorBuilder.newBuilder(TableName.valueOf("pinned"))
        .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(Bytes.toBytes("f"))
          .setStoragePolicy("ONE_SSD")
          .setConfiguration(TieringKeys.AGE_THRESHOLD, "7d").build())
        .build());
      fail("a family age threshold under the family's STORAGE_POLICY was accepted");
    } catch (IOException e) {
      String m = e.getMessage();
      assertTrue(m, m.contains("Table pinned rejected: family 'f': family strata.age.threshold "
        + "= 7d"));
      assertTrue(m, m.contains("family STORAGE_POLICY = ONE_SSD"));
    }
  }
}
