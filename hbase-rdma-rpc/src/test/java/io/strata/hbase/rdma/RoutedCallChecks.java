package io.strata.hbase.rdma;

import static io.strata.hbase.rdma.RdmaRpcMetrics.count;
import static io.strata.hbase.rdma.RpcTestSupport.FAMILY;
import static io.strata.hbase.rdma.RpcTestSupport.QUALIFIER;
import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.strata.rdma.transport.RdmaTransportKeys;
import io.strata.rdma.transport.TransportCounters;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Append;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.RpcClients;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.ipc.HybridRpcClient;
import org.apache.hadoop.hbase.ipc.HybridRpcServer;
import org.apache.hadoop.hbase.metrics.BaseSourceImpl;
import org.apache.hadoop.hbase.regionserver.MetricsRegionServerWrapper;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.metrics2.lib.MutableHistogram;

/**
 * Workloads and assertions shared by {@code HybridRpcIT} (loopback transport) and
 * {@code HybridRpcVerbsIT} (verbs transport on an RDMA device): the same checks on either
 * transport, against a {@link MiniHBase} whose RegionServer runs {@link HybridRpcServer}.
 */
final class RoutedCallChecks {
  /** System property: seconds the kill-under-load workload may take (default 240). */
  static final String LOAD_TIMEOUT_S = "strata.it.load.timeout.s";
  private RoutedCallChecks() {
  }

  /**
   * Single Puts, one batch of Puts and a Get of every row through a new hybrid connection: every
   * call after the endpoint's set-up goes over the endpoint (client and server counters, the
   * endpoints' own message counters), every row reads back, and HBase's own server call metrics
   * (the RegionServer's request counts, the RPC server's call histogram) count the endpoint calls
   * as they count socket calls.
   */
  static void getPutAndMulti(MiniHBase cluster, Connection admin, Configuration hybridConf,
    TableName name, int rows) throws Exception {
    HybridRpcServer rpc = (HybridRpcServer) cluster.regionServer().getRpcServer();
    assertNotNull("the RegionServer listens for RDMA", rpc.getRdmaAddress());
    RpcTestSupport.createTable(admin, name);
    MetricsRegionServerWrapper rs = cluster.regionServer().getMetrics().getRegionServerWrapper();
    MutableHistogram serverCalls = (MutableHistogram) ((BaseSourceImpl) rpc.getMetrics()
      .getMetricsSource()).getMetricsRegistry().get("totalCallTime");
    try (Connection c = ConnectionFactory.createConnection(hybridConf);
      Table t = c.getTable(name)) {
      HybridRpcClient client = (HybridRpcClient) RpcClients.of(c);
      // The first routed call sets the endpoint up; it and any before it go over sockets.
      connectEndpoint(t);
      assertTrue(rpc.getNumRdmaConnections() > 0);

      long gets = count("server.Get.calls");
      long mutates = count("server.Mutate.calls");
      long multis = count("server.Multi.calls");
      long clientCalls = clientRdmaCalls();
      long rsGets = rs.getRpcGetRequestsCount();
      long rsMutates = rs.getRpcMutateRequestsCount();
      long rsMultis = rs.getRpcMultiRequestsCount();
      long rsRequests = rs.getTotalRequestCount();
      long ipcCalls = serverCalls.getCount();
      TransportCounters serverSide = sum(rpc.rdmaConnectionCounters());

      for (int i = 0; i < rows; i++) {
        t.put(new Put(row(i)).addColumn(FAMILY, QUALIFIER, value(i)));
      }
      List<Put> batch = new ArrayList<>();
      for (int i = rows; i < 2 * rows; i++) {
        batch.add(new Put(row(i)).addColumn(FAMILY, QUALIFIER, value(i)));
      }
      t.put(batch);
      for (int i = 0; i < 2 * rows; i++) {
        Result r = t.get(new Get(row(i)));
        assertArrayEquals(Bytes.toString(row(i)), value(i), r.getValue(FAMILY, QUALIFIER));
      }

      long multiCalls = count("server.Multi.calls") - multis;
      assertEquals(rows, count("server.Mutate.calls") - mutates);
      assertTrue("the batch went over the endpoint", multiCalls >= 1);
      assertEquals(2 * rows, count("server.Get.calls") - gets);
      long overEndpoint = clientRdmaCalls() - clientCalls;
      assertEquals("every call went over the endpoint", rows + multiCalls + 2 * rows,
        overEndpoint);

      // What crossed the transport: one request and one response per call, with the values.
      TransportCounters ours = sum(client.endpointCounters());
      assertEquals(overEndpoint, ours.messagesSent());
      assertEquals(overEndpoint, ours.messagesReceived());
      assertTrue(ours.toString(), ours.bytesSent() > 2L * rows * value(0).length);
      assertTrue(ours.toString(), ours.bytesReceived() > 2L * rows * value(0).length);
      // The server counts a response once its send returned, which may be after the client
      // has it.
      long deadline = System.currentTimeMillis() + 10_000;
      TransportCounters theirs = sum(rpc.rdmaConnectionCounters());
      while (theirs.messagesSent() - serverSide.messagesSent() < overEndpoint
        && System.currentTimeMillis() < deadline) {
        Thread.sleep(10);
        theirs = sum(rpc.rdmaConnectionCounters());
      }
      assertTrue(theirs.toString(),
        theirs.messagesReceived() - serverSide.messagesReceived() >= overEndpoint);
      assertTrue(theirs.toString(),
        theirs.messagesSent() - serverSide.messagesSent() >= overEndpoint);

      // HBase's own call metrics count endpoint calls as socket calls (at least: the
      // RegionServer also serves the cluster's own socket calls meanwhile).
      assertTrue("rpcGetRequestCount", rs.getRpcGetRequestsCount() - rsGets >= 2 * rows);
      assertTrue("rpcMutateRequestCount", rs.getRpcMutateRequestsCount() - rsMutates >= rows);
      assertTrue("rpcMultiRequestCount", rs.getRpcMultiRequestsCount() - rsMultis >= multiCalls);
      assertTrue("totalRequestCount", rs.getTotalRequestCount() - rsRequests >= overEndpoint);
      assertTrue("the RPC server's totalCallTime count",
        serverCalls.getCount() - ipcCalls >= overEndpoint);
      System.out.println("over the endpoint: " + overEndpoint + " calls; client endpoint "
        + ours + "; server endpoints " + theirs);
    }
  }

