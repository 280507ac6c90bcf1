package io.strata.local;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.strata.hbase.placement.FileKind;
import io.strata.hbase.placement.KindStats;
import io.strata.hbase.placement.PlacementReport;
import io.strata.hbase.placement.PlacedFile;
import io.strata.hbase.placement.PlacementScanner;
import io.strata.hbase.placement.PolicyRule;
import io.strata.hbase.tiering.TieringKeys;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.FSTableDescriptors;
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
  /** The scan of table t2, whose descriptor sets policies at every level of the precedence. */
  private static PlacementReport rulesReport;
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

    // t2: one family per rule of the precedence, the descriptor written where the master does.
    TableDescriptor t2 = TableDescriptorBuilder.newBuilder(TableName.valueOf("t2"))
      .setValue(TieringKeys.ARCHIVE_POLICY, "ALL_SSD")
      .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(Bytes.toBytes("strata"))
        .setValue(TieringKeys.FLUSH_POLICY, "ONE_SSD")
        .setStoragePolicy("ALL_SSD").build())
      .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(Bytes.toBytes("upstream"))
        .setStoragePolicy("ONE_SSD").build())
      .setColumnFamily(ColumnFamilyDescriptorBuilder.of("plain")).build();
    Path t2Dir = new Path(root, "data/default/t2");
    FSTableDescriptors.createTableDescriptorForTableDirectory(fs, t2Dir, t2, false);
    for (String family : new String[] { "strata", "upstream", "plain" }) {
      Path dir = new Path(t2Dir, REGION + "/" + family);
      fs.mkdirs(dir);
      writeHFile(new Path(dir, hfileName()), false, Set.of()); // flushed
    }
    writeHFile(new Path(t2Dir, REGION + "/plain/" + hfileName()), true, Set.of("a")); // compacted
    Path t2Archive = new Path(root, "archive/data/default/t2/" + REGION + "/plain");
    fs.mkdirs(t2Archive);
    writeHFile(new Path(t2Archive, hfileName()), true, Set.of("b"));
    Configuration conf = new Configuration(cluster.configuration());
    conf.set(TieringKeys.COMPACTION_LARGE_POLICY, "COLD"); // a site value, not a default
    rulesReport = new PlacementScanner(fs, conf)
      .scan(root, "data/default/t2", "archive/data/default/t2");
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

  private static PolicyRule ruleOf(FileKind kind, String familyDir) {
    List<PolicyRule> rules = rulesReport.files().stream()
      .filter(f -> f.kind() == kind && f.path().contains("/" + familyDir + "/"))
      .map(PlacedFile::rule).collect(Collectors.toList());
    assertEquals(kind + " files in " + familyDir, 1, rules.size());
    return rules.get(0);
  }

  @Test
  public void eachFileNamesTheRuleThatChoseItsPolicy() {
    // A strata key on the family wins over the family's upstream STORAGE_POLICY.
    assertEquals(new PolicyRule("ONE_SSD", "family " + TieringKeys.FLUSH_POLICY),
      ruleOf(FileKind.FLUSHED, "strata"));
    // Upstream's explicit per-family policy wins over Strata's defaults.
    assertEquals(new PolicyRule("ONE_SSD", "family STORAGE_POLICY"),
      ruleOf(FileKind.FLUSHED, "upstream"));
    // Nothing set: Strata's default.
    assertEquals(new PolicyRule(TieringKeys.FLUSH_POLICY_DEFAULT, "Strata default"),
      ruleOf(FileKind.FLUSHED, "plain"));
    // A small compacted file: the small-compaction rule, its size against the threshold named.
    PolicyRule compacted = ruleOf(FileKind.COMPACTED, "plain");
    assertEquals(TieringKeys.COMPACTION_SMALL_POLICY_DEFAULT, compacted.policy());
    assertTrue(compacted.rule(), compacted.rule().startsWith("Strata default; file size < "));
    // The table's strata key places the archived file.
    assertEquals(new PolicyRule("ALL_SSD", "table " + TieringKeys.ARCHIVE_POLICY),
      ruleOf(FileKind.ARCHIVED, "plain"));
  }

  @Test
  public void familyPoliciesInTheTableAndJson() {
    assertEquals(Set.of("t2/plain", "t2/strata", "t2/upstream"),
      rulesReport.familyPolicies().keySet().stream().map(k -> k.replace("default:", ""))
        .collect(Collectors.toSet()));
    String table = rulesReport.policiesTable();
    assertTrue(table, table.contains("site " + TieringKeys.COMPACTION_LARGE_POLICY));
    var json = rulesReport.toJson(true);
    var plain = json.get("families").get("t2/plain");
    assertEquals("site " + TieringKeys.COMPACTION_LARGE_POLICY,
      plain.get("compacted_large").get("rule").asText());
    assertEquals("COLD", plain.get("compacted_large").get("policy").asText());
    assertEquals(6, json.get("files").size()); // 5 store files and the .tableinfo
    for (var f : json.get("files")) {
      boolean placed = !"other".equals(f.get("kind").asText());
      assertEquals(f.toString(), placed, f.has("rule") && f.has("policy"));
    }
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
