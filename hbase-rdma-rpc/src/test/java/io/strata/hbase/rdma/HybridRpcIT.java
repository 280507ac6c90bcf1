package io.strata.hbase.rdma;

import static io.strata.hbase.rdma.RpcTestSupport.FAMILY;
import static io.strata.hbase.rdma.RpcTestSupport.QUALIFIER;
import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.ipc.HybridRpcServer;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/** Get, Put and batched calls of a Strata client over a Strata RegionServer's RDMA endpoint. */
public class HybridRpcIT {
  private static MiniHBase cluster;

  @BeforeClass
  public static void start() throws Exception {
    cluster = MiniHBase.start("hybrid-rpc", RpcTestSupport.hybridServer());
  }

  @AfterClass
  public static void stop() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  public void getPutAndMultiGoOverTheEndpoint() throws Exception {
    TableName name = TableName.valueOf("routed");
    HybridRpcServer rpc = (HybridRpcServer) cluster.regionServer().getRpcServer();
    assertTrue("the RegionServer listens for RDMA", rpc.getRdmaAddress() != null);
    try (Connection c =
      ConnectionFactory.createConnection(RpcTestSupport.hybridClient(cluster.clientConf()))) {
      RpcTestSupport.createTable(c, name);
      try (Table t = c.getTable(name)) {
        // The first routed call sets the endpoint up; it and any before it go over sockets.
        t.put(new Put(Bytes.toBytes("warm-up")).addColumn(FAMILY, QUALIFIER, Bytes.toBytes(0)));
        awaitEndpoint(rpc);
        long gets = RdmaRpcMetrics.count("server.Get.calls");
        long mutates = RdmaRpcMetrics.count("server.Mutate.calls");
        long multis = RdmaRpcMetrics.count("server.Multi.calls");
        for (int i = 0; i < 100; i++) {
          t.put(new Put(Bytes.toBytes("row-" + i)).addColumn(FAMILY, QUALIFIER, value(i)));
        }
        List<Put> batch = new ArrayList<>();
        for (int i = 100; i < 200; i++) {
          batch.add(new Put(Bytes.toBytes("row-" + i)).addColumn(FAMILY, QUALIFIER, value(i)));
        }
        t.put(batch);
        for (int i = 0; i < 200; i++) {
          Result r = t.get(new Get(Bytes.toBytes("row-" + i)));
          assertArrayEquals("row-" + i, value(i), r.getValue(FAMILY, QUALIFIER));
        }
        assertEquals(100, RdmaRpcMetrics.count("server.Mutate.calls") - mutates);
        assertTrue(RdmaRpcMetrics.count("server.Multi.calls") - multis >= 1);
        assertEquals(200, RdmaRpcMetrics.count("server.Get.calls") - gets);
      }
    }
  }

  static byte[] value(int i) {
    byte[] v = new byte[1024];
    java.util.Arrays.fill(v, (byte) i);
    return v;
  }

  static void awaitEndpoint(HybridRpcServer rpc) throws InterruptedException {
    long deadline = System.currentTimeMillis() + 10_000;
    while (rpc.getNumRdmaConnections() == 0) {
      assertTrue("no RDMA endpoint within 10 s", System.currentTimeMillis() < deadline);
      Thread.sleep(10);
    }
  }
}
