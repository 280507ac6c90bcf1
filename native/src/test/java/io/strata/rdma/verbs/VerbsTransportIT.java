package io.strata.rdma.verbs;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.strata.rdma.transport.MapTransportConf;
import io.strata.rdma.transport.MessageTooLargeException;
import io.strata.rdma.transport.RdmaAcceptor;
import io.strata.rdma.transport.RdmaEndpoint;
import io.strata.rdma.transport.RdmaListener;
import io.strata.rdma.transport.RdmaReceiver;
import io.strata.rdma.transport.TransportUnavailableException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;

/**
 * The verbs transport end to end over a real RDMA device (SoftRoCE rxe0 in
 * dev-support/softroce-test): connect with private data, echo of small (SEND) and large (RDMA
 * WRITE) messages from direct and heap buffers, counters, rejection, close from either side,
 * and no native object left afterwards. Skipped where there is no device.
 */
public class VerbsTransportIT {
  private static final int EAGER = 4096;

  private VerbsTransport server;
  private VerbsTransport client;
  private InetAddress address;
  private long liveBefore;

  @Before
  public void setUp() throws Exception {
    MapTransportConf conf = new MapTransportConf();
    conf.setInt("strata.rdma.eager.threshold", EAGER);
    conf.setInt("strata.rdma.credits", 16);
    conf.setInt("strata.rdma.max.message.bytes", 1 << 20);
    try {
      liveBefore = VerbsTransport.liveNativeObjectsAfterLoad();
      server = new VerbsTransport(conf);
      client = new VerbsTransport(conf);
    } catch (TransportUnavailableException e) {
      RdmaAddresses.skipOrFail(e.getMessage());
    }
    address = RdmaAddresses.deviceAddressOrSkip(server);
  }

  @After
  public void tearDown() throws Exception {
    if (client != null) {
      client.close();
    }
    if (server != null) {
      server.close();
    }
    long end = System.currentTimeMillis() + 10_000;
    while (VerbsTransport.liveNativeObjects() != liveBefore && System.currentTimeMillis() < end) {
      Thread.sleep(20);
    }
    assertEquals("native objects left", liveBefore, VerbsTransport.liveNativeObjects());
  }

  /** Echoes every message back (from the callback) and records what happened. */
  static final class EchoAcceptor implements RdmaAcceptor {
    final BlockingQueue<String> privateData = new LinkedBlockingQueue<>();
    final BlockingQueue<RdmaEndpoint> established = new LinkedBlockingQueue<>();
    final BlockingQueue<String> closes = new LinkedBlockingQueue<>();
    /** One entry per onReleased: "after close" when its onClose came first. */
    final BlockingQueue<String> releases = new LinkedBlockingQueue<>();
    final List<Throwable> errors = new CopyOnWriteArrayList<>();

    @Override
    public RdmaReceiver accept(InetSocketAddress peer, ByteBuffer data) {
      String pd = StandardCharsets.UTF_8.decode(data).toString();
      privateData.add(pd);
      if (pd.equals("reject me")) {
        return null;
      }
      return new RdmaReceiver() {
        private volatile boolean closed;

        @Override
        public void onMessage(RdmaEndpoint endpoint, ByteBuffer message) {
          try {
            assertTrue(message.isReadOnly());
            endpoint.send(message);
          } catch (Throwable t) {
            errors.add(t);
          }
        }

        @Override
        public void onClose(RdmaEndpoint endpoint, IOException cause) {
          closed = true;
          closes.add(cause == null ? "local" : cause.getMessage());
        }

        @Override
        public void onReleased(RdmaEndpoint endpoint) {
          releases.add(closed ? "after close" : "before close");
        }
      };
    }

    @Override
    public void established(RdmaEndpoint endpoint) {
      established.add(endpoint);
    }
  }

  static final class Collector implements RdmaReceiver {
    final BlockingQueue<byte[]> messages = new LinkedBlockingQueue<>();
    final BlockingQueue<String> closes = new LinkedBlockingQueue<>();
    final BlockingQueue<String> releases = new LinkedBlockingQueue<>();
    private volatile boolean closed;

    @Override
    public void onMessage(RdmaEndpoint endpoint, ByteBuffer message) {
      byte[] copy = new byte[message.remaining()];
      message.get(copy);
      messages.add(copy);
    }

