package io.strata.local;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.strata.hbase.placement.FileKind;
import io.strata.hbase.placement.PlacedFile;
import io.strata.hbase.placement.PlacementReport;
import io.strata.hbase.placement.PlacementScanner;
import io.strata.hbase.tiering.MigrateTool;
import io.strata.hbase.tiering.TieringKeys;
import io.strata.hbase.tiering.TieringMetrics;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.regionserver.HStore;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.io.hfile.CacheConfig;
import org.apache.hadoop.hbase.io.hfile.HFile;
import org.apache.hadoop.hbase.io.hfile.HFileContextBuilder;
import org.apache.hadoop.hbase.regionserver.HStoreFile;
import org.apache.hadoop.hbase.tool.BulkLoadHFiles;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.Test;

/**
 * Strata's placement keys per column family on a real cluster: two families of one table placed
 * apart, an {@code alter} that changes where new files go without a restart, unknown policies
 * rejected at create and alter time, bulk-loaded files on their own policy, and the
 * RegionServer's placement counters.
 */
public class TieredPlacementIT {
  private static TieredDfsCluster dfs;
  private static EmbeddedHBase hbase;

  @ClassRule
  public static final TestClusters.Running CLUSTER =
    TestClusters.running(TestClusters.small("tiering"));

  @BeforeClass
  public static void start() {
    dfs = CLUSTER.dfs();
    hbase = CLUSTER.hbase();
  }

  private static ColumnFamilyDescriptor family(String name, String key, String value) {
    ColumnFamilyDescriptorBuilder b = ColumnFamilyDescriptorBuilder.newBuilder(Bytes.toBytes(name));
    if (key != null) {
      b.setConfiguration(key, value);
    }
    return b.build();
  }

  private static void writeAndFlush(TableName table, String... families) throws IOException {
    try (Table t = hbase.connection().getTable(table)) {
      List<Put> puts = new ArrayList<>();
      for (int i = 0; i < 500; i++) {
        Put p = new Put(Bytes.toBytes(String.format("r%06d-%d", i, System.nanoTime())));
        for (String f : families) {
          p.addColumn(Bytes.toBytes(f), Bytes.toBytes("q"), new byte[512]);
        }
        puts.add(p);
      }
      t.put(puts);
    }
    hbase.connection().getAdmin().flush(table);
  }

  /** Storage types of the replicas of each flushed file of one family, file by file. */
  private static List<Set<StorageType>> flushedFiles(TableName table, String family)
    throws IOException {
    List<Set<StorageType>> files = new ArrayList<>();
    for (PlacedFile f : files(table, family, FileKind.FLUSHED)) {
      files.add(f.replicas().isEmpty() ? EnumSet.noneOf(StorageType.class)
        : EnumSet.copyOf(f.replicas().keySet()));
    }
    return files;
  }

  /** The files of one kind of one family of a table (not archived ones). */
  private static List<PlacedFile> files(TableName table, String family, FileKind kind)
    throws IOException {
    List<PlacedFile> files = new ArrayList<>();
    String prefix = "/hbase/data/default/" + table.getNameAsString() + "/";
    for (PlacedFile f : new PlacementScanner(dfs.fileSystem(), hbase.configuration())
      .scan(hbase.rootDir()).files()) {
      if (f.kind() == kind && f.path().startsWith(prefix)
        && f.path().contains("/" + family + "/")) {
        files.add(f);
      }
    }
    return files;
  }

  /** The storage policy HDFS reports (own or inherited) for each file of one kind of a family. */
  private static List<String> policies(TableName table, String family, FileKind kind)
    throws IOException {
    List<String> names = new ArrayList<>();
    for (PlacedFile f : files(table, family, kind)) {
      names.add(dfs.fileSystem().getStoragePolicy(new Path(f.path())).getName());
    }
    return names;
  }

