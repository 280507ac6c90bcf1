package io.strata.local;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import io.strata.hbase.placement.FileKind;
import io.strata.hbase.placement.PlacedFile;
import io.strata.hbase.placement.PlacementScanner;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.regionserver.HRegionServer;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.BlockStoragePolicy;
import org.apache.hadoop.hdfs.protocol.HdfsConstants;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;
import org.junit.After;
import org.junit.Test;

/**
 * A region opens and serves while the NameNode does not answer storage-policy calls (as during a
 * failover), and the files it flushed meanwhile get their policy, and their blocks the policy's
 * tier, once the NameNode answers again, also when their region moved to another RegionServer or
 * their RegionServer stopped meanwhile. HBase runs on a real tiered HDFS through
 * {@link PolicyOutageFileSystem}, whose storage-policy calls fail while the outage is on.
 */
public class PlacementOutageIT {
  private static final byte[] F = Bytes.toBytes("f");

  /** Threads of Strata's placement machinery: the RegionServer's queue and the stores' timer. */
  private static final String PLACEMENT_THREADS = "strata-placement-";

  @After
  public void endOutage() {
    PolicyOutageFileSystem.outage(false);
    PolicyOutageFileSystem.clearCalls();
  }

  /** The cluster's HBase reaches HDFS through the outage wrapper; the test's client does not. */
  private static DistributedFileSystem routeHBaseThroughOutage(LocalClusterConfig config,
    TieredDfsCluster dfs) throws IOException {
    // The test's own client (plain HDFS) is cached under the cluster's URI before HBase starts;
    // HBase reaches the same NameNode under another authority, through the outage wrapper.
    DistributedFileSystem plain = dfs.fileSystem();
    URI uri = dfs.uri();
    String host = "localhost".equals(uri.getHost()) ? "127.0.0.1" : "localhost";
    String hbaseFs = "hdfs://" + host + ":" + uri.getPort();
    config.hbase("fs.hdfs.impl", PolicyOutageFileSystem.class.getName())
      .hbase("fs.defaultFS", hbaseFs).hbase(HConstants.HBASE_DIR, hbaseFs + "/hbase");
    return plain;
  }

  /**
   * A file flushed while the NameNode does not answer, whose region then moves to another
   * RegionServer before it answers again, ends on its tier; the flushes make no drain calls:
   * every pin of a committed file is made by Strata's placement threads.
   */
  @Test(timeout = 400_000)
  public void fileFlushedDuringAnOutageIsPlacedAfterItsRegionMoves() throws Exception {
    LocalClusterConfig config = TestClusters.small("policy-outage-move").regionServers(2);
    try (TieredDfsCluster dfs = TieredDfsCluster.start(config)) {
      DistributedFileSystem plain = routeHBaseThroughOutage(config, dfs);
      try (EmbeddedHBase hbase = EmbeddedHBase.start(dfs)) {
        Admin admin = hbase.connection().getAdmin();
        TableName table = TableName.valueOf("outage_move");
        admin.createTable(TableDescriptorBuilder.newBuilder(table)
          .setColumnFamily(ColumnFamilyDescriptorBuilder.of(F)).build());
        byte allSsd = policyId(plain, "ALL_SSD");

        PolicyOutageFileSystem.outage(true);
        put(hbase, table, "a");
        admin.flush(table); // its pin fails: the store defers
        put(hbase, table, "b");
        int before = PolicyOutageFileSystem.calls().size();
        admin.flush(table);
        List<PolicyOutageFileSystem.Call> duringFlush =
          PolicyOutageFileSystem.calls().subList(before, PolicyOutageFileSystem.calls().size());
        assertTrue("a flush of a deferred store makes no storage-policy call: " + duringFlush,
          duringFlush.stream().allMatch(c -> c.thread.startsWith(PLACEMENT_THREADS)));
        Map<String, Byte> during = flushedFilePolicies(plain, hbase, table);
        assertEquals(during.toString(), 2, during.size());
        for (Byte p : during.values()) {
          assertEquals("no policy can be pinned during the outage: " + during,
            Byte.valueOf(HdfsConstants.BLOCK_STORAGE_POLICY_ID_UNSPECIFIED), p);
        }

        // The region moves to the other RegionServer while the NameNode still does not answer.
        RegionInfo region = admin.getRegions(table).get(0);
        int from = serverOf(hbase, table);
        HRegionServer to = hbase.regionServer(1 - from);
        admin.move(region.getEncodedNameAsBytes(), to.getServerName());
        long moveDeadline = System.currentTimeMillis() + 120_000;
        while (to.getRegions(table).isEmpty() && System.currentTimeMillis() < moveDeadline) {
          Thread.sleep(200);
        }
        assertFalse("region moved to " + to.getServerName(), to.getRegions(table).isEmpty());
        assertRowsReadBack(hbase, table, "a", "b");

        PolicyOutageFileSystem.outage(false);
        awaitFlushedFilesOnSsd(plain, hbase, table, allSsd, 2);
        // Every pin and move request for the files flushed during the outage came from Strata's
        // placement threads, none from a flush, compaction or region open.
        List<PolicyOutageFileSystem.Call> pins = PolicyOutageFileSystem.calls().stream()
          .filter(c -> !c.failed && during.keySet().stream().anyMatch(c.path::endsWith))
          .collect(Collectors.toList());
        assertFalse("the files flushed during the outage were pinned", pins.isEmpty());
        assertTrue("placement calls only on " + PLACEMENT_THREADS + "* threads: " + pins,
          pins.stream().allMatch(c -> c.thread.startsWith(PLACEMENT_THREADS)));
      }
    }
  }

