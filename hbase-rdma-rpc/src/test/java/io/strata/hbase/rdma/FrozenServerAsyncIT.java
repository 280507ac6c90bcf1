package io.strata.hbase.rdma;

import static io.strata.hbase.rdma.RdmaRpcMetrics.count;
import static io.strata.hbase.rdma.RpcTestSupport.FAMILY;
import static io.strata.hbase.rdma.RpcTestSupport.QUALIFIER;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.strata.rdma.loopback.LoopbackTransport;
import io.strata.rdma.transport.RdmaTransportKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.AsyncConnection;
import org.apache.hadoop.hbase.client.AsyncTable;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.ipc.HybridRpcServer;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * A frozen RegionServer must not stall other servers' calls through threads every client of the
 * JVM shares. {@code AsyncTable} sends a retry from HBase's static
 * {@code AsyncConnectionImpl.RETRY_TIMER} and a call whose region was just looked up from the
 * Netty event loop that completed the look-up: a send there that waits for a frozen server's
 * credit holds every retry, or every socket on that loop. Two RegionServers, one region each;
 * server 1's transport frozen (as under SIGSTOP) with its 8 credits taken by Puts in flight. A
 * Put to server 1 refused once (a RegionObserver, {@link PutCounter}) retries from the timer while
 * there is no credit; then a Put to server 2 refused once must finish within about its retry
 * pause, Puts to server 1 whose region is looked up again finish on time, and no send on the
 * retry timer or an event loop waits for credit (a loopback transport that records every send,
 * {@link HookedTransportFactory}). One mini cluster, ~60 s.
 */
public class FrozenServerAsyncIT {
  private static final int CREDITS = 8;
  private static final int RPC_TIMEOUT_MS = 6_000;
  private static final int PAUSE_MS = 100;
  /** Generous for a loaded 2-core machine, far below what a send waiting on the timer costs. */
  private static final long RETRIED_WITHIN_MS = 3_000;
  /** HBase's {@code AsyncConnectionImpl.RETRY_TIMER} thread's name. */
  private static final String RETRY_TIMER = "Async-Client-Retry-Timer";
  private static MiniHBase cluster;

  @BeforeClass
  public static void start() throws Exception {
    Configuration conf = RpcTestSupport.hybridServer();
    conf.setInt(RdmaTransportKeys.CREDITS, CREDITS);
    cluster = MiniHBase.start("frozen-async", conf, 2);
  }

