package io.strata.hbase.rdma;

import static io.strata.hbase.rdma.RpcTestSupport.FAMILY;
import static io.strata.hbase.rdma.RpcTestSupport.QUALIFIER;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.strata.rdma.loopback.LoopbackTransport;
import io.strata.rdma.transport.RdmaEndpoint;
import io.strata.rdma.transport.RdmaReceiver;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.security.PrivilegedExceptionAction;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.ipc.HBaseRpcControllerImpl;
import org.apache.hadoop.hbase.ipc.HybridRpcServer;
import org.apache.hadoop.hbase.ipc.NettyRpcClient;
import org.apache.hadoop.hbase.security.User;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.ClientService;
import org.apache.hadoop.hbase.shaded.protobuf.generated.RPCProtos.ConnectionHeader;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * Endpoint caps: one user asking for endpoints in a loop (offer over the authenticated socket,
 * then connect) gets at most {@code strata.rdma.server.max.endpoints.per.user}; the next offer
 * is refused cleanly ({@link EndpointRefusedException}) and another user still connects; a
 * hybrid client of the capped user stays on sockets and its calls work; freed endpoints can be
 * had again. One mini cluster, loopback transport, ~40 s.
 */
public class EndpointCapsIT {
  private static final int PER_USER = 3;
  private static final int PER_SERVER = 5;
  private static MiniHBase cluster;

  @BeforeClass
  public static void start() throws Exception {
    Configuration conf = RpcTestSupport.hybridServer();
    conf.setInt(HybridRpcKeys.Server.MAX_ENDPOINTS_PER_USER, PER_USER);
    conf.setInt(HybridRpcKeys.Server.MAX_ENDPOINTS, PER_SERVER);
    cluster = MiniHBase.start("endpoint-caps", conf);
  }

  @AfterClass
  public static void stop() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test(timeout = 180_000)
  public void oneUserCannotTakeEveryEndpoint() throws Exception {
    TableName name = TableName.valueOf("capped");
    try (Connection admin = ConnectionFactory.createConnection(cluster.clientConf())) {
      RpcTestSupport.createTable(admin, name);
    }
    Configuration conf = RpcTestSupport.hybridClient(cluster.clientConf());
    User alice = User.createUserForTesting(conf, "alice", new String[0]);
    User bob = User.createUserForTesting(conf, "bob", new String[0]);
    List<RdmaEndpoint> alices = new ArrayList<>();
    try (LoopbackTransport t = new LoopbackTransport(RdmaTransports.transportConf(conf))) {
      long refused = RdmaRpcMetrics.count("server.offers.refused");
      for (int i = 0; i < PER_USER; i++) {
        alices.add(offerAndConnect(t, conf, alice));
      }
      try {
        offerAndConnect(t, conf, alice);
        fail("alice got more than " + PER_USER + " endpoints");
      } catch (IOException e) {
        assertTrue(String.valueOf(e), String.valueOf(e).contains(
          EndpointRefusedException.class.getName()) || String.valueOf(e).contains(
            HybridRpcKeys.Server.MAX_ENDPOINTS_PER_USER));
      }
      assertEquals(refused + 1, RdmaRpcMetrics.count("server.offers.refused"));

      // another user still gets one
      RdmaEndpoint bobs = offerAndConnect(t, conf, bob);
      assertTrue(bobs.isOpen());

      // alice's hybrid client is refused an endpoint and works over sockets
      long offersRefused = RdmaRpcMetrics.count("client.offers.refused");
      long socketPuts = RdmaRpcMetrics.count("client.Mutate.sockets");
      alice.runAs((PrivilegedExceptionAction<Void>) () -> {
        try (Connection c = ConnectionFactory.createConnection(conf); Table table =
          c.getTable(name)) {
          table.put(new Put(Bytes.toBytes("a")).addColumn(FAMILY, QUALIFIER, Bytes.toBytes(1)));
          RoutedCallChecks.awaitCount("client.offers.refused", offersRefused + 1);
          table.put(new Put(Bytes.toBytes("b")).addColumn(FAMILY, QUALIFIER, Bytes.toBytes(2)));
          assertEquals(2, table.get(new Get(Bytes.toBytes("b"))).getValue(FAMILY, QUALIFIER)[3]);
        }
        return null;
      });
      assertTrue(RdmaRpcMetrics.count("client.Mutate.sockets") >= socketPuts + 2);

      // freed endpoints can be had again
      for (RdmaEndpoint e : alices) {
        e.close();
      }
      long deadline = System.currentTimeMillis() + 30_000;
      while (true) {
        try {
          offerAndConnect(t, conf, alice).close();
          break;
        } catch (IOException stillCapped) {
          assertTrue("alice's closed endpoints were not freed: " + stillCapped,
            System.currentTimeMillis() < deadline);
          Thread.sleep(100);
        }
      }
      bobs.close();
    }
  }

