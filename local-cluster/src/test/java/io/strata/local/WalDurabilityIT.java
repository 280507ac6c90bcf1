package io.strata.local;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.strata.hbase.tiering.TieringKeys;
import io.strata.hbase.tiering.WalDurabilityGuard;
import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.regionserver.HRegionServer;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.JVMClusterUtil;
import org.apache.hadoop.hbase.wal.AbstractFSWALProvider;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlocks;
import org.apache.log4j.AppenderSkeleton;
import org.apache.log4j.Level;
import org.apache.log4j.spi.LoggingEvent;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.Test;

/**
 * Live WALs survive a reboot of the hosts holding their blocks: on the embedded cluster with
 * Strata's shipped configuration every block of a live WAL has at least two replicas on disk-backed
 * storage (SSD or DISK); a RegionServer configured with ALL_NVDIMM (every replica on the tmpfs RAM
 * tier) aborts before it reports for duty, naming the key that would allow it; with that key it
 * starts and logs the risk; a master configured so aborts at start naming it too; a table carrying
 * ALL_NVDIMM as its WAL policy is refused.
 */
public class WalDurabilityIT {
  private static final byte[] F = Bytes.toBytes("f");
  private static final long WAIT_MS = 180_000;

  @ClassRule
  public static final TestClusters.Running CLUSTER =
    TestClusters.running(TestClusters.small("wal-durable"));

  /** Log lines of level WARN and above, with their exception's message, while the class runs. */
  private static final List<String> LOG = new CopyOnWriteArrayList<>();
  private static final AppenderSkeleton CAPTURE = new AppenderSkeleton() {
    @Override
    protected void append(LoggingEvent e) {
      if (e.getLevel().isGreaterOrEqual(Level.WARN)) {
        String[] thrown = e.getThrowableStrRep();
        LOG.add(e.getLevel() + " " + e.getLoggerName() + ": " + e.getRenderedMessage()
          + (thrown == null ? "" : " " + String.join(" ", thrown)));
      }
    }

    @Override
    public void close() {
    }

    @Override
    public boolean requiresLayout() {
      return false;
    }
  };

  @BeforeClass
  public static void capture() {
    org.apache.log4j.Logger.getRootLogger().addAppender(CAPTURE);
  }

  @AfterClass
  public static void release() {
    org.apache.log4j.Logger.getRootLogger().removeAppender(CAPTURE);
  }

  private static List<String> logged(String... parts) {
    List<String> out = new ArrayList<>();
    for (String line : LOG) {
      boolean all = true;
      for (String p : parts) {
        all &= line.contains(p);
      }
      if (all) {
        out.add(line);
      }
    }
    return out;
  }

  @Test(timeout = 600_000)
  public void liveWalBlocksKeepTwoReplicasOnDiskBackedStorage() throws Exception {
    EmbeddedHBase hbase = CLUSTER.hbase();
    TableName name = TableName.valueOf("wal_durable");
    try (Admin admin = hbase.connection().getAdmin()) {
      admin.createTable(TableDescriptorBuilder.newBuilder(name)
        .setColumnFamily(ColumnFamilyDescriptorBuilder.of(F)).build());
    }
    try (Table t = hbase.connection().getTable(name)) {
      for (int i = 0; i < 500; i++) {
        t.put(new Put(Bytes.toBytes("row" + i)).addColumn(F, F, new byte[1024]));
      }
    }
    DistributedFileSystem fs = CLUSTER.dfs().fileSystem();
    // The cluster's own RegionServer's WALs (meta's too) and the master region's; not those of
    // the RegionServers the other tests start with other settings.
    String rs0 = hbase.regionServer(0).getServerName().toString();
    Path rsWals = new Path(hbase.rootDir(), AbstractFSWALProvider.getWALDirectoryName(rs0));
    Path masterWals = new Path(hbase.rootDir(), "MasterData/" + HConstants.HREGION_LOGDIR_NAME);
    int blocks = 0;
    Map<StorageType, Integer> replicas = new EnumMap<>(StorageType.class);
    for (Path wals : List.of(rsWals, masterWals)) {
      RemoteIterator<LocatedFileStatus> it = fs.listFiles(wals, true);
      while (it.hasNext()) {
        Path wal = it.next().getPath();
        String rel = Path.getPathWithoutSchemeAndAuthority(wal).toString();
        // open WALs too: the NameNode reports the block being written with its pipeline
        LocatedBlocks located = fs.getClient().getLocatedBlocks(rel, 0, Long.MAX_VALUE);
        List<LocatedBlock> all = new ArrayList<>(located.getLocatedBlocks());
        if (located.getLastLocatedBlock() != null && !located.isLastBlockComplete()
          && !all.contains(located.getLastLocatedBlock())) {
          all.add(located.getLastLocatedBlock());
        }
        for (LocatedBlock b : all) {
          int diskBacked = 0;
          for (StorageType type : b.getStorageTypes()) {
            replicas.merge(type, 1, Integer::sum);
            if (type == StorageType.SSD || type == StorageType.DISK) {
              diskBacked++;
            }
          }
          assertTrue(wal + " block " + b.getBlock() + " on "
            + java.util.Arrays.toString(b.getStorageTypes()), diskBacked >= 2);
          blocks++;
        }
        assertEquals(wal.toString(), TieringKeys.WAL_POLICY_DEFAULT,
          fs.getStoragePolicy(wal).getName());
      }
    }
    System.out.println("Live WAL blocks: " + blocks + ", replicas by storage type: " + replicas);
    assertTrue("no live WAL block found under " + rsWals, blocks > 0);
    assertEquals(TieringKeys.WAL_POLICY_DEFAULT,
      hbase.configuration().get(HConstants.WAL_STORAGE_POLICY));
  }