  @AfterClass
  public static void stop() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test(timeout = 300_000)
  public void aFrozenServerStallsNoRetryTimerOrEventLoop() throws Exception {
    TableName name = TableName.valueOf("frozen_async");
    ServerName frozen = cluster.regionServer(0).getServerName();
    ServerName healthy = cluster.regionServer(1).getServerName();
    try (Connection admin = ConnectionFactory.createConnection(cluster.clientConf());
      Admin a = admin.getAdmin()) {
      a.createTable(TableDescriptorBuilder.newBuilder(name)
        .setColumnFamily(ColumnFamilyDescriptorBuilder.of(FAMILY))
        .setCoprocessor(PutCounter.class.getName()).build(), new byte[][] { Bytes.toBytes("m") });
      // rows "a-…" on the server to freeze, rows "z-…" on the healthy one
      for (RegionInfo r : a.getRegions(name)) {
        a.move(r.getEncodedNameAsBytes(), r.getStartKey().length == 0 ? frozen : healthy);
      }
      try (RegionLocator l = admin.getRegionLocator(name)) {
        long deadline = System.currentTimeMillis() + 60_000;
        while (!l.getRegionLocation(Bytes.toBytes("a"), true).getServerName().equals(frozen)
          || !l.getRegionLocation(Bytes.toBytes("z"), true).getServerName().equals(healthy)) {
          assertTrue("the regions did not move within 60 s", System.currentTimeMillis() < deadline);
          Thread.sleep(100);
        }
      }
    }

    Configuration conf = RpcTestSupport.hybridClient(cluster.clientConf());
    conf.set(HybridRpcKeys.TRANSPORT, HookedTransportFactory.class.getName());
    // long enough that only a call's own timeout could end a send's wait
    conf.setInt(RdmaTransportKeys.SEND_TIMEOUT_MS, 120_000);
    conf.setInt("hbase.rpc.timeout", RPC_TIMEOUT_MS);
    conf.setInt("hbase.client.operation.timeout", 120_000);
    conf.setInt("hbase.client.retries.number", 20);
    conf.setLong("hbase.client.pause", PAUSE_MS);
    int frozenPort = ((HybridRpcServer) cluster.regionServer(0).getRpcServer()).getRdmaAddress()
      .getPort();
    ExecutorService pool = Executors.newCachedThreadPool();
    try (AsyncConnection c = ConnectionFactory.createAsyncConnection(conf).get()) {
      AsyncTable<?> t = c.getTable(name);
      long connected = count("client.endpoints.connected");
      long deadline = System.currentTimeMillis() + 30_000;
      while (count("client.endpoints.connected") < connected + 2) { // one to each server
        t.put(put("a-warm-up")).get();
        t.put(put("z-warm-up")).get();
        assertTrue("no endpoint to each server within 30 s", System.currentTimeMillis() < deadline);
        Thread.sleep(20);
      }
      t.put(put("a-warm-up")).get(); // both over the endpoints now
      t.put(put("z-warm-up")).get();

      // A Put to server 1 that its RegionServer takes now and refuses 1.5 s later.
      String slowRow = "a-" + PutCounter.SLOW + PutCounter.BUSY_ONCE + "1";
      Future<?> slow = pool.submit(() -> t.put(put(slowRow)).get());
      deadline = System.currentTimeMillis() + 10_000;
      while (PutCounter.puts(slowRow) == 0) {
        assertTrue(slowRow + " did not reach its RegionServer", System.currentTimeMillis() < deadline);
        Thread.sleep(5);
      }
      assertTrue(LoopbackTransport.freeze(frozenPort, true));
      List<Future<?>> held = new ArrayList<>();
      try {
        HookedTransportFactory.clearSends();
        // Its credits go to Puts that hang: received by nobody until it thaws.
        for (int i = 0; i < CREDITS; i++) {
          String row = "a-held-" + i;
          held.add(pool.submit(() -> t.put(put(row)).get()));
        }
        awaitSends(s -> s.outcome.equals("sent"), CREDITS, "Puts over the frozen endpoint");

        // The refusal arrives (the frozen side still sends); the retry runs on the retry timer
        // while the endpoint has no credit.
        awaitSends(s -> s.thread.startsWith(RETRY_TIMER), 1,
          "send of the retried " + slowRow + " on the retry timer");

        // A Put to the healthy server refused once: its retry, after the pause, runs on the same
        // timer.
        String retried = "z-" + PutCounter.BUSY_ONCE + "1";
        long t0 = System.nanoTime();
        t.put(put(retried)).get(60, TimeUnit.SECONDS);
        long retriedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertEquals("Puts of " + retried + " its RegionServer ran (refused, then applied)", 2,
          PutCounter.puts(retried));
        assertTrue("a Put to the healthy server retried after a " + PAUSE_MS + " ms pause took "
          + retriedMs + " ms while a frozen server had no credit; sends: " + report(),
          retriedMs < RETRIED_WITHIN_MS);

        // Puts to server 1 whose region is looked up again: their sends start on the event loop
        // that completed the look-up.
        c.getRegionLocator(name).clearRegionLocationCache();
        List<Future<Long>> lookedUp = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
          String row = "a-looked-up-" + i;
          lookedUp.add(pool.submit(() -> {
            long s0 = System.nanoTime();
            t.put(put(row)).get();
            return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - s0);
          }));
        }
        long slowestLookedUp = 0;
        for (Future<Long> f : lookedUp) {
          slowestLookedUp = Math.max(slowestLookedUp, f.get(120, TimeUnit.SECONDS));
        }
        assertTrue("a Put to the frozen server after a region look-up took " + slowestLookedUp
          + " ms; sends: " + report(), slowestLookedUp < RPC_TIMEOUT_MS / 2);

        slow.get(120, TimeUnit.SECONDS);
        for (Future<?> f : held) {
          f.get(120, TimeUnit.SECONDS); // timed out over the endpoint, then retried over the socket
        }

        int onTimer = 0;
        int onEventLoops = 0;
        long longest = 0;
        for (HookedTransportFactory.Send s : allSends()) {
          if (sharedThread(s.thread)) {
            if (s.thread.startsWith(RETRY_TIMER)) {
              onTimer++;
            } else {
              onEventLoops++;
            }
            longest = Math.max(longest, s.tookMs);
            assertEquals("a send on a shared thread may wait for credit: " + s, 0, s.maxWaitMs);
            assertTrue("a send on a shared thread took long: " + s, s.tookMs < 1_000);
          }
        }
        System.out.printf("frozen server, AsyncTable: a retried Put to the healthy server took %d "
          + "ms (pause %d ms); Puts to the frozen server after a look-up at most %d ms; %d sends "
          + "on the retry timer and %d on event loops, none allowed to wait, the longest %d ms; "
          + "%d sends found no credit%n", retriedMs, PAUSE_MS, slowestLookedUp, onTimer,
          onEventLoops, longest, count("client.fallback.no.credit"));
      } finally {
        LoopbackTransport.freeze(frozenPort, false);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private static boolean sharedThread(String thread) {
    return thread.startsWith(RETRY_TIMER) || thread.contains("EventLoopGroup");
  }

  private static List<HookedTransportFactory.Send> allSends() {
    List<HookedTransportFactory.Send> all = HookedTransportFactory.sends();
    all.addAll(HookedTransportFactory.sendsUnderWay());
    return all;
  }

  private static void awaitSends(Predicate<HookedTransportFactory.Send> which, int atLeast,
    String what) throws InterruptedException {
    long deadline = System.currentTimeMillis() + 30_000;
    while (allSends().stream().filter(which).count() < atLeast) {
      assertTrue("no " + what + " within 30 s; sends: " + report(),
        System.currentTimeMillis() < deadline);
      Thread.sleep(5);
    }
  }

  private static String report() {
    return allSends().toString();
  }

  private static Put put(String row) {
    return new Put(Bytes.toBytes(row)).addColumn(FAMILY, QUALIFIER, new byte[100]);
  }
}
