package io.strata.local;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.strata.hbase.placement.FileKind;
import io.strata.hbase.placement.KindStats;
import io.strata.hbase.placement.PlacedFile;
import io.strata.hbase.placement.PlacementReport;
import io.strata.hbase.placement.PlacementScanner;
import io.strata.hbase.tiering.TieredDateTieredStoreEngine;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.EnumMap;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.junit.Test;

/**
 * The embedded cluster with HBase on the tiered HDFS and Strata's placement runs the demo: the
 * placement report sees every kind of file, each on its tier (live WAL one replica on NVDIMM and
 * two on SSD, oldWAL on DISK, flushed on SSD, small compaction on SSD, large on DISK, archived on
 * ARCHIVE), and no row is lost; the time-series family's files sit on three tiers by age (its
 * cold window's on ARCHIVE, the warm one's on SSD and DISK, the hot one's on SSD).
 */
public class EmbeddedClusterDemoIT {

  private static void assertOnlyOn(PlacementReport report, FileKind kind, StorageType type) {
    KindStats s = report.kind(kind);
    assertTrue(kind + " has replicas", s.totalReplicas() > 0);
    assertEquals(kind + " " + s.replicas(), 1.0, s.share(type), 0.0);
  }

  @Test
  public void demoLeavesEveryKindOfFileAndNoRowIsLost() throws Exception {
    try (TieredDfsCluster dfs = TieredDfsCluster.start(TestClusters.small("demo"));
      EmbeddedHBase hbase = EmbeddedHBase.start(dfs)) {
      PlacementDemo.Outcome outcome =
        new PlacementDemo(hbase, new PrintStream(System.out), 8L << 20, 1024, 100, 200, "4m").run();
      assertEquals(outcome.reads.calls(), outcome.rowsReadBack);

      long scanned = 0;
      try (Table t = hbase.connection().getTable(PlacementDemo.TABLE);
        ResultScanner s = t.getScanner(new Scan())) {
        for (Result r : s) {
          scanned++;
        }
      }
      assertEquals(outcome.rows, scanned);

      PlacementReport report =
        new PlacementScanner(dfs.fileSystem(), hbase.configuration()).scan(hbase.rootDir());
      System.out.print(report.toTable());
      for (FileKind kind : new FileKind[] { FileKind.WAL, FileKind.OLDWAL, FileKind.FLUSHED,
        FileKind.COMPACTED, FileKind.ARCHIVED }) {
        assertTrue(kind + " files expected:\n" + report.toTable(),
          report.kind(kind).files() > 0);
      }
      // The demo table's family ends with the major-compacted file and the tail's flush.
      Map<FileKind, Integer> demoFiles = new EnumMap<>(FileKind.class);
      for (PlacedFile f : report.files()) {
        if (f.path().startsWith("/hbase/data/default/strata_demo/") && !f.path().contains("/.")
          && !f.path().contains("recovered.edits")) {
          demoFiles.merge(f.kind(), 1, Integer::sum);
        }
        // every block of a closed, non-empty file has its 3 replicas
        if (f.bytes() > 0 && f.kind() != FileKind.WAL) {
          long replicas = f.replicas().values().stream().mapToLong(Long::longValue).sum();
          assertTrue(f.path() + " " + f.replicas(), replicas > 0 && replicas % 3 == 0);
        }
      }
      // one compacted and one flushed file per family ('d' and 's')
      assertEquals(Map.of(FileKind.COMPACTED, 2, FileKind.FLUSHED, 2), demoFiles);
      // Strata's placement (strata-tiering-site.xml): live WALs on RAM_SSD, one replica on the
      // RAM tier and two on SSD; each other kind on its tier, all replicas.
      KindStats wal = report.kind(FileKind.WAL);
      assertTrue("WAL has replicas", wal.totalReplicas() > 0);
      assertEquals("WAL " + wal.replicas(), 1.0 / 3, wal.share(StorageType.NVDIMM), 1e-9);
      assertEquals("WAL " + wal.replicas(), 2.0 / 3, wal.share(StorageType.SSD), 1e-9);
      assertOnlyOn(report, FileKind.OLDWAL, StorageType.DISK);
      assertOnlyOn(report, FileKind.FLUSHED, StorageType.SSD);
      assertOnlyOn(report, FileKind.ARCHIVED, StorageType.ARCHIVE);
      // the small family's major compaction is below the demo's threshold, the large one's not
      for (PlacedFile f : report.files()) {
        if (f.kind() == FileKind.COMPACTED && f.path().contains("/strata_demo/")) {
          StorageType want = f.path().contains("/s/") ? StorageType.SSD : StorageType.DISK;
          assertEquals(f.path(), Set.of(want), f.replicas().keySet());
        }
      }
      assertTrue(outcome.placementLagSeconds < 60);

      // The time-series family: one major-compacted file per time window, on three tiers by
      // age (cold on ARCHIVE, warm on SSD and DISK, hot on SSD), each by its window's rule.
      String timeSeries = PlacementDemo.timeSeriesTable(report);
      System.out.print(timeSeries);
      assertEquals(TieredDateTieredStoreEngine.class.getName(),
        report.familyEngines().get("strata_metrics/m"));
      List<PlacedFile> ts = PlacementDemo.timeSeriesFiles(report);
      ts.sort((a, b) -> Long.compare(b.ageMs(), a.ageMs()));
      List<String> tiers = new ArrayList<>();
      for (PlacedFile f : ts) {
        tiers.add(f.kind().jsonName() + " " + f.replicas().keySet() + " " + f.rule().policy()
          + " " + f.rule().rule().replaceAll("^(date-tiered window \\w+) .*", "$1"));
      }
      assertEquals(timeSeries, List.of(
        "compacted [ARCHIVE] COLD date-tiered window cold",
        "compacted [SSD, DISK] ONE_SSD date-tiered window warm",
        "compacted [SSD] ALL_SSD date-tiered window hot"), tiers);
      assertTrue(timeSeries, ts.get(0).ageMs() >= 30 * 86_400_000L
        && ts.get(1).ageMs() >= 3 * 86_400_000L && ts.get(1).ageMs() < 4 * 86_400_000L
        && ts.get(2).ageMs() < 3_600_000L);
    }
  }
}