  /**
   * A file flushed while the NameNode does not answer, whose RegionServer stops before it
   * answers again (everything that RegionServer remembered is gone with it), ends on its tier:
   * the next opener of the region finds it without a policy of its own and places it.
   */
  @Test(timeout = 500_000)
  public void fileFlushedDuringAnOutageIsPlacedAfterItsRegionServerStops() throws Exception {
    LocalClusterConfig config = TestClusters.small("policy-outage-stop");
    try (TieredDfsCluster dfs = TieredDfsCluster.start(config)) {
      DistributedFileSystem plain = routeHBaseThroughOutage(config, dfs);
      TableName table = TableName.valueOf("outage_stop");
      FileSystem stoppedServersFs;
      try (EmbeddedHBase hbase = EmbeddedHBase.start(dfs)) {
        Admin admin = hbase.connection().getAdmin();
        admin.createTable(TableDescriptorBuilder.newBuilder(table)
          .setColumnFamily(ColumnFamilyDescriptorBuilder.of(F)).build());
        PolicyOutageFileSystem.outage(true);
        put(hbase, table, "a");
        admin.flush(table);
        Map<String, Byte> during = flushedFilePolicies(plain, hbase, table);
        assertEquals(during.toString(), 1, during.size());
        assertEquals("no policy can be pinned during the outage: " + during,
          Byte.valueOf(HdfsConstants.BLOCK_STORAGE_POLICY_ID_UNSPECIFIED),
          during.values().iterator().next());
        stoppedServersFs = hbase.regionServer(0).getFileSystem();
      }
      // The RegionServer's process is gone: what it remembered can no longer reach HDFS.
      stoppedServersFs.close();

      // The next HBase opens the region while the NameNode still does not answer, then it does.
      try (EmbeddedHBase hbase = EmbeddedHBase.start(dfs)) {
        assertRowsReadBack(hbase, table, "a");
        PolicyOutageFileSystem.outage(false);
        awaitFlushedFilesOnSsd(plain, hbase, table, policyId(plain, "ALL_SSD"), 1);
      }
    }
  }

