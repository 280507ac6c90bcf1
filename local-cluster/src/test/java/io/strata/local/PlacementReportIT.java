package io.strata.local;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.strata.hbase.placement.FileKind;
import io.strata.hbase.placement.KindStats;
import io.strata.hbase.placement.PlacementReport;
import io.strata.hbase.placement.PlacementScanner;
import java.io.IOException;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.io.hfile.CacheConfig;
import org.apache.hadoop.hbase.io.hfile.HFile;
import org.apache.hadoop.hbase.io.hfile.HFileContextBuilder;
import org.apache.hadoop.hbase.regionserver.HStoreFile;
import org.apache.hadoop.hbase.shaded.protobuf.ProtobufUtil;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * The placement report against files written with known storage policies on the tiered HDFS:
 * every replica must be counted on the storage type its policy puts it on, every file in its kind.
 */
public class PlacementReportIT {
  private static final long BLOCK = 1L << 20;
  private static final String REGION = "d4a5c9e2f0b1c3d5e7f9a1b3c5d7e9f1";

  private static TieredDfsCluster cluster;
  private static DistributedFileSystem fs;
  private static PlacementReport report;
  private static long openWalBytes;

  @BeforeClass
  public static void writeFilesAndScan() throws Exception {
    cluster = TieredDfsCluster.start(TestClusters.small("report").blockSizeBytes(BLOCK)
      .startSatisfier(false));
    fs = cluster.fileSystem();
    Path root = new Path("/hbase");
    Path wals = new Path(root, "WALs/rs1,16020,1");
    Path oldWals = new Path(root, "oldWALs");
    Path region = new Path(root, "data/default/t1/" + REGION);
    Path ssdFamily = new Path(region, "ssd");
    Path mixedFamily = new Path(region, "mixed");
    Path edits = new Path(region, "recovered.edits");
    Path archive = new Path(root, "archive/data/default/t1/" + REGION + "/ssd");
    for (Path dir : new Path[] { wals, oldWals, ssdFamily, mixedFamily, edits, archive }) {
      fs.mkdirs(dir);
    }
    fs.setStoragePolicy(wals, "ALL_NVDIMM");
    fs.setStoragePolicy(edits, "ALL_NVDIMM");
    fs.setStoragePolicy(oldWals, "HOT");
    fs.setStoragePolicy(ssdFamily, "ALL_SSD");
    fs.setStoragePolicy(mixedFamily, "ONE_SSD");
    fs.setStoragePolicy(archive, "COLD");

    write(new Path(wals, "rs1%2C16020%2C1.1"), BLOCK + BLOCK / 2); // 2 blocks, closed
    write(new Path(oldWals, "rs1%2C16020%2C1.0"), 3 * BLOCK); // 3 blocks
    write(new Path(edits, "0000000000000000012"), 1000); // 1 block
    writeHFile(new Path(ssdFamily, hfileName()), false, Set.of()); // flushed
    writeHFile(new Path(mixedFamily, hfileName()), false, Set.of("x", "y")); // minor compaction
    writeHFile(new Path(mixedFamily, hfileName()), true, Set.of("z")); // major compaction
    writeHFile(new Path(archive, hfileName()), true, Set.of("w")); // archived
    write(new Path(region, ".regioninfo"), 100); // other, default policy (HOT)

    // A live WAL: open, one block under construction, data hflushed but not closed.
    FSDataOutputStream open = fs.create(new Path(wals, "rs1%2C16020%2C1.2"));
    byte[] data = new byte[4096];
    open.write(data);
    open.hflush();
    openWalBytes = data.length;
    try {
      report = new PlacementScanner(fs, cluster.configuration()).scan(root);
    } finally {
      open.close();
    }
  }

  @AfterClass
  public static void shutdown() throws IOException {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static String hfileName() {
    return UUID.randomUUID().toString().replace("-", "");
  }

  private static void write(Path path, long bytes) throws IOException {
    try (FSDataOutputStream out = fs.create(path)) {
      byte[] chunk = new byte[64 * 1024];
      for (long left = bytes; left > 0; left -= chunk.length) {
        out.write(chunk, 0, (int) Math.min(chunk.length, left));
      }
    }
  }

  /** A real HFile with the file info HBase's flusher or compactor writes. */
  private static void writeHFile(Path path, boolean major, Set<String> compactedFrom)
    throws IOException {
    Configuration conf = cluster.configuration();
    HFile.Writer w = HFile.getWriterFactory(conf, CacheConfig.DISABLED).withPath(fs, path)
      .withFileContext(new HFileContextBuilder().withBlockSize(64 * 1024).build()).create();
    try {
      for (int i = 0; i < 100; i++) {
        w.append(new KeyValue(Bytes.toBytes(String.format("row%05d", i)), Bytes.toBytes("f"),
          Bytes.toBytes("q"), new byte[100]));
      }
      w.appendFileInfo(HStoreFile.MAX_SEQ_ID_KEY, Bytes.toBytes(1L));
      w.appendFileInfo(HStoreFile.MAJOR_COMPACTION_KEY, Bytes.toBytes(major));
      w.appendFileInfo(HStoreFile.COMPACTION_EVENT_KEY,
        ProtobufUtil.toCompactionEventTrackerBytes(compactedFrom));
    } finally {
      w.close();
    }
  }

  private static void assertKind(FileKind kind, long files, Map<StorageType, Long> replicas) {
    KindStats s = report.kind(kind);
    assertEquals(kind + " files", files, s.files());
    assertEquals(kind + " replicas", replicas, s.replicas());
  }

  @Test
  public void walsAndRecoveredEditsOnNvdimm() {
    // 2 blocks closed WAL + 1 block open WAL + 1 block recovered.edits, 3 replicas each
    assertKind(FileKind.WAL, 3, Map.of(StorageType.NVDIMM, 12L));
    assertEquals(BLOCK + BLOCK / 2 + 1000 + openWalBytes, report.kind(FileKind.WAL).bytes());
  }

  @Test
  public void oldWalsOnDisk() {
    assertKind(FileKind.OLDWAL, 1, Map.of(StorageType.DISK, 9L));
    assertEquals(3 * BLOCK, report.kind(FileKind.OLDWAL).bytes());
  }

  @Test
  public void flushedFileToldFromItsFileInfo() {
    assertKind(FileKind.FLUSHED, 1, Map.of(StorageType.SSD, 3L));
  }

  @Test
  public void compactedFilesOnOneSsd() {
    // ONE_SSD: one replica on SSD, two on DISK, for each of the two single-block files
    assertKind(FileKind.COMPACTED, 2, Map.of(StorageType.SSD, 2L, StorageType.DISK, 4L));
  }

  @Test
  public void archivedFileOnArchive() {
    assertKind(FileKind.ARCHIVED, 1, Map.of(StorageType.ARCHIVE, 3L));
  }

  @Test
  public void otherFiles() {
    assertKind(FileKind.OTHER, 1, Map.of(StorageType.DISK, 3L));
    assertEquals(100, report.kind(FileKind.OTHER).bytes());
  }

  @Test
  public void jsonCarriesTheSameCounts() {
    var kinds = report.toJson().get("kinds");
    assertEquals(12, kinds.get("wal").get("replicas").get("NVDIMM").asLong());
    assertEquals(3, kinds.get("archived").get("replicas").get("ARCHIVE").asLong());
    assertEquals(1.0, kinds.get("flushed").get("share").get("SSD").asDouble(), 0);
    assertTrue(kinds.get("compacted").get("bytes").asLong() > 0);
  }
}