  /** The storage policy HDFS reports for the family directory of the table's only region. */
  private static String familyDirPolicy(TableName table, String family) throws IOException {
    Path tableDir = new Path("/hbase/data/default/" + table.getNameAsString());
    for (FileStatus region : dfs.fileSystem().listStatus(tableDir)) {
      Path familyDir = new Path(region.getPath(), family);
      if (region.isDirectory() && dfs.fileSystem().exists(familyDir)) {
        return dfs.fileSystem().getStoragePolicy(familyDir).getName();
      }
    }
    throw new AssertionError("no family directory " + family + " under " + tableDir);
  }

  private static ColumnFamilyDescriptorBuilder withStoragePolicy(String name, String policy) {
    return ColumnFamilyDescriptorBuilder.newBuilder(Bytes.toBytes(name)).setStoragePolicy(policy);
  }

  /**
   * Precedence: a family's upstream STORAGE_POLICY (or hbase.hstore.block.storage.policy) wins
   * over Strata's default policies for flushed and compacted files; a strata.* key on the family
   * or on the table wins over it.
   */
  @Test
  public void upstreamFamilyPolicyWinsOverStrataDefaultsAndStrataKeysWinOverIt()
    throws Exception {
    Admin admin = hbase.connection().getAdmin();
    TableName table = TableName.valueOf("upstream_policy");
    admin.createTable(TableDescriptorBuilder.newBuilder(table)
      .setColumnFamily(withStoragePolicy("up", "ONE_SSD").build())
      .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(Bytes.toBytes("upkey"))
        .setValue(HStore.BLOCK_STORAGE_POLICY_KEY, "ONE_SSD").build())
      .setColumnFamily(withStoragePolicy("strata", "ONE_SSD")
        .setConfiguration(TieringKeys.FLUSH_POLICY, "COLD").build())
      .build());
    TableName tableKey = TableName.valueOf("upstream_policy_table_key");
    admin.createTable(TableDescriptorBuilder.newBuilder(tableKey)
      .setValue(TieringKeys.FLUSH_POLICY, "HOT")
      .setColumnFamily(withStoragePolicy("up", "ONE_SSD").build()).build());

    writeAndFlush(table, "up", "upkey", "strata");
    writeAndFlush(tableKey, "up");

    // ONE_SSD with three replicas: one on SSD, two on DISK
    Set<StorageType> oneSsd = EnumSet.of(StorageType.SSD, StorageType.DISK);
    assertEquals("ONE_SSD", familyDirPolicy(table, "up"));
    assertEquals(List.of("ONE_SSD"), policies(table, "up", FileKind.FLUSHED));
    assertEquals(List.of(oneSsd), flushedFiles(table, "up"));
    assertEquals(List.of("ONE_SSD"), policies(table, "upkey", FileKind.FLUSHED));
    assertEquals(List.of(oneSsd), flushedFiles(table, "upkey"));
    // strata.flush.storage.policy on the family wins over its STORAGE_POLICY for flushed files;
    // the family directory keeps the upstream policy
    assertEquals("ONE_SSD", familyDirPolicy(table, "strata"));
    assertEquals(List.of("COLD"), policies(table, "strata", FileKind.FLUSHED));
    assertEquals(List.of(EnumSet.of(StorageType.ARCHIVE)), flushedFiles(table, "strata"));
    // ... and so does strata.flush.storage.policy on the table
    assertEquals(List.of("HOT"), policies(tableKey, "up", FileKind.FLUSHED));
    assertEquals(List.of(EnumSet.of(StorageType.DISK)), flushedFiles(tableKey, "up"));