  /**
   * A peer that ignores disconnect requests: the server closes its endpoints, its transport
   * withholds the answers, and the endpoints' queue pairs and registered memory stay pinned on
   * the server. They count against the caps until their teardown: a new offer to that user is
   * refused, naming the user, its address and the cap's key; once the peer answers (the
   * teardown) the offer is accepted again.
   */
  @Test(timeout = 120_000)
  public void endpointsCountUntilTheirTeardown() throws Exception {
    Configuration conf = RpcTestSupport.hybridClient(cluster.clientConf());
    User eve = User.createUserForTesting(conf, "eve", new String[0]);
    HybridRpcServer rpc = (HybridRpcServer) cluster.regionServer().getRpcServer();
    try (LoopbackTransport t = new LoopbackTransport(RdmaTransports.transportConf(conf))) {
      t.withholdDisconnectReplies(true);
      java.util.concurrent.CountDownLatch closed =
        new java.util.concurrent.CountDownLatch(PER_USER);
      for (int i = 0; i < PER_USER; i++) {
        offerAndConnect(t, conf, eve, closed);
      }
      int pinnedBefore = rpc.getNumRdmaEndpointsPinned();
      // The server closes them (as it does a peer that returns no credit or sends what does not
      // parse); eve's side sees the close, and answers none of the disconnect requests.
      rpc.closeRdmaConnections();
      assertTrue("eve's endpoints did not close",
        closed.await(30, java.util.concurrent.TimeUnit.SECONDS));
      long refused = RdmaRpcMetrics.count("server.offers.refused");
      try {
        offerAndConnect(t, conf, eve).close();
        fail("eve got a new endpoint while her " + PER_USER + " closed ones still pin memory on "
          + "the server (" + rpc.getNumRdmaEndpointsPinned() + " pinned)");
      } catch (IOException e) {
        String why = String.valueOf(e);
        assertTrue(why, why.contains(EndpointRefusedException.class.getName()));
        assertTrue(why, why.contains("user eve"));
        assertTrue(why, why.contains("127.0.0.1"));
        assertTrue(why, why.contains(HybridRpcKeys.Server.MAX_ENDPOINTS_PER_USER + "="
          + PER_USER));
        assertTrue(why, why.contains(PER_USER + " closed and waiting"));
      }
      assertEquals(refused + 1, RdmaRpcMetrics.count("server.offers.refused"));
      assertEquals("no endpoint connected", 0, rpc.getNumRdmaConnections());
      assertEquals("closed, not torn down: still pinned", pinnedBefore,
        rpc.getNumRdmaEndpointsPinned());

      // The peer answers: the teardown frees them, and eve gets an endpoint again.
      long released = RdmaRpcMetrics.count("server.endpoints.released");
      assertEquals(PER_USER, t.withholdDisconnectReplies(false));
      long deadline = System.currentTimeMillis() + 30_000;
      while (rpc.getNumRdmaEndpointsPinned() > pinnedBefore - PER_USER) {
        assertTrue("eve's endpoints were not released after the answers ("
          + rpc.getNumRdmaEndpointsPinned() + " pinned)", System.currentTimeMillis() < deadline);
        Thread.sleep(50);
      }
      assertEquals(released + PER_USER, RdmaRpcMetrics.count("server.endpoints.released"));
      RdmaEndpoint again = offerAndConnect(t, conf, eve);
      assertTrue(again.isOpen());
      again.close();
    }
  }