    @Override
    public void onClose(RdmaEndpoint endpoint, IOException cause) {
      closed = true;
      closes.add(cause == null ? "local" : cause.getMessage());
    }

    @Override
    public void onReleased(RdmaEndpoint endpoint) {
      releases.add(closed ? "after close" : "before close");
    }
  }

  private static byte[] pattern(int size, int seed) {
    byte[] b = new byte[size];
    for (int i = 0; i < size; i++) {
      b[i] = (byte) (seed * 31 + i);
    }
    return b;
  }

  @Test
  public void echoOfSmallAndLargeMessagesWithCounters() throws Exception {
    EchoAcceptor acceptor = new EchoAcceptor();
    try (RdmaListener listener = server.listen(new InetSocketAddress(address, 0), acceptor)) {
      Collector collector = new Collector();
      RdmaEndpoint ep = client.connect(listener.localAddress(),
          ByteBuffer.wrap("strata-it".getBytes(StandardCharsets.UTF_8)), collector, 10_000);
      assertEquals("strata-it", acceptor.privateData.poll(10, TimeUnit.SECONDS));
      RdmaEndpoint serverSide = acceptor.established.poll(10, TimeUnit.SECONDS);
      assertNotNull("the acceptor was never told of the established endpoint", serverSide);
      assertTrue(ep.isOpen());
      assertEquals(listener.localAddress(), ep.remoteAddress());

      int[] sizes = {1, 100, EAGER, EAGER + 1, 65536, 1 << 20, 0, 7};
      long bytes = 0;
      int large = 0;
      for (int round = 0; round < 3; round++) {
        for (int i = 0; i < sizes.length; i++) {
          byte[] msg = pattern(sizes[i], round * 100 + i);
          ByteBuffer buf = (i + round) % 2 == 0 ? ByteBuffer.wrap(msg)
              : ByteBuffer.allocateDirect(msg.length).put(msg).flip();
          int pos = buf.position();
          ep.send(buf);
          assertEquals("send leaves the buffer's position", pos, buf.position());
          bytes += sizes[i];
          large += sizes[i] > EAGER ? 1 : 0;
          byte[] echo = collector.messages.poll(20, TimeUnit.SECONDS);
          assertNotNull("no echo of " + sizes[i] + " bytes", echo);
          assertArrayEquals("echo of " + sizes[i] + " bytes", msg, echo);
        }
      }
      assertTrue(acceptor.errors.toString(), acceptor.errors.isEmpty());
      int n = 3 * sizes.length;
      assertEquals(n, ep.counters().messagesSent());
      assertEquals(bytes, ep.counters().bytesSent());
      assertEquals(n, ep.counters().messagesReceived());
      assertEquals(bytes, ep.counters().bytesReceived());
      assertEquals(n, serverSide.counters().messagesReceived());
      long[] stats = ((VerbsEndpoint) ep).nativeStats();
      assertEquals("native messages sent", n, stats[0]);
      assertEquals("messages through RDMA WRITE", large, stats[4]);

      try {
        ep.send(ByteBuffer.allocate((1 << 20) + 1));
        fail("a message above the maximum was sent");
      } catch (MessageTooLargeException e) {
        assertTrue(e.getMessage(), e.getMessage().contains("strata.rdma.max.message.bytes"));
        assertTrue("a refused message leaves the endpoint open", ep.isOpen());
      }

      ep.close();
      ep.close();
      assertFalse(ep.isOpen());
      assertEquals("local", collector.closes.poll(10, TimeUnit.SECONDS));
      String serverCause = acceptor.closes.poll(10, TimeUnit.SECONDS);
      assertNotNull("the server side was not told", serverCause);
      assertTrue(serverCause, serverCause.contains("disconnected"));
      try {
        ep.send(ByteBuffer.allocate(8));
        fail("send after close");
      } catch (IOException e) {
        assertTrue(e.getMessage(), e.getMessage().contains("closed"));
      }
      // Both sides torn down (the server answered the disconnect request): onReleased once each,
      // after onClose.
      assertEquals("after close", collector.releases.poll(10, TimeUnit.SECONDS));
      assertEquals("after close", acceptor.releases.poll(10, TimeUnit.SECONDS));
      Thread.sleep(200);
      assertNull("onClose twice", collector.closes.poll());
      assertNull("onReleased twice", collector.releases.poll());
    }
  }

