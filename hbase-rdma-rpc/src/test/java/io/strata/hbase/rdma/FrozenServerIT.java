package io.strata.hbase.rdma;

import static io.strata.hbase.rdma.RpcTestSupport.FAMILY;
import static io.strata.hbase.rdma.RpcTestSupport.QUALIFIER;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.strata.rdma.loopback.LoopbackTransport;
import io.strata.rdma.transport.RdmaTransportKeys;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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
import org.apache.hadoop.hbase.shaded.protobuf.RequestConverter;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.ClientService;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.GetRequest;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * A RegionServer whose RDMA transport freezes (as under SIGSTOP or a long GC pause) after the
 * client used up its credits must not stop call timeouts in the client's JVM: HBase's timer
 * ({@code AbstractRpcClient.WHEEL_TIMER}) is shared by every connection, so a send blocked while
 * holding a controller's lock would hold every timeout behind it. With 64 concurrent Puts to the
 * frozen server (8 credits), a call to another server still times out on time; the 8 Puts that
 * took the credits fail within {@code hbase.rpc.timeout}, and the others, finding no credit, go
 * over the socket at once (here the RegionServer itself still runs, only its transport is
 * frozen, so they succeed). {@link FrozenServerAsyncIT} checks the threads {@code AsyncTable}
 * shares. One mini cluster, loopback transport, ~40 s.
 */
public class FrozenServerIT {
  private static final int RPC_TIMEOUT_MS = 2_000;
  private static MiniHBase cluster;

  @BeforeClass
  public static void start() throws Exception {
    Configuration conf = RpcTestSupport.hybridServer();
    conf.setInt(RdmaTransportKeys.CREDITS, 8);
    cluster = MiniHBase.start("frozen-server", conf);
  }

  @AfterClass
  public static void stop() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test(timeout = 180_000)
  public void frozenServerDoesNotStopOtherTimeoutsAndItsCallsFailInTime() throws Exception {
    TableName name = TableName.valueOf("frozen");
    try (Connection admin = ConnectionFactory.createConnection(cluster.clientConf())) {
      RpcTestSupport.createTable(admin, name);
    }
    Configuration conf = RpcTestSupport.hybridClient(cluster.clientConf());
    conf.setInt(RdmaTransportKeys.CREDITS, 8);
    // long enough that only the call's own timeout can end a send's wait
    conf.setInt(RdmaTransportKeys.SEND_TIMEOUT_MS, 120_000);
    conf.setInt("hbase.rpc.timeout", RPC_TIMEOUT_MS);
    conf.setInt("hbase.client.operation.timeout", 30_000);
    conf.setInt("hbase.client.retries.number", 0);
    int port = ((HybridRpcServer) cluster.regionServer().getRpcServer()).getRdmaAddress().getPort();
    ExecutorService pool = Executors.newFixedThreadPool(65);
    try (Connection c = ConnectionFactory.createConnection(conf);
      ServerSocket silent = new ServerSocket(0)) {
      try (Table t = c.getTable(name)) {
        RoutedCallChecks.connectEndpoint(t);
        t.put(put(0)); // over the endpoint
      }
      assertTrue(LoopbackTransport.freeze(port, true));
      List<Future<Long>> puts = new ArrayList<>();
      for (int i = 0; i < 64; i++) {
        int row = i + 1;
        puts.add(pool.submit(() -> {
          long t0 = System.nanoTime();
          try (Table t = c.getTable(name)) {
            t.put(put(row));
            // no credit: over the socket, which the frozen transport does not stop
            return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
          } catch (Exception failed) {
            return -TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0) - 1;
          }
        }));
      }
      Thread.sleep(RPC_TIMEOUT_MS / 2); // 8 Puts wait for answers the frozen server holds back

      // Another server that never answers: its call's timeout comes from the same shared timer.
      Future<Long> other = pool.submit(() -> {
        acceptAndNeverAnswer(silent);
        try (NettyRpcClient rpc = new NettyRpcClient(conf)) {
          ServerName sn = ServerName.valueOf("localhost", silent.getLocalPort(), 1L);
          ClientService.BlockingInterface stub = ClientService.newBlockingStub(
            rpc.createBlockingRpcChannel(sn, User.getCurrent(), 1_000));
          GetRequest get = RequestConverter.buildGetRequest(Bytes.toBytes("r"), new Get(
            Bytes.toBytes("x")));
          long t0 = System.nanoTime();
          try {
            stub.get(new HBaseRpcControllerImpl(), get);
            return -1L;
          } catch (Exception expected) {
            return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
          }
        }
      });
      long otherMs;
      try {
        otherMs = other.get(15, TimeUnit.SECONDS);
      } catch (TimeoutException e) {
        fail("a 1 s call to another server did not time out within 15 s while sends to the "
          + "frozen server wait: the shared timer is blocked");
        return;
      }
      assertTrue("the other server's call ended after " + otherMs + " ms",
        otherMs >= 0 && otherMs < 10_000);

      long slowest = 0;
      int failed = 0;
      for (Future<Long> f : puts) {
        long ms;
        try {
          ms = f.get(60, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
          fail("a Put to the frozen server did not end within 60 s");
          return;
        }
        if (ms < 0) {
          failed++;
          ms = -ms - 1;
        }
        assertTrue("a Put to the frozen server ended after " + ms + " ms, hbase.rpc.timeout is "
          + RPC_TIMEOUT_MS, ms < RPC_TIMEOUT_MS + 5_000);
        slowest = Math.max(slowest, ms);
      }
      // Only the Puts sent over the endpoint before its credits ran out wait for the frozen
      // transport; the rest went over the socket.
      assertTrue(failed + " Puts to the frozen server failed, more than its 8 credits",
        failed <= 8);
      System.out.printf("frozen server: the other server's 1 s call timed out after %d ms; of 64 "
        + "Puts %d failed (8 credits) and %d went over the socket, the slowest ended after %d ms "
        + "(hbase.rpc.timeout %d ms)%n", otherMs, failed, 64 - failed, slowest, RPC_TIMEOUT_MS);
    } finally {
      LoopbackTransport.freeze(port, false);
      pool.shutdownNow();
    }
    // thawed: the server answers again
    conf.setInt("hbase.client.retries.number", 5);
    try (Connection c = ConnectionFactory.createConnection(conf); Table t = c.getTable(name)) {
      t.put(put(100));
    }
  }

  private static Put put(int row) {
    return new Put(Bytes.toBytes("row-" + row)).addColumn(FAMILY, QUALIFIER, new byte[100]);
  }

  /** Accepts connections in the background and never answers them (until the socket closes). */
  private static void acceptAndNeverAnswer(ServerSocket server) {
    List<Socket> held = new ArrayList<>();
    Thread t = new Thread(() -> {
      try {
        while (true) {
          held.add(server.accept());
        }
      } catch (Exception closed) {
        // the test is over
      }
    }, "silent-server");
    t.setDaemon(true);
    t.start();
  }
}
