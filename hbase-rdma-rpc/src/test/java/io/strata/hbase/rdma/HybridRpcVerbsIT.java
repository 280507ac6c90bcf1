package io.strata.hbase.rdma;

import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import io.strata.rdma.transport.TransportConf;
import io.strata.rdma.transport.TransportUnavailableException;
import io.strata.rdma.verbs.RdmaAddresses;
import io.strata.rdma.verbs.VerbsTransport;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.ipc.HybridRpcServer;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * The hybrid RPC end to end on the verbs transport over a real RDMA device (SoftRoCE rxe0 in
 * dev-support/softroce-test): an HBase master and RegionServer in this JVM (local file system,
 * mini ZooKeeper) with {@link HybridRpcServer} listening on the device's address
 * ({@code strata.rdma.bind.address=auto}), a hybrid client whose Puts, batched Puts and Gets go
 * over verbs, a stock client beside it, responses above the endpoint's limit, and endpoints
 * closed under load. Skipped where there is no device (fails instead with
 * {@code STRATA_RDMA_REQUIRE_DEVICE=1}).
 */
public class HybridRpcVerbsIT {
  private static final int MAX_MESSAGE = 256 << 10;
  private static final int ROWS = Integer.getInteger("strata.it.rows", 50);
  private static MiniHBase cluster;
  private static Connection admin;

  @BeforeClass
  public static void start() throws Exception {
    InetAddress device = null;
    try (VerbsTransport probe = new VerbsTransport(TransportConf.EMPTY)) {
      device = RdmaAddresses.deviceAddressOrSkip(probe);
    } catch (TransportUnavailableException e) {
      RdmaAddresses.skipOrFail(e.getMessage());
    }
    Configuration conf = RpcTestSupport.verbsServer(MAX_MESSAGE);
    cluster = MiniHBase.start("hybrid-rpc-verbs", conf);
    admin = ConnectionFactory.createConnection(cluster.clientConf());
    InetSocketAddress listening = server().getRdmaAddress();
    assertNotNull("the RegionServer's verbs endpoint is not listening (see the WARN above)",
      listening);
    System.out.println("RDMA endpoint on " + listening + " (device address " + device + ")");
  }

  private static Configuration hybridClient() {
    return RpcTestSupport.verbsClient(cluster.clientConf(), MAX_MESSAGE);
  }

  private static HybridRpcServer server() {
    return (HybridRpcServer) cluster.regionServer().getRpcServer();
  }

  @AfterClass
  public static void stop() throws Exception {
    if (admin != null) {
      admin.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  /** Put, batched Puts (Multi) and Get over verbs, counted on both sides; every row back. */
  @Test
  public void getPutAndMultiGoOverVerbs() throws Exception {
    RoutedCallChecks.getPutAndMulti(cluster, admin, hybridClient(), TableName.valueOf("routed"),
      ROWS);
  }

  @Test
  public void stockClientUsesSocketsUnchanged() throws Exception {
    RoutedCallChecks.stockClientUnchanged(admin, cluster.clientConf(),
      TableName.valueOf("stock_client"));
  }

  /** RDMA WRITE-sized responses over verbs; responses above the limit re-sent over sockets. */
  @Test
  public void oversizedResponsesFallBackOrFailClearly() throws Exception {
    RoutedCallChecks.oversizedResponses(cluster, admin, hybridClient(),
      TableName.valueOf("oversized"), MAX_MESSAGE);
  }

  /**
   * The RegionServer closes every verbs endpoint every 500 ms under two writers: nothing lost,
   * nothing applied twice.
   */
  @Test
  public void closingEndpointsUnderLoadLosesAndRepeatsNothing() throws Exception {
    RoutedCallChecks.killUnderLoad(admin, hybridClient(), TableName.valueOf("fallback"), 2,
      Integer.getInteger("strata.it.kill.ops", 100), 500, () -> server().closeRdmaConnections());
    assertTrue(RdmaRpcMetrics.count("server.endpoints.accepted") > 1);
  }
}