  /** A stock HBase client against the Strata server: sockets only, nothing over the endpoint. */
  static void stockClientUnchanged(Connection admin, Configuration stockConf, TableName name)
    throws Exception {
    RpcTestSupport.createTable(admin, name);
    long offers = count("server.offers");
    long rdmaGets = count("server.Get.calls");
    long rdmaMutates = count("server.Mutate.calls");
    assertEquals(null, stockConf.get("hbase.rpc.client.impl"));
    try (Connection c = ConnectionFactory.createConnection(stockConf);
      Table t = c.getTable(name)) {
      for (int i = 0; i < 50; i++) {
        t.put(new Put(row(i)).addColumn(FAMILY, QUALIFIER, value(i)));
      }
      for (int i = 0; i < 50; i++) {
        assertArrayEquals(value(i), t.get(new Get(row(i))).getValue(FAMILY, QUALIFIER));
      }
    }
    assertEquals(offers, count("server.offers"));
    assertEquals(rdmaGets, count("server.Get.calls"));
    assertEquals(rdmaMutates, count("server.Mutate.calls"));
  }

  /**
   * A response above the eager threshold but within the endpoint's {@code limit} comes over the
   * endpoint. Responses above the limit: a Get and a Multi of Gets are re-sent over the socket
   * and return the row; an Append is refused over the endpoint before anything is applied and
   * re-sent over the socket (applied once, no error); a Multi of a Put and an Increment with a
   * large Get has its writes applied once and reported so, and the Get's result deferred and
   * fetched over the socket; the endpoint keeps working.
   */
  static void oversizedResponses(MiniHBase cluster, Connection admin, Configuration hybridConf,
    TableName name, int limit) throws Exception {
    RpcTestSupport.createTable(admin, name);
    byte[] bigRow = Bytes.toBytes("big");
    byte[] smallRow = Bytes.toBytes("small");
    byte[] big = new byte[limit + limit / 4];
    Arrays.fill(big, (byte) 'b');
    byte[] mediumRow = Bytes.toBytes("medium");
    byte[] medium = new byte[limit / 2];
    Arrays.fill(medium, (byte) 'm');
    try (Table t = admin.getTable(name)) {
      t.put(new Put(mediumRow).addColumn(FAMILY, QUALIFIER, medium));
      t.put(new Put(bigRow).addColumn(FAMILY, QUALIFIER, big));
      t.put(new Put(smallRow).addColumn(FAMILY, QUALIFIER, value(1)));
    }
    try (Connection c = ConnectionFactory.createConnection(hybridConf);
      Table t = c.getTable(name)) {
      long connected = count("client.endpoints.connected");
      t.get(new Get(smallRow));
      awaitCount("client.endpoints.connected", connected + 1);

      // Above the eager threshold, within the limit: over the endpoint (RDMA WRITE on verbs).
      long rdmaGets = count("client.Get.rdma");
      assertArrayEquals(medium, t.get(new Get(mediumRow)).getValue(FAMILY, QUALIFIER));
      assertEquals(rdmaGets + 1, count("client.Get.rdma"));

      long resent = count("client.resent.response.too.large");
      long tooLarge = count("server.responses.too.large");
      rdmaGets = count("client.Get.rdma");
      long socketGets = count("client.Get.sockets");
      assertArrayEquals(big, t.get(new Get(bigRow)).getValue(FAMILY, QUALIFIER));
      assertEquals("the Get went over the endpoint first", rdmaGets + 1,
        count("client.Get.rdma"));
      assertEquals("its response was too large", tooLarge + 1,
        count("server.responses.too.large"));
      assertEquals("and it was re-sent over the socket", resent + 1,
        count("client.resent.response.too.large"));
      assertEquals(socketGets + 1, count("client.Get.sockets"));

      long rdmaMultis = count("client.Multi.rdma");
      Result[] both = t.get(Arrays.asList(new Get(bigRow), new Get(smallRow)));
      assertArrayEquals(big, both[0].getValue(FAMILY, QUALIFIER));
      assertArrayEquals(value(1), both[1].getValue(FAMILY, QUALIFIER));
      assertEquals(rdmaMultis + 1, count("client.Multi.rdma"));
      assertEquals("the Multi of Gets was re-sent over the socket", resent + 2,
        count("client.resent.response.too.large"));

      // An Append, which may answer with more than it sent, is refused over the endpoint before
      // anything is applied, and re-sent over the socket: applied once, no error.
      long refusedUnbounded = count("server.calls.refused.unbounded");
      Result appendedResult =
        t.append(new Append(bigRow).addColumn(FAMILY, QUALIFIER, Bytes.toBytes("!")));
      assertEquals(big.length + 1, appendedResult.getValue(FAMILY, QUALIFIER).length);
      assertEquals("the Append was refused before running", refusedUnbounded + 1,
        count("server.calls.refused.unbounded"));
      assertEquals("and re-sent over the socket", resent + 3,
        count("client.resent.response.too.large"));
      byte[] appended = t.get(new Get(bigRow)).getValue(FAMILY, QUALIFIER);
      assertEquals("applied once", big.length + 1, appended.length);
      assertEquals('!', appended[big.length]);

      // A Multi of a Put and an Increment with a Get whose row exceeds the limit: the writes are
      // applied and reported so, the Get's result is deferred and fetched again over the socket.
      long deferred = count("server.multi.get.results.deferred");
      byte[] putRow = Bytes.toBytes("mixed-put");
      byte[] counterRow = Bytes.toBytes("mixed-counter");
      Object[] results = new Object[3];
      t.batch(Arrays.asList(new Put(putRow).addColumn(FAMILY, QUALIFIER, value(2)),
        new Increment(counterRow).addColumn(FAMILY, QUALIFIER, 1), new Get(bigRow)), results);
      assertEquals(big.length + 1, ((Result) results[2]).getValue(FAMILY, QUALIFIER).length);
      assertEquals("the mixed Multi ran", refusedUnbounded + 1,
        count("server.calls.refused.unbounded"));
      assertEquals("its Get's result was deferred", deferred + 1,
        count("server.multi.get.results.deferred"));
      // (+1 for the Get of the appended row above)
      assertEquals("and the Get re-sent over the socket", resent + 5,
        count("client.resent.response.too.large"));
      assertArrayEquals(value(2), t.get(new Get(putRow)).getValue(FAMILY, QUALIFIER));
      assertEquals("the Increment applied once", 1L,
        Bytes.toLong(t.get(new Get(counterRow)).getValue(FAMILY, QUALIFIER)));

      long gets = count("client.Get.rdma");
      assertArrayEquals(value(1), t.get(new Get(smallRow)).getValue(FAMILY, QUALIFIER));
      assertEquals("the endpoint still carries calls", gets + 1, count("client.Get.rdma"));
    }
  }