    // A compaction of a family with an upstream policy keeps it (Strata's default: ALL_SSD).
    writeAndFlush(table, "up");
    admin.majorCompact(table, Bytes.toBytes("up"));
    long deadline = System.currentTimeMillis() + 60_000;
    while (files(table, "up", FileKind.COMPACTED).size() != 1
      || !files(table, "up", FileKind.FLUSHED).isEmpty()) {
      assertTrue("the major compaction of 'up' did not finish within 60 s",
        System.currentTimeMillis() < deadline);
      Thread.sleep(200);
    }
    assertEquals(List.of("ONE_SSD"), policies(table, "up", FileKind.COMPACTED));
    assertEquals(List.of(oneSsd), files(table, "up", FileKind.COMPACTED).stream()
      .map(f -> EnumSet.copyOf(f.replicas().keySet())).collect(Collectors.toList()));
  }

  @Test
  public void twoFamiliesOfOneTableArePlacedApart() throws IOException {
    TableName table = TableName.valueOf("two_families");
    hbase.connection().getAdmin().createTable(TableDescriptorBuilder.newBuilder(table)
      .setColumnFamily(family("fast", null, null))
      .setColumnFamily(family("cold", TieringKeys.FLUSH_POLICY, "COLD")).build());
    writeAndFlush(table, "fast", "cold");
    assertEquals(List.of(EnumSet.of(StorageType.SSD)), flushedFiles(table, "fast"));
    assertEquals(List.of(EnumSet.of(StorageType.ARCHIVE)), flushedFiles(table, "cold"));
    assertTrue(TieringMetrics.count("flushed", "ALL_SSD", "files") > 0);
    assertTrue(TieringMetrics.count("flushed", "COLD", "bytes") > 0);
  }

  @Test
  public void alterChangesWhereNewFilesGo() throws IOException {
    TableName table = TableName.valueOf("flipped");
    Admin admin = hbase.connection().getAdmin();
    admin.createTable(TableDescriptorBuilder.newBuilder(table)
      .setColumnFamily(family("f", null, null)).build());
    writeAndFlush(table, "f");
    assertEquals(List.of(EnumSet.of(StorageType.SSD)), flushedFiles(table, "f"));

    admin.modifyColumnFamily(table, family("f", TieringKeys.FLUSH_POLICY, "HOT"));
    writeAndFlush(table, "f");
    List<Set<StorageType>> files = flushedFiles(table, "f");
    assertEquals(files.toString(), 2, files.size());
    assertTrue(files.toString(), files.contains(EnumSet.of(StorageType.SSD)));
    assertTrue(files.toString(), files.contains(EnumSet.of(StorageType.DISK)));
  }

  @Test
  public void migrateMovesExistingFilesToTheNewPolicy() throws Exception {
    TableName table = TableName.valueOf("migrated");
    Admin admin = hbase.connection().getAdmin();
    admin.createTable(TableDescriptorBuilder.newBuilder(table)
      .setColumnFamily(family("f", null, null)).setColumnFamily(family("g", null, null)).build());
    writeAndFlush(table, "f", "g");
    writeAndFlush(table, "f", "g");
    admin.modifyColumnFamily(table, family("f", TieringKeys.FLUSH_POLICY, "HOT"));
    assertEquals(List.of(EnumSet.of(StorageType.SSD), EnumSet.of(StorageType.SSD)),
      flushedFiles(table, "f"));

    ByteArrayOutputStream console = new ByteArrayOutputStream();
    int code = MigrateTool.migrate(hbase.configuration(), table.getNameAsString(), "f", null,
      null, 60, false,
      new PrintStream(console, true, StandardCharsets.UTF_8));
    String out = console.toString(StandardCharsets.UTF_8);
    assertEquals(out, 0, code);
    assertTrue(out, out.contains("2 files to move") && out.contains("moved 2/2 files"));
    assertEquals(List.of(EnumSet.of(StorageType.DISK), EnumSet.of(StorageType.DISK)),
      flushedFiles(table, "f"));
    // the other family was not touched
    assertEquals(List.of(EnumSet.of(StorageType.SSD), EnumSet.of(StorageType.SSD)),
      flushedFiles(table, "g"));
  }

  @Test
  public void unknownPolicyIsRejectedAtCreateAndAlter() throws IOException {
    Admin admin = hbase.connection().getAdmin();
    TableName table = TableName.valueOf("typo");
    try {
      admin.createTable(TableDescriptorBuilder.newBuilder(table)
        .setColumnFamily(family("f", TieringKeys.ARCHIVE_POLICY, "ALL_TAPE")).build());
      fail("a table with an unknown archive policy was created");
    } catch (DoNotRetryIOException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("strata.archive.storage.policy = "
        + "'ALL_TAPE' is not a storage policy of this HDFS; valid: "));
      assertTrue(e.getMessage(), e.getMessage().contains("ALL_NVDIMM"));
    }
    assertTrue(!admin.tableExists(table));

    admin.createTable(TableDescriptorBuilder.newBuilder(table)
      .setColumnFamily(family("f", null, null)).build());
    try {
      admin.modifyColumnFamily(table, family("f", TieringKeys.FLUSH_POLICY, "SSD"));
      fail("alter to an unknown flush policy was accepted");
    } catch (DoNotRetryIOException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("strata.flush.storage.policy = 'SSD'"));
    }
    assertEquals(null, admin.getDescriptor(table).getColumnFamily(Bytes.toBytes("f"))
      .getConfigurationValue(TieringKeys.FLUSH_POLICY));
  }

  /**
   * HFiles handed to a table by {@code BulkLoadHFiles} are written wherever the loading tool
   * writes (here the staging directory's default, DISK); the engine pins the bulk-load policy on
   * them when the region adds them and their blocks move there; the placement report counts them
   * as their own kind.
   */
  @Test
  public void bulkLoadedFilesGoToTheBulkLoadPolicyAndAreReportedAsTheirKind() throws Exception {
    TableName table = TableName.valueOf("bulk_loaded");
    hbase.connection().getAdmin().createTable(TableDescriptorBuilder.newBuilder(table)
      .setColumnFamily(family("bl", TieringKeys.BULKLOAD_POLICY, "COLD")).build());
    Path staging = new Path("/bulk-staging/" + table.getNameAsString());
    Path file = new Path(new Path(staging, "bl"), "part-0");
    try (HFile.Writer w = HFile.getWriterFactory(hbase.configuration(),
      new CacheConfig(hbase.configuration())).withPath(dfs.fileSystem(), file)
      .withFileContext(new HFileContextBuilder().build()).create()) {
      for (int i = 0; i < 500; i++) {
        w.append(new KeyValue(Bytes.toBytes(String.format("r%06d", i)), Bytes.toBytes("bl"),
          Bytes.toBytes("q"), 1L, new byte[512]));
      }
      w.appendFileInfo(HStoreFile.BULKLOAD_TIME_KEY, Bytes.toBytes(System.currentTimeMillis()));
    }
    assertEquals(Set.of(StorageType.DISK), storageTypes(file));

    assertTrue("the bulk load loaded nothing",
      !BulkLoadHFiles.create(hbase.configuration()).bulkLoad(table, staging).isEmpty());

    long deadline = System.currentTimeMillis() + 60_000;
    List<PlacedFile> loaded = files(table, "bl", FileKind.BULKLOADED);
    while (loaded.size() != 1
      || !EnumSet.of(StorageType.ARCHIVE).equals(EnumSet.copyOf(replicaTypes(loaded.get(0))))) {
      assertTrue("the bulk-loaded file did not reach ARCHIVE within 60 s: " + loaded,
        System.currentTimeMillis() < deadline);
      Thread.sleep(250);
      loaded = files(table, "bl", FileKind.BULKLOADED);
    }
    assertEquals(List.of("COLD"), policies(table, "bl", FileKind.BULKLOADED));
    assertEquals(500, hbase.connection().getTable(table).getScanner(Bytes.toBytes("bl"))
      .next(1000).length);
    PlacementReport report =
      new PlacementScanner(dfs.fileSystem(), hbase.configuration()).scan(hbase.rootDir());
    assertTrue("the report counts no bulk-loaded file",
      report.kind(FileKind.BULKLOADED).files() >= 1);
    assertTrue(TieringMetrics.count("bulkloaded", "COLD", "files") >= 1);
  }

  private static Set<StorageType> replicaTypes(PlacedFile f) {
    return f.replicas().isEmpty() ? EnumSet.noneOf(StorageType.class)
      : EnumSet.copyOf(f.replicas().keySet());
  }

  private static Set<StorageType> storageTypes(Path file) throws IOException {
    Set<StorageType> types = EnumSet.noneOf(StorageType.class);
    for (org.apache.hadoop.fs.BlockLocation b : dfs.fileSystem()
      .getFileBlockLocations(file, 0, Long.MAX_VALUE)) {
      for (StorageType t : b.getStorageTypes()) {
        types.add(t);
      }
    }
    return types;
  }
}
