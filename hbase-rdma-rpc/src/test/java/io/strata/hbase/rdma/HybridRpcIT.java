package io.strata.hbase.rdma;

import static io.strata.hbase.rdma.RpcTestSupport.FAMILY;
import static io.strata.hbase.rdma.RpcTestSupport.QUALIFIER;
import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.strata.rdma.loopback.LoopbackTransport;
import io.strata.rdma.transport.RdmaEndpoint;
import io.strata.rdma.transport.RdmaReceiver;
import io.strata.rdma.transport.RdmaTransportKeys;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.ConnectException;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.management.AttributeNotFoundException;
import javax.management.InstanceNotFoundException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.AsyncConnection;
import org.apache.hadoop.hbase.client.AsyncTable;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.ipc.HBaseRpcControllerImpl;
import org.apache.hadoop.hbase.ipc.HybridRpcServer;
import org.apache.hadoop.hbase.ipc.NettyRpcClient;
import org.apache.hadoop.hbase.quotas.QuotaSettingsFactory;
import org.apache.hadoop.hbase.quotas.RpcThrottlingException;
import org.apache.hadoop.hbase.quotas.ThrottleType;
import org.apache.hadoop.hbase.security.AccessDeniedException;
import org.apache.hadoop.hbase.security.User;
import org.apache.hadoop.hbase.security.access.AccessControlClient;
import org.apache.hadoop.hbase.security.access.Permission;
import org.apache.hadoop.hbase.security.access.PermissionStorage;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.ClientService;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.CoprocessorServiceResponse;
import org.apache.hadoop.hbase.shaded.protobuf.generated.RPCProtos.ConnectionHeader;
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
  private static final int MAX_MESSAGE = 256 << 10;
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
    conf.setBoolean("hbase.quota.enabled", true);
    conf.setInt(RdmaTransportKeys.MAX_MESSAGE, MAX_MESSAGE);
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
    RoutedCallChecks.getPutAndMulti(cluster, admin,
      RpcTestSupport.hybridClient(cluster.clientConf()), TableName.valueOf("routed"), 100);
  }

  /**
   * A client whose strata.rdma.max.message.bytes (64 KiB) is below the server's (256 KiB): the
   * limits are exchanged at connect and each side checks the smaller one. A 100 KiB Put goes
   * over the socket before anything is sent; a 100 KiB Get response, too large for the client,
   * is replaced by the server and the Get re-sent over the socket — no call waits out its
   * timeout for a response the endpoint cannot carry.
   */
  @Test
  public void mismatchedMessageLimitsUseTheSmallerOneAndFallBack() throws Exception {
    TableName name = TableName.valueOf("mismatched");
    RpcTestSupport.createTable(admin, name);
    Configuration conf = RpcTestSupport.hybridClient(cluster.clientConf());
    conf.setInt(RdmaTransportKeys.MAX_MESSAGE, 64 << 10);
    conf.setInt("hbase.rpc.timeout", 10_000);
    conf.setInt("hbase.client.retries.number", 1);
    byte[] bigRow = Bytes.toBytes("big");
    byte[] big = new byte[100 << 10];
    Arrays.fill(big, (byte) 'b');
    try (Connection c = ConnectionFactory.createConnection(conf); Table t = c.getTable(name)) {
      RoutedCallChecks.connectEndpoint(t);
      long fallback = count("client.fallback.before.send");
      long socketPuts = count("client.Mutate.sockets");
      t.put(new Put(bigRow).addColumn(FAMILY, QUALIFIER, big));
      assertEquals("the Put above the client's limit was not sent over the endpoint",
        fallback + 1, count("client.fallback.before.send"));
      assertEquals(socketPuts + 1, count("client.Mutate.sockets"));

      long resent = count("client.resent.response.too.large");
      long rdmaGets = count("client.Get.rdma");
      long t0 = System.nanoTime();
      assertArrayEquals(big, t.get(new Get(bigRow)).getValue(FAMILY, QUALIFIER));
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertEquals("the Get went over the endpoint first", rdmaGets + 1, count("client.Get.rdma"));
      assertEquals("its response, above the client's limit, was re-sent over the socket",
        resent + 1, count("client.resent.response.too.large"));
      assertTrue("the Get took " + ms + " ms", ms < 8_000);
      long gets = count("client.Get.rdma");
      t.get(new Get(Bytes.toBytes("warm-up")));
      assertEquals("the endpoint still carries calls", gets + 1, count("client.Get.rdma"));
    }
  }

  /**
   * With Scan routed, a scan whose responses stay under the endpoint's message limit
   * ({@code Scan.setMaxResultSize}) reads every row over the endpoint; one whose response would
   * exceed it fails with the error naming the limit's key rather than losing rows.
   */
  @Test
  public void routedScansReadEveryRowOrFailNamingTheLimit() throws Exception {
    TableName name = TableName.valueOf("scanned");
    RpcTestSupport.createTable(admin, name);
    int rows = 300;
    Configuration conf = RpcTestSupport.hybridClient(cluster.clientConf());
    conf.set(HybridRpcKeys.Client.ROUTED_METHODS, "Get,Mutate,Multi,Scan");
    try (Connection c = ConnectionFactory.createConnection(conf); Table t = c.getTable(name)) {
      RoutedCallChecks.connectEndpoint(t);
      List<Put> puts = new ArrayList<>();
      for (int i = 0; i < rows; i++) {
        puts.add(new Put(row(i)).addColumn(FAMILY, QUALIFIER, value(i)));
      }
      t.put(puts);

      long scansOverEndpoint = count("client.Scan.rdma");
      long scansOverSockets = count("client.Scan.sockets");
      long serverScans = count("server.Scan.calls");
      Scan bounded = new Scan().withStartRow(row(0)).withStopRow(row(rows)).setCaching(1000)
        .setMaxResultSize(MAX_MESSAGE / 4);
      int n = 0;
      try (ResultScanner scanner = t.getScanner(bounded)) {
        for (Result r : scanner) {
          assertArrayEquals(row(n), r.getRow());
          assertArrayEquals(value(n), r.getValue(FAMILY, QUALIFIER));
          n++;
        }
      }
      assertEquals(rows, n);
      long overEndpoint = count("client.Scan.rdma") - scansOverEndpoint;
      assertTrue("the scan took several calls over the endpoint: " + overEndpoint,
        overEndpoint >= (long) rows * value(0).length / (MAX_MESSAGE / 4));
      assertEquals(0, count("client.Scan.sockets") - scansOverSockets);
      assertEquals(overEndpoint, count("server.Scan.calls") - serverScans);

      // A row larger than the limit cannot be split across responses.
      byte[] big = Bytes.toBytes("zz-big");
      t.put(new Put(big).addColumn(FAMILY, QUALIFIER, new byte[MAX_MESSAGE + 1024]));
      Scan tooLarge = new Scan().withStartRow(big).withStopRow(Bytes.add(big, new byte[] { 0 }));
      try (ResultScanner scanner = t.getScanner(tooLarge)) {
        scanner.next();
        fail("a scan response above the endpoint's limit must fail");
      } catch (IOException e) {
        assertTrue(String.valueOf(e), chainMentions(e, RdmaTransportKeys.MAX_MESSAGE));
      }
    }
  }

  private static boolean chainMentions(Throwable e, String text) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (String.valueOf(t.getMessage()).contains(text)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Blocking Gets over the endpoint are answered to a caller that polls (no wake-up), and the
   * RegionServer's idle handler takes calls by polling its call queue; the results are right.
   */
  @Test
  public void blockingCallsArePolledForAndHandlersPollForCalls() throws Exception {
    TableName name = TableName.valueOf("polled");
    RpcTestSupport.createTable(admin, name);
    Configuration conf = RpcTestSupport.hybridClient(cluster.clientConf());
    conf.setLong(HybridRpcKeys.Client.POLL_US, 5_000);
    try (Connection c = ConnectionFactory.createConnection(conf); Table t = c.getTable(name)) {
      RoutedCallChecks.connectEndpoint(t);
      for (int i = 0; i < 50; i++) {
        t.put(new Put(Bytes.toBytes("r" + i)).addColumn(FAMILY, QUALIFIER, Bytes.toBytes(i)));
      }
      long polled = count("client.responses.polled");
      long waited = count("client.responses.waited");
      long rdmaGets = count("client.Get.rdma");
      long handlerPolled = count("server.calls.polled");
      int gets = 500;
      for (int i = 0; i < gets; i++) {
        Result r = t.get(new Get(Bytes.toBytes("r" + (i % 50))));
        assertArrayEquals(Bytes.toBytes(i % 50), r.getValue(FAMILY, QUALIFIER));
      }
      assertEquals("every Get went over the endpoint", gets, count("client.Get.rdma") - rdmaGets);
      long p = count("client.responses.polled") - polled;
      long w = count("client.responses.waited") - waited;
      assertEquals("every endpoint Get's answer was polled for or waited for", gets, p + w);
      assertTrue("most answers came while the caller polled: " + p + " polled, " + w + " waited",
        p > gets / 2);
      assertTrue("the idle handler took calls by polling",
        count("server.calls.polled") > handlerPolled);
    }
  }

  /**
   * HBase shuts a socket down after the idle time without a write to it; with every call on the
   * endpoint that came every idle time and took the busy endpoint with it (calls in flight failed
   * and were retried). A busy endpoint now stays; an idle one is still closed.
   */
  @Test
  public void aBusyEndpointOutlivesItsIdleSocketAndAnIdleOneIsClosed() throws Exception {
    TableName name = TableName.valueOf("idle_socket");
    RpcTestSupport.createTable(admin, name);
    Configuration conf = RpcTestSupport.hybridClient(cluster.clientConf());
    int idleMs = 1500;
    conf.setInt("hbase.ipc.client.connection.minIdleTimeBeforeClose", idleMs);
    HybridRpcServer rpc = (HybridRpcServer) cluster.regionServer().getRpcServer();
    try (Connection c = ConnectionFactory.createConnection(conf); Table t = c.getTable(name)) {
      RoutedCallChecks.connectEndpoint(t);
      t.put(new Put(Bytes.toBytes("r")).addColumn(FAMILY, QUALIFIER, Bytes.toBytes(1)));
      long connected = count("client.endpoints.connected");
      long failed = count("client.failed.after.send") + count("client.endpoints.failed");
      long socketGets = count("client.Get.sockets");
      long rdmaGets = count("client.Get.rdma");
      long end = System.currentTimeMillis() + 4L * idleMs;
      int gets = 0;
      while (System.currentTimeMillis() < end) {
        assertArrayEquals(Bytes.toBytes(1), t.get(new Get(Bytes.toBytes("r")))
          .getValue(FAMILY, QUALIFIER));
        gets++;
        Thread.sleep(1);
      }
      assertEquals("no new endpoint in " + 4 * idleMs + " ms of Gets", connected,
        count("client.endpoints.connected"));
      assertEquals("no call failed or went over the socket", failed,
        count("client.failed.after.send") + count("client.endpoints.failed"));
      assertEquals(socketGets, count("client.Get.sockets"));
      assertEquals(gets, count("client.Get.rdma") - rdmaGets);
      // Idle now: HBase's idle-connection cleanup closes the endpoint with the connection.
      int before = rpc.getNumRdmaConnections();
      long deadline = System.currentTimeMillis() + 6L * idleMs + 10_000;
      while (rpc.getNumRdmaConnections() >= before) {
        assertTrue("the idle endpoint was not closed (" + before + " endpoints on the server)",
          System.currentTimeMillis() < deadline);
        Thread.sleep(100);
      }
    }
  }

  /**
   * An AsyncTable Get over the endpoint is polled for on the issuing thread, so that its future
   * is complete when get() returns and join() does not park; with the key off it is not.
   */
  @Test
  public void asyncCallsArePolledForUnlessTurnedOff() throws Exception {
    TableName name = TableName.valueOf("polled_async");
    RpcTestSupport.createTable(admin, name);
    try (Table t = admin.getTable(name)) {
      for (int i = 0; i < 50; i++) {
        t.put(new Put(Bytes.toBytes("r" + i)).addColumn(FAMILY, QUALIFIER, Bytes.toBytes(i)));
      }
    }
    for (boolean poll : new boolean[] { true, false }) {
      Configuration conf = RpcTestSupport.hybridClient(cluster.clientConf());
      conf.setLong(HybridRpcKeys.Client.POLL_US, 5_000);
      conf.setBoolean(HybridRpcKeys.Client.ASYNC_POLL, poll);
      try (AsyncConnection c = ConnectionFactory.createAsyncConnection(conf).get()) {
        AsyncTable<?> t = c.getTable(name);
        long deadline = System.currentTimeMillis() + 30_000;
        long before = count("client.Get.rdma");
        while (count("client.Get.rdma") == before) {
          // the first calls set the endpoint up and go over the socket
          t.get(new Get(Bytes.toBytes("r0"))).join();
          assertTrue("no async Get over the endpoint in 30 s",
            System.currentTimeMillis() < deadline);
          Thread.sleep(10);
        }
        long polled = count("client.responses.polled");
        long waited = count("client.responses.waited");
        long rdmaGets = count("client.Get.rdma");
        int gets = 300;
        int doneOnReturn = 0;
        for (int i = 0; i < gets; i++) {
          java.util.concurrent.CompletableFuture<Result> f = t.get(new Get(Bytes.toBytes("r"
            + (i % 50))));
          if (f.isDone()) {
            doneOnReturn++;
          }
          assertArrayEquals(Bytes.toBytes(i % 50), f.join().getValue(FAMILY, QUALIFIER));
        }
        assertEquals("every async Get went over the endpoint", gets,
          count("client.Get.rdma") - rdmaGets);
        long p = count("client.responses.polled") - polled;
        long w = count("client.responses.waited") - waited;
        if (poll) {
          assertEquals("every async Get's answer was polled for or waited for", gets, p + w);
          assertTrue("most answers came while the issuing thread polled: " + p + " polled, " + w
            + " waited", p > gets / 2);
          assertTrue("most futures were complete when get() returned: " + doneOnReturn,
            doneOnReturn > gets / 2);
        } else {
          assertEquals("with " + HybridRpcKeys.Client.ASYNC_POLL + "=false nothing is polled for",
            0, p + w);
        }
      }
    }
  }

  /**
   * A Get (or a Multi of Gets) whose response exceeds the endpoint's message limit is re-sent
   * over the socket; an Append is refused over the endpoint before anything is applied and re-sent
   * over the socket; a Multi mixing writes with a large Get has its writes applied once and
   * reported so, its Get fetched again.
   */
  @Test
  public void oversizedResponsesFallBackOrFailClearly() throws Exception {
    RoutedCallChecks.oversizedResponses(cluster, admin,
      RpcTestSupport.hybridClient(cluster.clientConf()), TableName.valueOf("oversized"),
      MAX_MESSAGE);
  }

  /**
   * A user's request-number throttle rejects the calls above it over the endpoint exactly as
   * over sockets: the same sequence of Gets succeeds the same number of times for a user on a
   * stock client and for one whose Gets go over the endpoint.
   */
  @Test
  public void throttleQuotaRejectsExcessCallsOverTheEndpointAsOverSockets() throws Throwable {
    TableName name = TableName.valueOf("throttled");
    RpcTestSupport.createTable(admin, name);
    try (Table t = admin.getTable(name)) {
      t.put(new Put(Bytes.toBytes("r")).addColumn(FAMILY, QUALIFIER, value(3)));
    }
    int limit = 8;
    int calls = 13;
    try (Admin a = admin.getAdmin()) {
      for (String user : new String[] { "tom", "jerry" }) {
        AccessControlClient.grant(admin, name, user, null, null, Permission.Action.READ);
        a.setQuota(QuotaSettingsFactory.throttleUser(user, ThrottleType.REQUEST_NUMBER, limit,
          TimeUnit.HOURS));
      }
    }
    cluster.regionServer().getRegionServerRpcQuotaManager().reload();

    Configuration sockets = cluster.clientConf();
    sockets.setInt("hbase.client.retries.number", 0);
    int[] overSockets = throttledGets(sockets, "jerry", name, calls, false);

    Configuration hybrid = RpcTestSupport.hybridClient(cluster.clientConf());
    hybrid.setInt("hbase.client.retries.number", 0);
    long rdma = RdmaRpcMetrics.count("client.Get.rdma");
    long served = RdmaRpcMetrics.count("server.Get.calls");
    int[] overEndpoint = throttledGets(hybrid, "tom", name, calls, true);

    assertEquals("Gets allowed over sockets", limit, overSockets[0]);
    assertEquals("Gets throttled over sockets", calls - limit, overSockets[1]);
    assertEquals("Gets allowed with the endpoint", limit, overEndpoint[0]);
    assertEquals("Gets throttled over the endpoint", calls - limit, overEndpoint[1]);
    assertEquals("all but the first Get went over the endpoint", calls - 1,
      RdmaRpcMetrics.count("client.Get.rdma") - rdma);
    assertEquals(calls - 1, RdmaRpcMetrics.count("server.Get.calls") - served);
  }

  /** {allowed, throttled} of {@code calls} Gets as {@code userName}. */
  private static int[] throttledGets(Configuration conf, String userName, TableName name,
    int calls, boolean awaitEndpoint) throws Exception {
    User user = User.createUserForTesting(cluster.conf(), userName, new String[0]);
    int[] outcome = new int[2];
    try (Connection c = ConnectionFactory.createConnection(conf, user);
      Table t = c.getTable(name)) {
      for (int i = 0; i < calls; i++) {
        long connected = RdmaRpcMetrics.count("client.endpoints.connected");
        try {
          assertArrayEquals(value(3), t.get(new Get(Bytes.toBytes("r")))
            .getValue(FAMILY, QUALIFIER));
          outcome[0]++;
        } catch (Exception e) {
          assertNotNull("throttled, not " + e,
            RoutedCallChecks.cause(e, RpcThrottlingException.class));
          outcome[1]++;
        }
        if (i == 0 && awaitEndpoint) {
          awaitCount("client.endpoints.connected", connected + 1);
        }
      }
    }
    return outcome;
  }

  /**
   * The StrataRdmaRpc counters are published over JMX under the RegionServer's name, with the
   * values read in-process (Hadoop's metrics system capitalizes the names: {@code server.Get.calls}
   * is the attribute {@code Server.Get.calls}).
   */
  @Test
  public void rdmaCountersAreVisibleOverJmx() throws Exception {
    MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
    ObjectName name = new ObjectName("Hadoop:service=HBase,name=RegionServer,sub=StrataRdmaRpc");
    TableName table = TableName.valueOf("jmx");
    RpcTestSupport.createTable(admin, table);
    try (Connection c =
      ConnectionFactory.createConnection(RpcTestSupport.hybridClient(cluster.clientConf()));
      Table t = c.getTable(table)) {
      long connected = RdmaRpcMetrics.count("client.endpoints.connected");
      t.get(new Get(Bytes.toBytes("r")));
      awaitCount("client.endpoints.connected", connected + 1);
      for (int i = 0; i < 10; i++) {
        t.get(new Get(Bytes.toBytes("r")));
      }
    }
    long inProcess = RdmaRpcMetrics.count("server.Get.calls");
    assertTrue(inProcess >= 10);
    // Published by HBase's metrics adapter (every 10 s) through Hadoop's JMX cache (10 s).
    long deadline = System.currentTimeMillis() + 45_000;
    long overJmx = -1;
    while (overJmx < inProcess && System.currentTimeMillis() < deadline) {
      try {
        overJmx = ((Number) jmx.getAttribute(name, "Server.Get.calls")).longValue();
      } catch (InstanceNotFoundException | AttributeNotFoundException notYet) {
        // registered, and its attributes refreshed, within 20 s
      }
      Thread.sleep(200);
    }
    assertTrue("MBean " + name + " not registered", jmx.isRegistered(name));
    StringBuilder attributes = new StringBuilder();
    for (javax.management.MBeanAttributeInfo ai : jmx.getMBeanInfo(name).getAttributes()) {
      attributes.append(ai.getName()).append(' ');
    }
    assertEquals("Server.Get.calls over JMX (attributes: " + attributes + ")", inProcess, overJmx);
    assertTrue(((Number) jmx.getAttribute(name, "Server.endpoints.accepted")).longValue() > 0);
  }

  /** Stock HBase client against the Strata server: sockets only, nothing over the endpoint. */
  @Test
  public void stockClientUsesSocketsUnchanged() throws Exception {
    RoutedCallChecks.stockClientUnchanged(admin, cluster.clientConf(),
      TableName.valueOf("stock_client"));
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
      assertEquals("alice via HybridServerCall", CallRecorder.GETS.get("secret"));
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
    try (LoopbackTransport intruder = new LoopbackTransport(RdmaTransports.transportConf(conf))) {
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
   * Endpoints killed every 40 ms under a load of Puts, batched Puts and Increments: every row is
   * there once, and the counter equals the number of Increments — no call lost, none applied
   * twice — while calls switched between the endpoint and sockets.
   */
  @Test
  public void killingEndpointsUnderLoadLosesAndRepeatsNothing() throws Exception {
    RoutedCallChecks.killUnderLoad(admin, RpcTestSupport.hybridClient(cluster.clientConf()),
      TableName.valueOf("fallback"), 4, 400, 40, LoopbackTransport::killEndpoints);
  }

  private static void awaitCount(String counter, long atLeast) throws InterruptedException {
    RoutedCallChecks.awaitCount(counter, atLeast);
  }

  private static long count(String counter) {
    return RdmaRpcMetrics.count(counter);
  }

  static byte[] value(int i) {
    return RoutedCallChecks.value(i);
  }

  static byte[] row(int i) {
    return RoutedCallChecks.row(i);
  }
}
