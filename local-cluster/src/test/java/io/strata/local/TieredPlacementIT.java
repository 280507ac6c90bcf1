package io.strata.local;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.strata.hbase.placement.FileKind;
import io.strata.hbase.placement.PlacedFile;
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
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.Test;

/**
 * Strata's placement keys per column family on a real cluster: two families of one table placed
 * apart, an {@code alter} that changes where new files go without a restart, unknown policies
 * rejected at create and alter time, and the RegionServer's placement counters.
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
    String prefix = "/hbase/data/default/" + table.getNameAsString() + "/";
    for (PlacedFile f : new PlacementScanner(dfs.fileSystem(), hbase.configuration())
      .scan(hbase.rootDir()).files()) {
      if (f.kind() == FileKind.FLUSHED && f.path().startsWith(prefix)
        && f.path().contains("/" + family + "/")) {
        files.add(f.replicas().isEmpty() ? EnumSet.noneOf(StorageType.class)
          : EnumSet.copyOf(f.replicas().keySet()));
      }
    }
    return files;
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
    int code = MigrateTool.run(new String[] { "--table", table.getNameAsString(), "--family", "f",
      "--timeout", "60" }, hbase.configuration(),
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
}