  private static int serverOf(EmbeddedHBase hbase, TableName table) throws IOException {
    for (int i = 0; i < hbase.regionServerCount(); i++) {
      if (!hbase.regionServer(i).getRegions(table).isEmpty()) {
        return i;
      }
    }
    throw new AssertionError("no RegionServer holds " + table);
  }

  /** Waits until the table has {@code count} flushed files, each pinned and on SSD only. */
  private static void awaitFlushedFilesOnSsd(DistributedFileSystem plain, EmbeddedHBase hbase,
    TableName table, byte policy, int count) throws Exception {
    Map<String, Byte> after;
    long pinDeadline = System.currentTimeMillis() + 120_000;
    while (true) {
      after = flushedFilePolicies(plain, hbase, table);
      if (after.size() == count && after.values().stream().allMatch(p -> p == policy)
        || System.currentTimeMillis() > pinDeadline) {
        break;
      }
      Thread.sleep(500);
    }
    assertEquals(after.toString(), count, after.size());
    for (Map.Entry<String, Byte> e : after.entrySet()) {
      assertEquals("policy of " + e.getKey(), Byte.valueOf(policy), e.getValue());
    }
    long deadline = System.currentTimeMillis() + 90_000;
    List<EnumSet<StorageType>> types;
    while (true) {
      types = flushedFileTypes(plain, hbase, table);
      if (types.stream().allMatch(EnumSet.of(StorageType.SSD)::equals)
        || System.currentTimeMillis() > deadline) {
        break;
      }
      Thread.sleep(500);
    }
    List<EnumSet<StorageType>> ssd = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      ssd.add(EnumSet.of(StorageType.SSD));
    }
    assertEquals("block storage types of " + after.keySet(), ssd, types);
  }

  @Test(timeout = 300_000)
  public void regionOpensDuringAnOutageAndItsFilesArePinnedAfterIt() throws Exception {
    LocalClusterConfig config = TestClusters.small("policy-outage");
    try (TieredDfsCluster dfs = TieredDfsCluster.start(config)) {
      // The test's own client (plain HDFS) is cached under the cluster's URI before HBase starts;
      // HBase reaches the same NameNode under another authority, through the outage wrapper.
      DistributedFileSystem plain = dfs.fileSystem();
      URI uri = dfs.uri();
      String host = "localhost".equals(uri.getHost()) ? "127.0.0.1" : "localhost";
      String hbaseFs = "hdfs://" + host + ":" + uri.getPort();
      config.hbase("fs.hdfs.impl", PolicyOutageFileSystem.class.getName())
        .hbase("fs.defaultFS", hbaseFs).hbase(HConstants.HBASE_DIR, hbaseFs + "/hbase");
      try (EmbeddedHBase hbase = EmbeddedHBase.start(dfs)) {
        Admin admin = hbase.connection().getAdmin();
        TableName table = TableName.valueOf("outage");

        PolicyOutageFileSystem.outage(true);
        // Before: the store engine threw at open and the region never opened.
        admin.createTableAsync(TableDescriptorBuilder.newBuilder(table)
          .setColumnFamily(ColumnFamilyDescriptorBuilder.of(F)).build()).get(90, TimeUnit.SECONDS);
        put(hbase, table, "a");
        admin.flush(table);
        assertRowsReadBack(hbase, table, "a");
        Map<String, Byte> during = flushedFilePolicies(plain, hbase, table);
        assertEquals(during.toString(), 1, during.size());
        assertEquals("no policy can be pinned during the outage: " + during,
          Byte.valueOf(HdfsConstants.BLOCK_STORAGE_POLICY_ID_UNSPECIFIED),
          during.values().iterator().next());

        PolicyOutageFileSystem.outage(false);
        put(hbase, table, "b");
        admin.flush(table);
        assertRowsReadBack(hbase, table, "a", "b");
        // Once the NameNode answers again (asked with back-off, from a timer and at flushes),
        // the file flushed during the outage gets the flush policy too.
        byte allSsd = policyId(plain, "ALL_SSD");
        Map<String, Byte> after;
        long pinDeadline = System.currentTimeMillis() + 90_000;
        while (true) {
          after = flushedFilePolicies(plain, hbase, table);
          if (after.size() == 2 && after.values().stream().allMatch(p -> p == allSsd)
            || System.currentTimeMillis() > pinDeadline) {
            break;
          }
          Thread.sleep(500);
        }
        assertEquals(after.toString(), 2, after.size());
        for (Map.Entry<String, Byte> e : after.entrySet()) {
          assertEquals("policy of " + e.getKey(), Byte.valueOf(allSsd), e.getValue());
        }
        // ... and its blocks were moved to SSD by the Storage Policy Satisfier.
        long deadline = System.currentTimeMillis() + 60_000;
        List<EnumSet<StorageType>> types;
        while (true) {
          types = flushedFileTypes(plain, hbase, table);
          if (types.stream().allMatch(EnumSet.of(StorageType.SSD)::equals)
            || System.currentTimeMillis() > deadline) {
            break;
          }
          Thread.sleep(500);
        }
        assertEquals(List.of(EnumSet.of(StorageType.SSD), EnumSet.of(StorageType.SSD)), types);
      }
    }
  }

  private static void put(EmbeddedHBase hbase, TableName table, String prefix)
    throws IOException {
    try (Table t = hbase.connection().getTable(table)) {
      List<Put> puts = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        puts.add(new Put(Bytes.toBytes(prefix + i)).addColumn(F, Bytes.toBytes("q"),
          Bytes.toBytes(prefix + "-value-" + i)));
      }
      t.put(puts);
    }
  }

  private static void assertRowsReadBack(EmbeddedHBase hbase, TableName table,
    String... prefixes) throws IOException {
    try (Table t = hbase.connection().getTable(table)) {
      for (String prefix : prefixes) {
        for (int i = 0; i < 100; i++) {
          assertArrayEquals(Bytes.toBytes(prefix + "-value-" + i),
            t.get(new Get(Bytes.toBytes(prefix + i))).getValue(F, Bytes.toBytes("q")));
        }
      }
    }
  }

  private static byte policyId(DistributedFileSystem plain, String name) throws IOException {
    for (BlockStoragePolicy p : plain.getClient().getStoragePolicies()) {
      if (p.getName().equals(name)) {
        return p.getId();
      }
    }
    throw new AssertionError("HDFS has no storage policy " + name);
  }

  /** Each flushed file of the table with the policy id pinned on the file itself. */
  private static Map<String, Byte> flushedFilePolicies(DistributedFileSystem plain,
    EmbeddedHBase hbase, TableName table) throws IOException {
    Map<String, Byte> policies = new TreeMap<>();
    for (PlacedFile f : flushed(plain, hbase, table)) {
      HdfsFileStatus st = plain.getClient().getFileInfo(f.path());
      policies.put(f.path(), st.getStoragePolicy());
    }
    return policies;
  }

  private static List<EnumSet<StorageType>> flushedFileTypes(DistributedFileSystem plain,
    EmbeddedHBase hbase, TableName table) throws IOException {
    List<EnumSet<StorageType>> types = new ArrayList<>();
    for (PlacedFile f : flushed(plain, hbase, table)) {
      types.add(f.replicas().isEmpty() ? EnumSet.noneOf(StorageType.class)
        : EnumSet.copyOf(f.replicas().keySet()));
    }
    return types;
  }

  private static List<PlacedFile> flushed(DistributedFileSystem plain, EmbeddedHBase hbase,
    TableName table) throws IOException {
    List<PlacedFile> files = new ArrayList<>();
    String tableDir = "/hbase/data/default/" + table.getNameAsString() + "/";
    for (PlacedFile f : new PlacementScanner(plain, hbase.configuration())
      .scan(new Path("/hbase")).files()) {
      if (f.kind() == FileKind.FLUSHED && f.path().startsWith(tableDir)) {
        files.add(f);
      }
    }
    return files;
  }
}