  /**
   * Endpoints killed every {@code killEveryMs} by {@code killer} under {@code writers} threads of
   * Puts, batched Puts and Increments: every row is there once, and the counter equals the
   * number of Increments — no call lost, none applied twice — while calls switched between the
   * endpoint and sockets.
   */
  static void killUnderLoad(Connection admin, Configuration hybridConf, TableName name,
    int writers, int opsPerWriter, long killEveryMs, Callable<Integer> killer) throws Exception {
    RpcTestSupport.createTable(admin, name);
    Configuration conf = new Configuration(hybridConf);
    conf.setLong(HybridRpcKeys.Client.RETRY_MS, 50);
    conf.setInt("hbase.client.pause", 20);
    byte[] counterRow = Bytes.toBytes("counter");
    long afterSend = count("client.failed.after.send");
    long beforeSend = count("client.fallback.before.send");
    long rdmaMutates = count("client.Mutate.rdma");
    long socketMutates = count("client.Mutate.sockets");
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
      Future<?> killing = pool.submit(() -> {
        while (loading.get()) {
          Thread.sleep(killEveryMs);
          kills.addAndGet(killer.call());
        }
        return null;
      });
      long deadline = System.nanoTime()
        + TimeUnit.SECONDS.toNanos(Long.getLong(LOAD_TIMEOUT_S, 240));
      for (Future<?> f : load) {
        try {
          f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
          dumpThreads();
          fail("the load did not finish within " + Long.getLong(LOAD_TIMEOUT_S, 240) + " s ("
            + LOAD_TIMEOUT_S + "); threads above");
        }
      }
      loading.set(false);
      killing.get();

      int expectedRows = writers * (opsPerWriter / 10 * 9 + opsPerWriter / 10 * 10);
      int rows = 0;
      try (Table t = c.getTable(name); ResultScanner s = t.getScanner(new Scan())) {
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
      count("client.failed.after.send") > afterSend);
    assertTrue(count("client.Mutate.rdma") > rdmaMutates);
    assertTrue(count("client.Mutate.sockets") > socketMutates);
    System.out.println("fallback under load: kills=" + kills + ", failed after send="
      + (count("client.failed.after.send") - afterSend) + ", before send="
      + (count("client.fallback.before.send") - beforeSend) + ", Mutate rdma="
      + (count("client.Mutate.rdma") - rdmaMutates) + ", Mutate sockets="
      + (count("client.Mutate.sockets") - socketMutates));
  }

