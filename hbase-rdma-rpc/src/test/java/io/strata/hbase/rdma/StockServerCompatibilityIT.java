package io.strata.hbase.rdma;

import static io.strata.hbase.rdma.RpcTestSupport.FAMILY;
import static io.strata.hbase.rdma.RpcTestSupport.QUALIFIER;
import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.Test;

/**
 * A Strata client against a stock RegionServer ({@code NettyRpcServer}): everything works over
 * sockets; the client asks once for an endpoint, is told there is none, and logs one line.
 */
public class StockServerCompatibilityIT {

  @Test
  public void strataClientTalksToAStockRegionServerOverSockets() throws Exception {
    try (MiniHBase cluster = MiniHBase.start("stock-server", new Configuration(false))) {
      TableName name = TableName.valueOf("compat");
      long refused = RdmaRpcMetrics.count("client.offers.refused");
      long failed = RdmaRpcMetrics.count("client.endpoints.failed");
      long rdmaGets = RdmaRpcMetrics.count("client.Get.rdma");
      long socketGets = RdmaRpcMetrics.count("client.Get.sockets");
      Configuration conf = RpcTestSupport.hybridClient(cluster.clientConf());
      try (Connection c = ConnectionFactory.createConnection(conf)) {
        RpcTestSupport.createTable(c, name);
        try (Table t = c.getTable(name)) {
          for (int i = 0; i < 50; i++) {
            t.put(new Put(Bytes.toBytes("row-" + i)).addColumn(FAMILY, QUALIFIER,
              HybridRpcIT.value(i)));
          }
          List<Put> batch = new ArrayList<>();
          for (int i = 50; i < 100; i++) {
            batch.add(new Put(Bytes.toBytes("row-" + i)).addColumn(FAMILY, QUALIFIER,
              HybridRpcIT.value(i)));
          }
          t.put(batch);
          for (int i = 0; i < 100; i++) {
            assertArrayEquals(HybridRpcIT.value(i),
              t.get(new Get(Bytes.toBytes("row-" + i))).getValue(FAMILY, QUALIFIER));
          }
        }
      }
      assertEquals("asked once, told no endpoint", refused + 1,
        RdmaRpcMetrics.count("client.offers.refused"));
      assertEquals("no failure, no retry of the set-up", failed,
        RdmaRpcMetrics.count("client.endpoints.failed"));
      assertEquals(rdmaGets, RdmaRpcMetrics.count("client.Get.rdma"));
      assertEquals(socketGets + 100, RdmaRpcMetrics.count("client.Get.sockets"));
    }
  }
}
