package io.strata.local;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import io.strata.hbase.tiering.TieringKeys;
import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.LocalHBaseCluster;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.CompactionState;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.HStore;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.zookeeper.MiniZooKeeperCluster;
import org.junit.Test;

/**
 * Standalone HBase (a {@code file://} root directory, no storage policies) with Strata's tiering
 * site keys serves as upstream's does: the master starts, a table is created, written, flushed,
 * compacted and read back. The store engine turns placement off for such stores.
 */
public class StandaloneTieringIT {
  private static final byte[] F = Bytes.toBytes("f");

  @Test(timeout = 300_000)
  public void localFileSystemRootServesWithTieringKeys() throws Exception {
    File dir = new File("target/it-work/standalone-" + UUID.randomUUID().toString()
      .substring(0, 8)).getAbsoluteFile();
    Configuration conf = HBaseConfiguration.create();
    conf.addResource(EmbeddedHBase.TIERING_SITE);
    assertEquals(TieringKeys.ENGINE_CLASS, conf.get("hbase.hstore.engine.class"));
    conf.set(HConstants.HBASE_DIR, new File(dir, "hbase").toURI().toString());
    conf.set("fs.defaultFS", "file:///");
    // The local file system has no hflush: standalone HBase's own setting.
    conf.setBoolean("hbase.unsafe.stream.capability.enforce", false);
    conf.setBoolean(HConstants.CLUSTER_DISTRIBUTED, false);
    conf.setBoolean(LocalHBaseCluster.ASSIGN_RANDOM_PORTS, true);
    conf.setInt(HConstants.MASTER_INFO_PORT, -1);
    conf.setInt(HConstants.REGIONSERVER_INFO_PORT, -1);
    conf.set(HConstants.ZOOKEEPER_QUORUM, "localhost");
    conf.setInt("hbase.master.start.timeout.localHBaseCluster", 120_000);
    conf.setInt("hbase.master.init.timeout.localHBaseCluster", 120_000);
    // Done waiting for RegionServers once the one checked in, not after 4.5 s regardless.
    conf.setInt("hbase.master.wait.on.regionservers.maxtostart", 1);
    conf.setInt(HConstants.HBASE_CLIENT_RETRIES_NUMBER, 5);

    MiniZooKeeperCluster zk = new MiniZooKeeperCluster(conf);
    LocalHBaseCluster cluster = null;
    try {
      conf.setInt(HConstants.ZOOKEEPER_CLIENT_PORT, zk.startup(new File(dir, "zookeeper")));
      cluster = new LocalHBaseCluster(conf, 1, 1);
      cluster.startup();
      long deadline = System.currentTimeMillis() + 120_000;
      while (cluster.getActiveMaster() == null || !cluster.getActiveMaster().isInitialized()) {
        assertTrue("the master did not initialize within 120 s",
          System.currentTimeMillis() < deadline);
        Thread.sleep(200);
      }
      TableName table = TableName.valueOf("standalone");
      try (Connection c = ConnectionFactory.createConnection(conf); Admin admin = c.getAdmin()) {
        admin.createTableAsync(TableDescriptorBuilder.newBuilder(table)
          .setColumnFamily(ColumnFamilyDescriptorBuilder.of(F)).build())
          .get(90, TimeUnit.SECONDS);
        for (int round = 0; round < 2; round++) {
          try (Table t = c.getTable(table)) {
            List<Put> puts = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
              puts.add(new Put(Bytes.toBytes("r" + round + "-" + i))
                .addColumn(F, Bytes.toBytes("q"), Bytes.toBytes("v" + round + "-" + i)));
            }
            t.put(puts);
          }
          admin.flush(table);
        }
        HRegion region = cluster.getRegionServer(0).getRegions(table).get(0);
        HStore store = region.getStore(F);
        assertEquals(2, store.getStorefilesCount());
        admin.majorCompact(table);
        deadline = System.currentTimeMillis() + 60_000;
        while (store.getStorefilesCount() != 1
          || admin.getCompactionState(table) != CompactionState.NONE) {
          assertTrue("the major compaction did not finish within 60 s",
            System.currentTimeMillis() < deadline);
          Thread.sleep(200);
        }
        try (Table t = c.getTable(table)) {
          for (int round = 0; round < 2; round++) {
            for (int i = 0; i < 100; i++) {
              byte[] v = t.get(new Get(Bytes.toBytes("r" + round + "-" + i)))
                .getValue(F, Bytes.toBytes("q"));
              assertNotNull("row r" + round + "-" + i, v);
              assertArrayEquals(Bytes.toBytes("v" + round + "-" + i), v);
            }
          }
        }
      }
    } finally {
      if (cluster != null) {
        cluster.shutdown();
        cluster.join();
      }
      zk.shutdown();
      FileUtil.fullyDelete(dir);
    }
  }
}