  /** Heap, direct and read-only parts, each from its position, arrive as one message. */
  @Test
  public void gatheredPartsArriveAsOneMessage() throws Exception {
    EchoAcceptor acceptor = new EchoAcceptor();
    try (RdmaListener listener = server.listen(new InetSocketAddress(address, 0), acceptor)) {
      Collector collector = new Collector();
      RdmaEndpoint ep = client.connect(listener.localAddress(), ByteBuffer.allocate(0), collector,
          10_000);
      for (int tail : new int[] {10, EAGER + 1}) {
        byte[] a = pattern(5 + 3, 1);
        byte[] b = pattern(100, 2);
        byte[] c = pattern(tail, 3);
        ByteBuffer heap = ByteBuffer.wrap(a).position(3);
        ByteBuffer direct = ByteBuffer.allocateDirect(b.length).put(b).flip();
        ByteBuffer readOnly = ByteBuffer.wrap(c).asReadOnlyBuffer();
        ep.send(new ByteBuffer[] {heap, direct, readOnly});
        assertEquals("parts keep their positions", 3, heap.position());
        assertEquals(0, direct.position());
        byte[] want = new byte[5 + b.length + c.length];
        System.arraycopy(a, 3, want, 0, 5);
        System.arraycopy(b, 0, want, 5, b.length);
        System.arraycopy(c, 0, want, 5 + b.length, c.length);
        byte[] echo = collector.messages.poll(20, TimeUnit.SECONDS);
        assertNotNull("no echo of the gathered message", echo);
        assertArrayEquals(want, echo);
      }
      assertEquals("one message per gathered send", 2, ep.counters().messagesSent());
      assertTrue(acceptor.errors.toString(), acceptor.errors.isEmpty());
      ep.close();
    }
  }

  @Test
  public void rejectedAndUnansweredConnects() throws Exception {
    EchoAcceptor acceptor = new EchoAcceptor();
    InetSocketAddress where;
    try (RdmaListener listener = server.listen(new InetSocketAddress(address, 0), acceptor)) {
      where = listener.localAddress();
      try {
        client.connect(where, ByteBuffer.wrap("reject me".getBytes(StandardCharsets.UTF_8)),
            new Collector(), 10_000);
        fail("a rejected connect succeeded");
      } catch (IOException e) {
        assertTrue(e.getMessage(), e.getMessage().contains("rejected"));
      }
    }
    try {
      client.connect(where, null, new Collector(), 5_000);
      fail("connected to a closed listener");
    } catch (IOException e) {
      assertTrue(e.getMessage(), e.getMessage().contains(":" + where.getPort()));
    }
  }

  @Test
  public void serverSideCloseAndTransportClose() throws Exception {
    EchoAcceptor acceptor = new EchoAcceptor();
    try (RdmaListener listener = server.listen(new InetSocketAddress(address, 0), acceptor)) {
      Collector c1 = new Collector();
      Collector c2 = new Collector();
      RdmaEndpoint e1 = client.connect(listener.localAddress(), null, c1, 10_000);
      RdmaEndpoint e2 = client.connect(listener.localAddress(), null, c2, 10_000);
      RdmaEndpoint s1 = acceptor.established.poll(10, TimeUnit.SECONDS);
      assertNotNull(acceptor.established.poll(10, TimeUnit.SECONDS));
      s1.close(); // the server closes one: its client is told with a cause
      String cause = c1.closes.poll(10, TimeUnit.SECONDS);
      assertNotNull(cause);
      assertTrue(cause, cause.contains("disconnected"));
      // The client's runtime answers the disconnect request: the server's side is torn down.
      assertEquals("after close", acceptor.releases.poll(10, TimeUnit.SECONDS));
      assertEquals("after close", c1.releases.poll(10, TimeUnit.SECONDS));
      try {
        e1.send(ByteBuffer.allocate(16));
        fail("send on an endpoint the peer closed");
      } catch (IOException e) {
        assertTrue(e.getMessage(), e.getMessage().contains("closed"));
      }
      e2.send(ByteBuffer.wrap(pattern(10, 1)));
      assertArrayEquals(pattern(10, 1), c2.messages.poll(10, TimeUnit.SECONDS));
      server.close(); // the whole server transport: the other client is told too
      assertNotNull(c2.closes.poll(10, TimeUnit.SECONDS));
      assertFalse(e2.isOpen());
    }
  }
}
