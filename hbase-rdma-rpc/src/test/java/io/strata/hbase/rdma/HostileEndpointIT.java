package io.strata.hbase.rdma;

import static io.strata.hbase.rdma.RpcTestSupport.FAMILY;
import static io.strata.hbase.rdma.RpcTestSupport.QUALIFIER;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.strata.rdma.loopback.LoopbackTransport;
import io.strata.rdma.transport.RdmaEndpoint;
import io.strata.rdma.transport.RdmaReceiver;
import io.strata.rdma.transport.RdmaTransportKeys;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.ipc.HBaseRpcControllerImpl;
import org.apache.hadoop.hbase.ipc.NettyRpcClient;
import org.apache.hadoop.hbase.security.User;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.shaded.protobuf.RequestConverter;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.ClientService;
import org.apache.hadoop.hbase.shaded.protobuf.generated.RPCProtos.ConnectionHeader;
import org.apache.hadoop.hbase.shaded.protobuf.generated.RPCProtos.RequestHeader;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * Peers that hold a valid endpoint token and misbehave must not weaken the RegionServer below
 * what its socket path gives. One mini cluster (30 handlers, HBase's default), loopback
 * transport.
 *
 * <p>{@link #creditWithholdingPeerHoldsNoHandler}: a client that announces 4 credits, sends 64
 * Gets and never takes a response (its receiver blocks) must hold no RPC handler: another user's
 * socket Get completes well within {@code hbase.rpc.timeout}, responses (one replaced for its
 * size) wait in the endpoint's queue, the server closes the endpoint once its oldest queued
 * response is older than {@code strata.rdma.send.timeout.ms} (and not before), the calls
 * above {@code strata.rdma.server.max.calls.per.endpoint} are refused, and a second round on a
 * token fetched in advance changes nothing. ~60 s.
 *
 * <p>{@link #offerIsPinnedToClientServiceAndTheSocketsCodecs}: offers naming another service or
 * other codecs than the socket connection's are refused.
 */
public class HostileEndpointIT {
  private static final int CALLS_CAP = 32;
  private static final int HOSTILE_GETS = 64;
  private static final int VICTIM_RPC_TIMEOUT_MS = 20_000;
  private static final int MAX_MESSAGE = 256 << 10;
  private static final byte[] BIG_ROW = Bytes.toBytes("big");
  private static final TableName TABLE = TableName.valueOf("hostile");
  private static MiniHBase cluster;
  private static byte[] regionName;

  @BeforeClass
  public static void start() throws Exception {
    Configuration conf = RpcTestSupport.hybridServer();
    conf.setInt("hbase.regionserver.handler.count", 30);
    conf.setInt(HybridRpcKeys.Server.MAX_CALLS_PER_ENDPOINT, CALLS_CAP);
    conf.setInt(RdmaTransportKeys.MAX_MESSAGE, MAX_MESSAGE);
    cluster = MiniHBase.start("hostile-endpoint", conf);
    try (Connection c = ConnectionFactory.createConnection(cluster.clientConf());
      Admin admin = c.getAdmin()) {
      RpcTestSupport.createTable(c, TABLE);
      try (Table t = c.getTable(TABLE)) {
        t.put(new Put(Bytes.toBytes("row")).addColumn(FAMILY, QUALIFIER, new byte[1024]));
        t.put(new Put(BIG_ROW).addColumn(FAMILY, QUALIFIER, new byte[MAX_MESSAGE + 1024]));
      }
      regionName = admin.getRegions(TABLE).get(0).getRegionName();
    }
  }

  @AfterClass
  public static void stop() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test(timeout = 240_000)
  public void creditWithholdingPeerHoldsNoHandler() throws Exception {
    Configuration conf = cluster.clientConf();
    User mallory = User.createUserForTesting(conf, "mallory", new String[0]);
    User bob = User.createUserForTesting(conf, "bob", new String[0]);
    // Tokens fetched in advance: one per round, as a hostile client would, to repeat at once.
    List<EndpointOffer> offers = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      offers.add(offer(conf, mallory, clientServiceHeader()));
    }
    Configuration victimConf = cluster.clientConf();
    victimConf.setInt("hbase.rpc.timeout", VICTIM_RPC_TIMEOUT_MS);
    victimConf.setInt("hbase.client.operation.timeout", VICTIM_RPC_TIMEOUT_MS);
    victimConf.setInt("hbase.client.retries.number", 0);
    try (Connection victim = ConnectionFactory.createConnection(victimConf, bob);
      Table table = victim.getTable(TABLE)) {
      assertEquals(1024, table.get(new Get(Bytes.toBytes("row"))).getValue(FAMILY,
        QUALIFIER).length); // region located, socket connected: only the Get itself is timed
      for (int round = 0; round < 2; round++) {
        hostileRound(round, offers.get(round), table);
      }
    }

    // The server still serves endpoint calls.
    Configuration hybrid = RpcTestSupport.hybridClient(cluster.clientConf());
    try (Connection c = ConnectionFactory.createConnection(hybrid); Table t = c.getTable(TABLE)) {
      RoutedCallChecks.connectEndpoint(t);
      long rdma = RdmaRpcMetrics.count("client.Get.rdma");
      assertEquals(1024, t.get(new Get(Bytes.toBytes("row"))).getValue(FAMILY, QUALIFIER).length);
      assertEquals(rdma + 1, RdmaRpcMetrics.count("client.Get.rdma"));
    }
  }

  /**
   * An offer request's connection header is the client's own: one naming another service than
   * ClientService (which service-level authorization would check) or other cell codecs than its
   * socket connection negotiated (which the server would instantiate) is refused; the matching
   * one is served.
   */
  @Test(timeout = 120_000)
  public void offerIsPinnedToClientServiceAndTheSocketsCodecs() throws Exception {
    Configuration conf = cluster.clientConf();
    User eve = User.createUserForTesting(conf, "eve", new String[0]);
    ConnectionHeader good = clientServiceHeader();
    ConnectionHeader[] bad = { good.toBuilder().setServiceName("AdminService").build(),
      good.toBuilder().setCellBlockCodecClass("org.apache.hadoop.hbase.codec.KeyValueCodecWithTags")
        .build(),
      good.toBuilder().clearCellBlockCodecClass().build(),
      good.toBuilder().setCellBlockCompressorClass("org.apache.hadoop.io.compress.GzipCodec")
        .build() };
    long refusedBefore = RdmaRpcMetrics.count("server.offers.refused.header");
    for (ConnectionHeader h : bad) {
      try {
        EndpointOffer o = offer(conf, eve, h);
        fail("an offer was made for service " + h.getServiceName() + ", codec "
          + h.getCellBlockCodecClass() + ", compressor " + h.getCellBlockCompressorClass() + ": "
          + o.address());
      } catch (IOException e) {
        assertTrue(String.valueOf(e), String.valueOf(e).contains(
          EndpointRefusedException.class.getName()));
      }
    }
    assertEquals(refusedBefore + bad.length, RdmaRpcMetrics.count("server.offers.refused.header"));
    EndpointOffer o = offer(conf, eve, good);
    Configuration c = new Configuration(false);
    try (LoopbackTransport t = new LoopbackTransport(RdmaTransports.transportConf(c))) {
      RdmaEndpoint e = t.connect(o.address(), EndpointTokens.privateData(o.token()),
        new RdmaReceiver() {
          @Override
          public void onMessage(RdmaEndpoint endpoint, ByteBuffer message) {
          }

          @Override
          public void onClose(RdmaEndpoint endpoint, IOException cause) {
          }
        }, 10_000);
      assertTrue(e.isOpen());
      e.close();
    }
  }

  private static void hostileRound(int round, EndpointOffer offer, Table victimTable)
    throws Exception {
    Configuration hostileConf = new Configuration(false);
    hostileConf.setInt(RdmaTransportKeys.CREDITS, 4);
    // Its own completion thread, which the receiver below blocks: no credit ever returns.
    hostileConf.set(RdmaTransportKeys.LOOPBACK_DELIVERY, "poller");
    CountDownLatch release = new CountDownLatch(1);
    long refused = RdmaRpcMetrics.count("server.calls.refused");
    long closedForCredit = RdmaRpcMetrics.count("server.endpoints.closed.credit");
    long getCalls = RdmaRpcMetrics.count("server.Get.calls");
    try (LoopbackTransport t = new LoopbackTransport(RdmaTransports.transportConf(hostileConf))) {
      RdmaEndpoint e = t.connect(offer.address(), EndpointTokens.privateData(offer.token()),
        new RdmaReceiver() {
          @Override
          public void onMessage(RdmaEndpoint endpoint, ByteBuffer message) {
            try {
              release.await(120, TimeUnit.SECONDS);
            } catch (InterruptedException ie) {
              Thread.currentThread().interrupt();
            }
          }

          @Override
          public void onClose(RdmaEndpoint endpoint, IOException cause) {
          }
        }, 10_000);
      try {
        long sentAt = System.nanoTime();
        // Five Gets use the 4 credits and queue one response; then a Get whose response is too
        // large for the endpoint: its replacement (a marked error) is queued too.
        long queued = RdmaRpcMetrics.count("server.responses.queued");
        for (int i = 0; i < 5; i++) {
          e.send(getRequest(1000 + i, Bytes.toBytes("row")));
        }
        RoutedCallChecks.awaitCount("server.responses.queued", queued + 1);
        e.send(getRequest(2000, BIG_ROW));
        RoutedCallChecks.awaitCount("server.responses.queued", queued + 2);
        for (int i = 0; i < HOSTILE_GETS; i++) {
          e.send(getRequest(i + 1, Bytes.toBytes("row")));
        }
        RoutedCallChecks.awaitCount("server.Get.calls", getCalls + CALLS_CAP);
        Thread.sleep(1_000); // the calls ran, or wait for handlers: today's code parks these

        long t0 = System.nanoTime();
        Result r = victimTable.get(new Get(Bytes.toBytes("row")));
        long victimMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertEquals(1024, r.getValue(FAMILY, QUALIFIER).length);
        assertTrue("round " + round + ": another user's socket Get took " + victimMs
          + " ms while a peer withholds credits (hbase.rpc.timeout " + VICTIM_RPC_TIMEOUT_MS
          + " ms): handlers are held by that peer", victimMs < VICTIM_RPC_TIMEOUT_MS / 4);

        long refusedNow = RdmaRpcMetrics.count("server.calls.refused") - refused;
        // Two calls whose responses wait in the queue count against the cap: 30 of the 64 run.
        assertEquals("round " + round + ": calls refused above the cap of " + CALLS_CAP,
          HOSTILE_GETS - (CALLS_CAP - 2), refusedNow);

        // The queue's age bound closes the endpoint (strata.rdma.send.timeout.ms, 10 s).
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (e.isOpen()) {
          assertTrue("round " + round + ": the server did not close the endpoint of a peer that "
            + "returns no credit", System.nanoTime() - deadline < 0);
          Thread.sleep(50);
        }
        long closedAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sentAt);
        assertEquals("round " + round + ": closed for its queue's age, not for a failed send",
          closedForCredit + 1, RdmaRpcMetrics.count("server.endpoints.closed.credit"));
        assertTrue("round " + round + ": closed after " + closedAfterMs + " ms",
          closedAfterMs >= 9_000);
        System.out.printf("hostile round %d: victim socket Get %d ms; %d of %d Gets refused above "
          + "the cap; endpoint closed after %d ms%n", round, victimMs, refusedNow, HOSTILE_GETS,
          closedAfterMs);
      } finally {
        release.countDown();
      }
    }
  }

  /** A Get of {@code row} as the endpoint takes it: RequestHeader and param, each delimited. */
  private static ByteBuffer getRequest(int callId, byte[] row) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    RequestHeader.newBuilder().setCallId(callId).setMethodName("Get").setRequestParam(true)
      .build().writeDelimitedTo(out);
    RequestConverter.buildGetRequest(regionName, new Get(row)).writeDelimitedTo(out);
    return ByteBuffer.wrap(out.toByteArray());
  }

  static ConnectionHeader clientServiceHeader() {
    return ConnectionHeader.newBuilder().setServiceName("ClientService")
      .setCellBlockCodecClass("org.apache.hadoop.hbase.codec.KeyValueCodec").build();
  }

  /** Asks for an endpoint offer over an authenticated socket connection as {@code user}. */
  static EndpointOffer offer(Configuration conf, User user, ConnectionHeader header)
    throws Exception {
    ServerName sn = cluster.regionServer().getServerName();
    try (NettyRpcClient sockets = new NettyRpcClient(conf)) {
      ClientService.BlockingInterface stub = ClientService.newBlockingStub(
        sockets.createBlockingRpcChannel(sn, user, 10_000));
      EndpointOffer offer = EndpointOffer.fromResponse(stub.execRegionServerService(
        new HBaseRpcControllerImpl(), EndpointOffer.request(header.toByteArray())));
      assertNotNull(offer);
      return offer;
    } catch (org.apache.hbase.thirdparty.com.google.protobuf.ServiceException e) {
      throw new IOException(e.getCause() == null ? e : e.getCause());
    }
  }
}
