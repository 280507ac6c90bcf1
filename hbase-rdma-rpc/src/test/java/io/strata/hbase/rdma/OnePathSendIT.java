package io.strata.hbase.rdma;

import static io.strata.hbase.rdma.RpcTestSupport.FAMILY;
import static io.strata.hbase.rdma.RpcTestSupport.QUALIFIER;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import io.strata.rdma.transport.RdmaEndpoint;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * A call goes over exactly one path. A Put whose send is under way (held on a latch) while its
 * endpoint closes is failed by the close with
 * {@code ConnectionClosedException} and retried by HBase; the waiting sender must then not send
 * the same call over the socket as well, or the RegionServer applies it twice (an extra version
 * of the cell; a checkAndMutate answers "not applied" for a write it applied). Three Puts and a
 * checkAndMutate (put if absent); a RegionObserver counts the Puts each row gets. One mini
 * cluster, loopback transport, ~30 s.
 */
public class OnePathSendIT {
  /** Rounds of a held Put; then one of a held checkAndMutate. */
  private static final int ROUNDS = 3;
  private static MiniHBase cluster;

  @BeforeClass
  public static void start() throws Exception {
    cluster = MiniHBase.start("one-path-send", RpcTestSupport.hybridServer());
  }

  @AfterClass
  public static void stop() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test(timeout = 180_000)
  public void aCallFailedByTheEndpointsCloseDuringItsSendRunsOnce() throws Exception {
    TableName name = TableName.valueOf("one_path");
    try (Connection admin = ConnectionFactory.createConnection(cluster.clientConf());
      Admin a = admin.getAdmin()) {
      a.createTable(TableDescriptorBuilder.newBuilder(name)
        .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(FAMILY).setMaxVersions(10)
          .build())
        .setCoprocessor(PutCounter.class.getName()).build());
    }
    Configuration conf = RpcTestSupport.hybridClient(cluster.clientConf());
    conf.set(HybridRpcKeys.TRANSPORT, HookedTransportFactory.class.getName());
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try (Connection c = ConnectionFactory.createConnection(conf); Table t = c.getTable(name)) {
      RoutedCallChecks.connectEndpoint(t);
      long connected = RdmaRpcMetrics.count("client.endpoints.connected");
      for (int round = 0; round <= ROUNDS; round++) {
        // a new endpoint for the one closed in the previous round (the first routed call after
        // the close sets it up)
        t.put(new Put(Bytes.toBytes("warm-up")).addColumn(FAMILY, QUALIFIER, new byte[1]));
        RoutedCallChecks.awaitCount("client.endpoints.connected", connected + round);
        boolean checkAndMutate = round == ROUNDS;
        String row = (checkAndMutate ? "if-absent-" : "once-") + round;
        Put p = new Put(Bytes.toBytes(row)).addColumn(FAMILY, QUALIFIER, Bytes.toBytes(row));
        HookedTransportFactory.Gate gate = HookedTransportFactory.holdNextSend();
        Future<Boolean> put = pool.submit(() -> {
          if (checkAndMutate) {
            return t.checkAndMutate(CheckAndMutate.newBuilder(Bytes.toBytes(row))
              .ifNotExists(FAMILY, QUALIFIER).build(p)).isSuccess();
          }
          t.put(p);
          return true;
        });
        RdmaEndpoint held = gate.awaitHeld(30_000);
        assertNotNull("the Put of " + row + " did not reach the endpoint", held);
        held.close(); // fails the call in flight: HBase retries it over the socket
        gate.release(); // the held send now finds the endpoint closed
        assertTrue("the checkAndMutate of the absent row " + row + " answered \"not applied\"",
          put.get(60, TimeUnit.SECONDS));

        // A second Mutate, if any, is on its way now; give it time to arrive.
        long deadline = System.currentTimeMillis() + 3_000;
        while (PutCounter.puts(row) < 2 && System.currentTimeMillis() < deadline) {
          Thread.sleep(20);
        }
        assertEquals("Mutates the RegionServer ran for the one Put of " + row, 1,
          PutCounter.puts(row));
        assertEquals("versions of " + row, 1,
          t.get(new Get(Bytes.toBytes(row)).readVersions(10)).size());
      }
      System.out.printf("one path: %d Puts and a checkAndMutate held in their send while the "
        + "endpoint closed, each run once by the RegionServer%n", ROUNDS);
    } finally {
      pool.shutdownNow();
    }
  }
}
