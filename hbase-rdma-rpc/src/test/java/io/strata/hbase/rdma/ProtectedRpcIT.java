package io.strata.hbase.rdma;

import static io.strata.hbase.rdma.RpcTestSupport.FAMILY;
import static io.strata.hbase.rdma.RpcTestSupport.QUALIFIER;
import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * The endpoint neither encrypts nor checks integrity, so it is never used where
 * {@code hbase.rpc.protection} asks for more than authentication (or HBase's TLS is on): a
 * RegionServer configured for {@code privacy} offers no endpoint, a client configured for it asks
 * for none, and every Get and Put goes over the (protected) socket. One mini cluster, loopback
 * transport, ~30 s. (The mini cluster authenticates with SIMPLE, so the socket itself is not
 * encrypted here; what is checked is that the endpoint stays out of the way.)
 */
public class ProtectedRpcIT {
  private static MiniHBase cluster;

  @BeforeClass
  public static void start() throws Exception {
    Configuration conf = RpcTestSupport.hybridServer();
    conf.set(RpcProtection.RPC_PROTECTION, "privacy");
    cluster = MiniHBase.start("protected-rpc", conf);
  }

  @AfterClass
  public static void stop() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  public void noCallGoesOverTheEndpointUnderPrivacy() throws Exception {
    TableName name = TableName.valueOf("protected");
    try (Connection admin = ConnectionFactory.createConnection(cluster.clientConf())) {
      RpcTestSupport.createTable(admin, name);
    }
    for (String clientProtection : new String[] { "authentication", "privacy" }) {
      Configuration conf = RpcTestSupport.hybridClient(cluster.clientConf());
      conf.set(RpcProtection.RPC_PROTECTION, clientProtection);
      long offers = RdmaRpcMetrics.count("server.offers");
      long rdma = RdmaRpcMetrics.count("client.Get.rdma") + RdmaRpcMetrics.count("client.Mutate.rdma");
      long serverCalls =
        RdmaRpcMetrics.count("server.Get.calls") + RdmaRpcMetrics.count("server.Mutate.calls");
      try (Connection c = ConnectionFactory.createConnection(conf); Table t = c.getTable(name)) {
        for (int i = 0; i < 20; i++) {
          byte[] row = Bytes.toBytes(clientProtection + i);
          t.put(new Put(row).addColumn(FAMILY, QUALIFIER, row));
          assertArrayEquals(row, t.get(new Get(row)).getValue(FAMILY, QUALIFIER));
          Thread.sleep(20); // time for an endpoint to connect, were one offered
        }
      }
      assertEquals(clientProtection + ": no endpoint offered", offers,
        RdmaRpcMetrics.count("server.offers"));
      assertEquals(clientProtection + ": no call over an endpoint", rdma,
        RdmaRpcMetrics.count("client.Get.rdma") + RdmaRpcMetrics.count("client.Mutate.rdma"));
      assertEquals(clientProtection + ": the server took no endpoint call", serverCalls,
        RdmaRpcMetrics.count("server.Get.calls") + RdmaRpcMetrics.count("server.Mutate.calls"));
    }
  }
}