  @Test(timeout = 600_000)
  public void allNvdimmRegionServerRefusesToStartNamingTheKey() throws Exception {
    EmbeddedHBase hbase = CLUSTER.hbase();
    JVMClusterUtil.RegionServerThread t =
      hbase.startRegionServer(Map.of(HConstants.WAL_STORAGE_POLICY, "ALL_NVDIMM"));
    t.join(WAIT_MS);
    HRegionServer rs = t.getRegionServer();
    assertFalse("the ALL_NVDIMM RegionServer is still running", t.isAlive());
    assertTrue(rs.isAborted());
    ServerName sn = rs.getServerName();
    assertFalse(sn + " reported for duty",
      hbase.master().getServerManager().getOnlineServersList().contains(sn));
    List<String> abort = logged("ABORTING region server", WalDurabilityGuard.class.getName(),
      "refuses to start", "hbase.wal.storage.policy = ALL_NVDIMM",
      TieringKeys.UNSAFE_WAL_VOLATILE_ACCEPT + "=true");
    assertTrue("abort naming the key expected; logged: " + LOG, !abort.isEmpty());
    System.out.println("Refused: " + abort.get(0).substring(0, Math.min(600,
      abort.get(0).length())));
  }

  @Test(timeout = 600_000)
  public void allNvdimmRegionServerStartsWhenTheRiskIsAcceptedAndWarns() throws Exception {
    EmbeddedHBase hbase = CLUSTER.hbase();
    int warnedBefore = logged(TieringKeys.UNSAFE_WAL_VOLATILE_ACCEPT + "=true",
      "Acknowledged edits not yet flushed are lost").size();
    JVMClusterUtil.RegionServerThread t = hbase.startRegionServer(Map.of(
      HConstants.WAL_STORAGE_POLICY, "ALL_NVDIMM", TieringKeys.UNSAFE_WAL_VOLATILE_ACCEPT,
      "true"));
    HRegionServer rs = t.getRegionServer();
    try {
      long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
      while (!hbase.master().getServerManager().getOnlineServersList()
        .contains(rs.getServerName())) {
        assertTrue("RegionServer with the risk key died: " + LOG, t.isAlive());
        if (System.nanoTime() > end) {
          fail("RegionServer with the risk key did not report for duty in " + WAIT_MS + " ms");
        }
        Thread.sleep(200);
      }
      assertFalse(rs.isAborted());
      List<String> warned = logged("WARN", TieringKeys.UNSAFE_WAL_VOLATILE_ACCEPT + "=true",
        "Acknowledged edits not yet flushed are lost");
      assertTrue("risk warning expected; logged: " + LOG, warned.size() > warnedBefore);
      System.out.println("Warned: " + warned.get(warned.size() - 1));
    } finally {
      rs.stop("test done");
      t.join(WAIT_MS);
    }
  }

  @Test(timeout = 600_000)
  public void allNvdimmMasterRefusesToStartNamingTheKey() throws Exception {
    LocalClusterConfig config = CLUSTER.config();
    // A second HBase on the same HDFS, its master (and RegionServer) on ALL_NVDIMM; the
    // cluster start gives up once the master has not come up in a minute.
    config.hbase(HConstants.WAL_STORAGE_POLICY, "ALL_NVDIMM");
    config.hbase("hbase.master.init.timeout.localHBaseCluster", "60000");
    try (EmbeddedHBase h = EmbeddedHBase.start(CLUSTER.dfs(), "nvdimm-master", false)) {
      fail("an HBase whose master has ALL_NVDIMM WALs started");
    } catch (RuntimeException | IOException e) {
      List<String> abort = logged("ABORTING master", "TieringValidator", "Master refuses to start",
        "hbase.wal.storage.policy = ALL_NVDIMM", TieringKeys.UNSAFE_WAL_VOLATILE_ACCEPT + "=true");
      assertTrue("master abort naming the key expected (" + e + "); logged: " + LOG,
        !abort.isEmpty());
      System.out.println("Master refused: " + abort.get(0).substring(0, Math.min(400,
        abort.get(0).length())));
    } finally {
      config.hbase(HConstants.WAL_STORAGE_POLICY, TieringKeys.WAL_POLICY_DEFAULT);
      config.hbase("hbase.master.init.timeout.localHBaseCluster", "200000");
    }
  }

  @Test(timeout = 600_000)
  public void tableWithAnAllNvdimmWalPolicyIsRefused() throws IOException {
    try (Admin admin = CLUSTER.hbase().connection().getAdmin()) {
      TableName name = TableName.valueOf("wal_on_ram");
      try {
        admin.createTable(TableDescriptorBuilder.newBuilder(name)
          .setValue(HConstants.WAL_STORAGE_POLICY, "ALL_NVDIMM")
          .setColumnFamily(ColumnFamilyDescriptorBuilder.of(F)).build());
        fail("a table with hbase.wal.storage.policy = ALL_NVDIMM was created");
      } catch (DoNotRetryIOException e) {
        assertTrue(e.getMessage(), e.getMessage().contains(
          "table hbase.wal.storage.policy = ALL_NVDIMM"));
        assertTrue(e.getMessage(),
          e.getMessage().contains(TieringKeys.UNSAFE_WAL_VOLATILE_ACCEPT + "=true"));
      }
      assertFalse(admin.tableExists(name));
    }
  }
}