  /**
   * A peer with a valid token that sends fuzzed frames (random lengths and bytes, truncated
   * headers), five endpoints in a row: the server keeps serving — each new endpoint is accepted,
   * and a hybrid client's calls over an endpoint work afterwards.
   */
  @Test(timeout = 120_000)
  public void fuzzedFramesCloseOnlyThatEndpoint() throws Exception {
    Configuration conf = RpcTestSupport.hybridClient(cluster.clientConf());
    User mallory = User.createUserForTesting(conf, "mallory", new String[0]);
    java.util.Random random = new java.util.Random(42);
    try (LoopbackTransport t = new LoopbackTransport(RdmaTransports.transportConf(conf))) {
      for (int round = 0; round < 5; round++) {
        java.util.concurrent.CountDownLatch closed = new java.util.concurrent.CountDownLatch(1);
        RdmaEndpoint e = null;
        for (long end = System.currentTimeMillis() + 30_000; e == null;) {
          try {
            e = offerAndConnect(t, conf, mallory, closed);
          } catch (IOException capped) { // the previous rounds' endpoints are still closing
            assertTrue(String.valueOf(capped), System.currentTimeMillis() < end);
            Thread.sleep(100);
          }
        }
        try {
          for (int i = 0; i < 50 && e.isOpen(); i++) {
            byte[] junk = new byte[random.nextInt(64)];
            random.nextBytes(junk);
            if (junk.length > 4 && random.nextBoolean()) {
              junk[0] = 0; // a plausible length prefix with garbage after it
            }
            e.send(ByteBuffer.wrap(junk));
          }
        } catch (IOException closedMeanwhile) {
          // the server closed it while we were sending
        }
        // As on a socket, a frame that does not parse closes the endpoint, and one that parses
        // into an unknown call gets an error response; either way the peer is not served more.
        e.close();
        assertTrue("round " + round + ": the endpoint did not close",
          closed.await(30, java.util.concurrent.TimeUnit.SECONDS));
      }
    }
    TableName name = TableName.valueOf("after-fuzz");
    try (Connection admin = ConnectionFactory.createConnection(cluster.clientConf())) {
      RpcTestSupport.createTable(admin, name);
    }
    try (Connection c = ConnectionFactory.createConnection(conf); Table table = c.getTable(name)) {
      RoutedCallChecks.connectEndpoint(table);
      long rdma = RdmaRpcMetrics.count("client.Get.rdma");
      table.get(new Get(Bytes.toBytes("warm-up")));
      assertEquals("the server still serves endpoint calls", rdma + 1,
        RdmaRpcMetrics.count("client.Get.rdma"));
    }
  }

  /** Asks for an offer over an authenticated socket connection as {@code user}, then connects. */
  private static RdmaEndpoint offerAndConnect(LoopbackTransport t, Configuration conf, User user)
    throws Exception {
    return offerAndConnect(t, conf, user, null);
  }

  private static RdmaEndpoint offerAndConnect(LoopbackTransport t, Configuration conf, User user,
    java.util.concurrent.CountDownLatch closed) throws Exception {
    ServerName sn = cluster.regionServer().getServerName();
    EndpointOffer offer;
    try (NettyRpcClient sockets = new NettyRpcClient(conf)) {
      ClientService.BlockingInterface stub = ClientService.newBlockingStub(
        sockets.createBlockingRpcChannel(sn, user, 10_000));
      ConnectionHeader header = ConnectionHeader.newBuilder().setServiceName("ClientService")
        .setCellBlockCodecClass("org.apache.hadoop.hbase.codec.KeyValueCodec").build();
      try {
        offer = EndpointOffer.fromResponse(stub.execRegionServerService(
          new HBaseRpcControllerImpl(), EndpointOffer.request(header.toByteArray())));
      } catch (org.apache.hbase.thirdparty.com.google.protobuf.ServiceException e) {
        throw new IOException(e.getCause() == null ? e : e.getCause());
      }
    }
    RdmaReceiver receiver = closed == null ? NOTHING : new RdmaReceiver() {
      @Override
      public void onMessage(RdmaEndpoint endpoint, ByteBuffer message) {
      }

      @Override
      public void onClose(RdmaEndpoint endpoint, IOException cause) {
        closed.countDown();
      }
    };
    return t.connect(offer.address(), EndpointTokens.privateData(offer.token()), receiver, 1000);
  }

  private static final RdmaReceiver NOTHING = new RdmaReceiver() {
    @Override
    public void onMessage(RdmaEndpoint endpoint, ByteBuffer message) {
    }

    @Override
    public void onClose(RdmaEndpoint endpoint, IOException cause) {
    }
  };
}
