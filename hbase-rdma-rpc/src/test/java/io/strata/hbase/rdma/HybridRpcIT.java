package io.strata.hbase.rdma;

import static io.strata.hbase.rdma.RpcTestSupport.FAMILY;
import static io.strata.hbase.rdma.RpcTestSupport.QUALIFIER;
import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.net.ConnectException;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import io.strata.rdma.loopback.LoopbackTransport;
import io.strata.rdma.transport.RdmaEndpoint;
import io.strata.rdma.transport.RdmaReceiver;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.ipc.HybridRpcClient;
import org.apache.hadoop.hbase.ipc.HBaseRpcControllerImpl;
import org.apache.hadoop.hbase.ipc.NettyRpcClient;
import org.apache.hadoop.hbase.security.AccessDeniedException;
import org.apache.hadoop.hbase.security.User;
import org.apache.hadoop.hbase.security.access.AccessControlClient;
import org.apache.hadoop.hbase.security.access.Permission;
import org.apache.hadoop.hbase.security.access.PermissionStorage;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.ClientService;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.CoprocessorServiceResponse;
import org.apache.hadoop.hbase.shaded.protobuf.generated.RPCProtos.ConnectionHeader;
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

/**
 * A Strata RegionServer (hybrid RPC server, loopback transport, AccessController on) with Strata
 * and stock clients: routing, the user and access checks of endpoint calls, rejection of
 * unauthenticated endpoint requests, and fallback when endpoints die under load.
 */
public class HybridRpcIT {
  private static final String ACCESS_CONTROLLER =
    "org.apache.hadoop.hbase.security.access.AccessController";
  private static MiniHBase cluster;
  private static Connection admin;

  @BeforeClass
  public static void start() throws Exception {
    Configuration conf = RpcTestSupport.hybridServer();
    conf.setBoolean("hbase.security.authorization", true);
    conf.set("hbase.coprocessor.master.classes", ACCESS_CONTROLLER);
    conf.set("hbase.coprocessor.region.classes", ACCESS_CONTROLLER);
    conf.set("hbase.coprocessor.regionserver.classes", ACCESS_CONTROLLER);
    conf.set("hbase.superuser", User.getCurrent().getShortName());
    cluster = MiniHBase.start("hybrid-rpc", conf);
    admin = ConnectionFactory.createConnection(cluster.clientConf());
    waitForAclTable();
  }