  private static void dumpThreads() {
    for (java.lang.management.ThreadInfo ti : java.lang.management.ManagementFactory
      .getThreadMXBean().dumpAllThreads(true, true)) {
      StringBuilder b = new StringBuilder().append('"').append(ti.getThreadName()).append("\" ")
        .append(ti.getThreadState());
      if (ti.getLockName() != null) {
        b.append(" on ").append(ti.getLockName());
      }
      if (ti.getLockOwnerName() != null) {
        b.append(" owned by \"").append(ti.getLockOwnerName()).append('"');
      }
      b.append('\n');
      for (StackTraceElement e : ti.getStackTrace()) {
        b.append("    at ").append(e).append('\n');
      }
      System.out.print(b);
    }
  }

  private static long clientRdmaCalls() {
    return count("client.Get.rdma") + count("client.Mutate.rdma") + count("client.Multi.rdma");
  }

  static TransportCounters sum(List<TransportCounters> counters) {
    TransportCounters sum = new TransportCounters();
    for (TransportCounters tc : counters) {
      sum.add(tc);
    }
    return sum;
  }

  static <T extends Throwable> T cause(Throwable t, Class<T> type) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (type.isInstance(c)) {
        return type.cast(c);
      }
    }
    return null;
  }

  /**
   * Makes the table's connection set its endpoint up: the first routed call (a Put of a
   * "warm-up" row) goes over sockets and asks for an offer; waits until the endpoint connected.
   */
  static void connectEndpoint(Table t) throws IOException, InterruptedException {
    long connected = count("client.endpoints.connected");
    t.put(new Put(Bytes.toBytes("warm-up")).addColumn(FAMILY, QUALIFIER, value(0)));
    awaitCount("client.endpoints.connected", connected + 1);
  }

  static void awaitCount(String counter, long atLeast) throws InterruptedException {
    long deadline = System.currentTimeMillis() + 30_000;
    while (count(counter) < atLeast) {
      assertTrue(counter + " did not reach " + atLeast, System.currentTimeMillis() < deadline);
      Thread.sleep(10);
    }
  }

  private static Put put(String row) {
    return new Put(Bytes.toBytes(row)).addColumn(FAMILY, QUALIFIER, payload(row));
  }

  private static byte[] payload(String row) {
    return Bytes.toBytes("value of " + row);
  }

  static byte[] row(int i) {
    return Bytes.toBytes(String.format("row-%05d", i));
  }

  static byte[] value(int i) {
    byte[] v = new byte[1024];
    Arrays.fill(v, (byte) i);
    return v;
  }
}