  private static void waitForAclTable() throws Exception {
    long deadline = System.currentTimeMillis() + 60_000;
    try (Admin a = admin.getAdmin()) {
      while (!a.tableExists(PermissionStorage.ACL_TABLE_NAME)
        || !a.isTableAvailable(PermissionStorage.ACL_TABLE_NAME)) {
        assertTrue("hbase:acl not up within 60 s", System.currentTimeMillis() < deadline);
        Thread.sleep(100);
      }
    }
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

  @Test
  public void getPutAndMultiGoOverTheEndpoint() throws Exception {
    TableName name = TableName.valueOf("routed");
    HybridRpcServer rpc = (HybridRpcServer) cluster.regionServer().getRpcServer();
    assertTrue("the RegionServer listens for RDMA", rpc.getRdmaAddress() != null);
    RpcTestSupport.createTable(admin, name);
    try (Connection c =
      ConnectionFactory.createConnection(RpcTestSupport.hybridClient(cluster.clientConf()))) {
      try (Table t = c.getTable(name)) {
        // The first routed call sets the endpoint up; it and any before it go over sockets.
        long connected = RdmaRpcMetrics.count("client.endpoints.connected");
        t.put(new Put(Bytes.toBytes("warm-up")).addColumn(FAMILY, QUALIFIER, Bytes.toBytes(0)));
        awaitCount("client.endpoints.connected", connected + 1);
        assertTrue(rpc.getNumRdmaConnections() > 0);
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

  /** Stock HBase client against the Strata server: sockets only, nothing over the endpoint. */
  @Test
  public void stockClientUsesSocketsUnchanged() throws Exception {
    TableName name = TableName.valueOf("stock_client");
    RpcTestSupport.createTable(admin, name);
    long offers = RdmaRpcMetrics.count("server.offers");
    long rdmaGets = RdmaRpcMetrics.count("server.Get.calls");
    long rdmaMutates = RdmaRpcMetrics.count("server.Mutate.calls");
    Configuration conf = cluster.clientConf();
    assertEquals(null, conf.get("hbase.rpc.client.impl"));
    try (Connection c = ConnectionFactory.createConnection(conf); Table t = c.getTable(name)) {
      for (int i = 0; i < 50; i++) {
        t.put(new Put(Bytes.toBytes("row-" + i)).addColumn(FAMILY, QUALIFIER, value(i)));
      }
      for (int i = 0; i < 50; i++) {
        assertArrayEquals(value(i), t.get(new Get(Bytes.toBytes("row-" + i)))
          .getValue(FAMILY, QUALIFIER));
      }
    }
    assertEquals(offers, RdmaRpcMetrics.count("server.offers"));
    assertEquals(rdmaGets, RdmaRpcMetrics.count("server.Get.calls"));
    assertEquals(rdmaMutates, RdmaRpcMetrics.count("server.Mutate.calls"));
  }

  /**
   * Endpoint calls run as the user the socket connection authenticated, and the AccessController
   * checks them as it checks socket calls: a user without rights is denied over the endpoint.
   */
  @Test
  public void endpointCallsRunAsTheSocketUserUnderTheSameAccessChecks() throws Throwable {
    TableName name = TableName.valueOf("acl");
    RpcTestSupport.createTable(admin, name, CallRecorder.class.getName());
    try (Table t = admin.getTable(name)) {
      t.put(new Put(Bytes.toBytes("secret")).addColumn(FAMILY, QUALIFIER, value(7)));
    }
    AccessControlClient.grant(admin, name, "alice", null, null, Permission.Action.READ);
    User alice = User.createUserForTesting(cluster.conf(), "alice", new String[0]);
    User mallory = User.createUserForTesting(cluster.conf(), "mallory", new String[0]);
    Configuration conf = RpcTestSupport.hybridClient(cluster.clientConf());

    try (Connection c = ConnectionFactory.createConnection(conf, alice);
      Table t = c.getTable(name)) {
      long connected = RdmaRpcMetrics.count("client.endpoints.connected");
      t.get(new Get(Bytes.toBytes("secret"))); // over sockets; sets the endpoint up
      awaitCount("client.endpoints.connected", connected + 1);
      long rdma = RdmaRpcMetrics.count("client.Get.rdma");
      CallRecorder.GETS.remove("secret");
      assertArrayEquals(value(7), t.get(new Get(Bytes.toBytes("secret")))
        .getValue(FAMILY, QUALIFIER));
      assertEquals(rdma + 1, RdmaRpcMetrics.count("client.Get.rdma"));
      assertEquals("alice via RdmaServerCall", CallRecorder.GETS.get("secret"));
    }

    try (Connection c = ConnectionFactory.createConnection(conf, mallory);
      Table t = c.getTable(name)) {
      long connected = RdmaRpcMetrics.count("client.endpoints.connected");
      assertDenied(t);
      awaitCount("client.endpoints.connected", connected + 1);
      long rdma = RdmaRpcMetrics.count("client.Get.rdma");
      long served = RdmaRpcMetrics.count("server.Get.calls");
      assertDenied(t);
      assertEquals("the denied Get went over the endpoint", rdma + 1,
        RdmaRpcMetrics.count("client.Get.rdma"));
      assertEquals(served + 1, RdmaRpcMetrics.count("server.Get.calls"));
    }
  }

  private static void assertDenied(Table t) throws Exception {
    try {
      t.get(new Get(Bytes.toBytes("secret")));
      fail("mallory has no READ on the table");
    } catch (AccessDeniedException expected) {
      // as over sockets
    }
  }

  /**
   * A peer that did not get a token over an authenticated socket connection cannot open an
   * endpoint: no private data, a forged token, a replayed token are all refused.
   */
  @Test
  public void endpointRequestsWithoutAValidTokenAreRefused() throws Exception {
    HybridRpcServer rpc = (HybridRpcServer) cluster.regionServer().getRpcServer();
    Configuration conf = RpcTestSupport.hybridClient(cluster.clientConf());
    long rejected = RdmaRpcMetrics.count("server.endpoints.rejected");
    try (LoopbackTransport intruder = new LoopbackTransport(conf)) {
      assertRefused(intruder, rpc, ByteBuffer.allocate(0));
      byte[] forged = new byte[EndpointTokens.TOKEN_BYTES];
      new SecureRandom().nextBytes(forged);
      assertRefused(intruder, rpc, EndpointTokens.privateData(forged));
      assertEquals(rejected + 2, RdmaRpcMetrics.count("server.endpoints.rejected"));

      // A real token, obtained over an authenticated socket connection, works once.
      ServerName sn = cluster.regionServer().getServerName();
      EndpointOffer offer;
      try (NettyRpcClient sockets = new NettyRpcClient(conf)) {
        ClientService.BlockingInterface stub = ClientService.newBlockingStub(
          sockets.createBlockingRpcChannel(sn, User.getCurrent(), 10_000));
        ConnectionHeader header = ConnectionHeader.newBuilder().setServiceName("ClientService")
          .setCellBlockCodecClass("org.apache.hadoop.hbase.codec.KeyValueCodec").build();
        CoprocessorServiceResponse r = stub.execRegionServerService(new HBaseRpcControllerImpl(),
          EndpointOffer.request(header.toByteArray()));
        offer = EndpointOffer.fromResponse(r);
      }
      assertEquals(rpc.getRdmaAddress().getPort(), offer.address().getPort());
      RdmaEndpoint e = intruder.connect(offer.address(),
        EndpointTokens.privateData(offer.token()), NOTHING, 1000);
      e.close();
      assertRefused(intruder, rpc, EndpointTokens.privateData(offer.token()));
    }
  }

  private static final RdmaReceiver NOTHING = new RdmaReceiver() {
    @Override
    public void onMessage(RdmaEndpoint endpoint, ByteBuffer message) {
    }

    @Override
    public void onClose(RdmaEndpoint endpoint, java.io.IOException cause) {
    }
  };

  private static void assertRefused(LoopbackTransport t, HybridRpcServer rpc, ByteBuffer pd)
    throws Exception {
    try {
      t.connect(rpc.getRdmaAddress(), pd, NOTHING, 1000);
      fail("connection request accepted without a valid token");
    } catch (ConnectException expected) {
      // refused: the peer gets nothing
    }
  }

  /**
   * Endpoints killed again and again under a load of Puts, batched Puts and Increments: every
   * row is there once, and the counter equals the number of Increments — no call lost, none
   * applied twice — while calls switched between the endpoint and sockets.
   */
  @Test
  public void killingEndpointsUnderLoadLosesAndRepeatsNothing() throws Exception {
    TableName name = TableName.valueOf("fallback");
    RpcTestSupport.createTable(admin, name);
    Configuration conf = RpcTestSupport.hybridClient(cluster.clientConf());
    conf.setLong(RdmaKeys.RETRY_MS, 50);
    conf.setInt("hbase.client.pause", 20);
    int writers = 4;
    int opsPerWriter = 400;
    byte[] counterRow = Bytes.toBytes("counter");
    long afterSend = RdmaRpcMetrics.count("client.failed.after.send");
    long beforeSend = RdmaRpcMetrics.count("client.fallback.before.send");
    long rdmaMutates = RdmaRpcMetrics.count("client.Mutate.rdma");
    long socketMutates = RdmaRpcMetrics.count("client.Mutate.sockets");
    AtomicInteger increments = new AtomicInteger();
    AtomicInteger kills = new AtomicInteger();
    AtomicBoolean loading = new AtomicBoolean(true);
    ExecutorService pool = Executors.newFixedThreadPool(writers + 1);
    try (Connection c = ConnectionFactory.createConnection(conf)) {
      List<Future<?>> load = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        int writer = w;
        load.add(pool.submit(() -> {
          try (Table t = c.getTable(name)) {
            for (int i = 0; i < opsPerWriter; i++) {
              if (i % 10 == 9) {
                List<Put> batch = new ArrayList<>();
                for (int b = 0; b < 10; b++) {
                  batch.add(put("batch-" + writer + "-" + i + "-" + b));
                }
                t.put(batch);
              } else {
                t.put(put("row-" + writer + "-" + i));
              }
              t.increment(new Increment(counterRow).addColumn(FAMILY, QUALIFIER, 1));
              increments.incrementAndGet();
            }
          }
          return null;
        }));
      }
      Future<?> killer = pool.submit(() -> {
        while (loading.get()) {
          Thread.sleep(40);
          kills.addAndGet(LoopbackTransport.killEndpoints());
        }
        return null;
      });
      for (Future<?> f : load) {
        f.get(3, TimeUnit.MINUTES);
      }
      loading.set(false);
      killer.get();

      int expectedRows = writers * (opsPerWriter / 10 * 9 + opsPerWriter / 10 * 10);
      int rows = 0;
      try (Table t = c.getTable(name);
        ResultScanner s = t.getScanner(new Scan())) {
        for (Result r : s) {
          if (!Bytes.equals(counterRow, r.getRow())) {
            assertArrayEquals(Bytes.toString(r.getRow()), payload(Bytes.toString(r.getRow())),
              r.getValue(FAMILY, QUALIFIER));
            rows++;
          }
        }
        long counter = Bytes.toLong(t.get(new Get(counterRow)).getValue(FAMILY, QUALIFIER));
        assertEquals(expectedRows, rows);
        assertEquals("each Increment applied exactly once", increments.get(), counter);
      }
    } finally {
      pool.shutdownNow();
    }
    assertTrue("endpoints were killed", kills.get() > 0);
    assertTrue("calls in flight on a killed endpoint were retried",
      RdmaRpcMetrics.count("client.failed.after.send") > afterSend);
    assertTrue(RdmaRpcMetrics.count("client.Mutate.rdma") > rdmaMutates);
    assertTrue(RdmaRpcMetrics.count("client.Mutate.sockets") > socketMutates);
    System.out.println("fallback under load: kills=" + kills + ", failed after send="
      + (RdmaRpcMetrics.count("client.failed.after.send") - afterSend) + ", before send="
      + (RdmaRpcMetrics.count("client.fallback.before.send") - beforeSend) + ", Mutate rdma="
      + (RdmaRpcMetrics.count("client.Mutate.rdma") - rdmaMutates) + ", Mutate sockets="
      + (RdmaRpcMetrics.count("client.Mutate.sockets") - socketMutates));
  }

  private static Put put(String row) {
    return new Put(Bytes.toBytes(row)).addColumn(FAMILY, QUALIFIER, payload(row));
  }

  private static byte[] payload(String row) {
    return Bytes.toBytes("value of " + row);
  }

  private static void awaitCount(String counter, long atLeast) throws InterruptedException {
    long deadline = System.currentTimeMillis() + 10_000;
    while (RdmaRpcMetrics.count(counter) < atLeast) {
      assertTrue(counter + " did not reach " + atLeast, System.currentTimeMillis() < deadline);
      Thread.sleep(10);
    }
  }

  static byte[] value(int i) {
    byte[] v = new byte[1024];
    java.util.Arrays.fill(v, (byte) i);
    return v;
  }
}
