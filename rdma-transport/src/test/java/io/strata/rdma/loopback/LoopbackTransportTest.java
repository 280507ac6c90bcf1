package io.strata.rdma.loopback;

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
import io.strata.rdma.transport.RdmaTransportKeys;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ReadOnlyBufferException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;

public class LoopbackTransportTest {
  private LoopbackTransport server;
  private LoopbackTransport client;

  @Before
  public void setUp() {
    MapTransportConf conf = new MapTransportConf();
    conf.setInt(RdmaTransportKeys.CREDITS, 2);
    conf.setInt(RdmaTransportKeys.EAGER_THRESHOLD, 64);
    conf.setInt(RdmaTransportKeys.MAX_MESSAGE, 4096);
    conf.set(RdmaTransportKeys.LOOPBACK_DELIVERY, "poller");
    server = new LoopbackTransport(conf);
    client = new LoopbackTransport(conf);
  }

  @After
  public void tearDown() {
    client.close();
    server.close();
  }

  /** Records messages (copied) and close causes. */
  static final class Recorder implements RdmaReceiver {
    final BlockingQueue<String> messages = new LinkedBlockingQueue<>();
    final CountDownLatch closed = new CountDownLatch(1);
    final CountDownLatch released = new CountDownLatch(1);
    final AtomicReference<IOException> cause = new AtomicReference<>();
    /** Whether onClose had come when onReleased came (it must come first). */
    volatile boolean closedBeforeRelease;
    volatile CountDownLatch hold;

    @Override
    public void onMessage(RdmaEndpoint endpoint, ByteBuffer message) {
      byte[] b = new byte[message.remaining()];
      message.get(b);
      messages.add(new String(b, StandardCharsets.UTF_8));
      CountDownLatch h = hold;
      if (h != null) {
        try {
          h.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }

    @Override
    public void onClose(RdmaEndpoint endpoint, IOException c) {
      cause.set(c);
      closed.countDown();
    }

    @Override
    public void onReleased(RdmaEndpoint endpoint) {
      closedBeforeRelease = closed.getCount() == 0;
      released.countDown();
    }
  }

  private static ByteBuffer utf8(String s) {
    return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  public void keepsMessageBoundariesAndOrderBothWaysAndCounts() throws Exception {
    Recorder atServer = new Recorder();
    RdmaListener l = server.listen(new InetSocketAddress("127.0.0.1", 0), (p, d) -> atServer);
    Recorder atClient = new Recorder();
    RdmaEndpoint c = client.connect(l.localAddress(), ByteBuffer.allocate(0), atClient, 1000);
    c.send(utf8("one"));
    c.send(new ByteBuffer[] { utf8("tw"), utf8("o") });
    String big = "x".repeat(1000); // above the eager size: rendezvous path
    c.send(utf8(big));
    assertEquals("one", atServer.messages.poll(5, TimeUnit.SECONDS));
    assertEquals("two", atServer.messages.poll(5, TimeUnit.SECONDS));
    assertEquals(big, atServer.messages.poll(5, TimeUnit.SECONDS));
    assertEquals(3, c.counters().messagesSent());
    assertEquals(3 + 3 + 1000, c.counters().bytesSent());
    assertEquals(l.localAddress(), c.remoteAddress());
  }

  @Test
  public void receiveViewsAreReadOnly() throws Exception {
    CountDownLatch got = new CountDownLatch(2);
    List<Boolean> readOnly = new CopyOnWriteArrayList<>();
    RdmaReceiver r = new RdmaReceiver() {
      @Override
      public void onMessage(RdmaEndpoint e, ByteBuffer m) {
        readOnly.add(m.isReadOnly());
        try {
          m.put(0, (byte) 1);
          readOnly.add(false);
        } catch (ReadOnlyBufferException expected) {
          readOnly.add(true);
        }
        got.countDown();
      }

      @Override
      public void onClose(RdmaEndpoint e, IOException cause) {
      }
    };
    RdmaListener l = server.listen(new InetSocketAddress("127.0.0.1", 0), (p, d) -> r);
    RdmaEndpoint c = client.connect(l.localAddress(), ByteBuffer.allocate(0), new Recorder(), 1000);
    c.send(utf8("aaaa"));
    c.send(utf8("bbbb"));
    assertTrue(got.await(5, TimeUnit.SECONDS));
    assertEquals(4, readOnly.size());
    assertFalse("receive views are read-only", readOnly.contains(false));
  }

  /** A sender's transport: two credits, polled delivery, this send timeout. */
  private static MapTransportConf twoCredits(int sendTimeoutMs) {
    MapTransportConf conf = new MapTransportConf();
    conf.setInt(RdmaTransportKeys.CREDITS, 2);
    conf.setInt(RdmaTransportKeys.EAGER_THRESHOLD, 64);
    conf.setInt(RdmaTransportKeys.MAX_MESSAGE, 4096);
    conf.set(RdmaTransportKeys.LOOPBACK_DELIVERY, "poller");
    conf.setInt(RdmaTransportKeys.SEND_TIMEOUT_MS, sendTimeoutMs);
    return conf;
  }

  @Test
  public void senderWaitsForCreditsUntilTheReceiverReturns() throws Exception {
    Recorder atServer = new Recorder();
    atServer.hold = new CountDownLatch(1);
    RdmaListener l = server.listen(new InetSocketAddress("127.0.0.1", 0), (p, d) -> atServer);
    RdmaEndpoint c = client.connect(l.localAddress(), ByteBuffer.allocate(0), new Recorder(), 1000);
    c.send(utf8("1")); // being received (receiver holds it)
    c.send(utf8("2")); // the second and last credit
    CountDownLatch thirdSent = new CountDownLatch(1);
    Thread t = new Thread(() -> {
      try {
        c.send(utf8("3"));
        thirdSent.countDown();
      } catch (IOException e) {
        throw new RuntimeException(e);
      }
    });
    t.start();
    assertFalse("no credit left: the third send waits", thirdSent.await(300, TimeUnit.MILLISECONDS));
    atServer.hold.countDown();
    atServer.hold = null;
    assertTrue(thirdSent.await(5, TimeUnit.SECONDS));
    assertEquals("1", atServer.messages.poll(5, TimeUnit.SECONDS));
    assertEquals("2", atServer.messages.poll(5, TimeUnit.SECONDS));
    assertEquals("3", atServer.messages.poll(5, TimeUnit.SECONDS));
  }

  /**
   * A sender waiting for credit when its endpoint is closed, here or by the peer, is released at
   * once with an IOException (not at strata.rdma.send.timeout.ms, set to a minute here), nothing
   * of its message is delivered, and the transport serves new endpoints.
   */
  @Test(timeout = 30_000)
  public void aSenderWaitingForCreditIsReleasedWhenTheEndpointCloses() throws Exception {
    LoopbackTransport sender = new LoopbackTransport(twoCredits(60_000));
    try {
      for (boolean peerCloses : new boolean[] { false, true }) {
        Recorder atServer = new Recorder();
        atServer.hold = new CountDownLatch(1); // keeps its receive buffers: no credit comes back
        RdmaListener l = server.listen(new InetSocketAddress("127.0.0.1", 0), (p, d) -> atServer);
        Recorder atSender = new Recorder();
        RdmaEndpoint c = sender.connect(l.localAddress(), utf8("w"), atSender, 1000);
        c.send(utf8("1"));
        c.send(utf8("2"));
        java.util.concurrent.atomic.AtomicReference<Throwable> failure =
          new java.util.concurrent.atomic.AtomicReference<>();
        CountDownLatch done = new CountDownLatch(1);
        Thread t = new Thread(() -> {
          try {
            c.send(utf8("3"));
          } catch (Throwable e) {
            failure.set(e);
          } finally {
            done.countDown();
          }
        });
        t.start();
        assertFalse("no credit: the third send waits", done.await(300, TimeUnit.MILLISECONDS));
        long t0 = System.nanoTime();
        if (peerCloses) {
          server.endpointsForTest().get(server.endpointsForTest().size() - 1).close();
        } else {
          c.close();
        }
        assertTrue("the waiting sender was not released within 5 s of the close ("
          + (peerCloses ? "peer" : "local") + ")", done.await(5, TimeUnit.SECONDS));
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertTrue("released after " + ms + " ms", ms < 5_000);
        assertTrue(String.valueOf(failure.get()), failure.get() instanceof IOException);
        atServer.hold.countDown();
        atServer.hold = null;
        // what was sent before may still arrive; the message that waited never does
        for (String m; (m = atServer.messages.poll(500, TimeUnit.MILLISECONDS)) != null;) {
          assertFalse("the message that waited for credit was delivered after the close",
            m.equals("3"));
        }
        l.close();
      }
      // the transport still serves
      Recorder fresh = new Recorder();
      RdmaListener l = server.listen(new InetSocketAddress("127.0.0.1", 0), (p, d) -> fresh);
      RdmaEndpoint c = sender.connect(l.localAddress(), utf8("n"), new Recorder(), 1000);
      c.send(utf8("after"));
      assertEquals("after", fresh.messages.poll(5, TimeUnit.SECONDS));
    } finally {
      sender.close();
    }
  }

  /**
   * A peer that stops returning credits (a frozen or hostile client) must not hold the sending
   * thread: the send fails after strata.rdma.send.timeout.ms and the endpoint closes on both
   * sides with that cause; other endpoints of the same transports keep working.
   */
  @Test(timeout = 30_000)
  public void sendToAPeerWithholdingCreditsTimesOutAndClosesTheEndpoint() throws Exception {
    LoopbackTransport sender = new LoopbackTransport(twoCredits(300));
    try {
      Recorder stuck = new Recorder();
      stuck.hold = new CountDownLatch(1); // never returns its receive buffers
      Recorder healthy = new Recorder();
      // the stuck peer holds its transport's completion thread; the healthy one has its own
      RdmaListener l = server.listen(new InetSocketAddress("127.0.0.1", 0), (p, d) -> stuck);
      RdmaListener other = client.listen(new InetSocketAddress("127.0.0.1", 0), (p, d) -> healthy);
      Recorder atSender = new Recorder();
      RdmaEndpoint toStuck = sender.connect(l.localAddress(), utf8("s"), atSender, 1000);
      RdmaEndpoint toHealthy = sender.connect(other.localAddress(), utf8("ok"), new Recorder(),
        1000);
      toStuck.send(utf8("1"));
      toStuck.send(utf8("2"));
      long t0 = System.nanoTime();
      try {
        toStuck.send(utf8("3"));
        fail("a send with no credit coming back must fail");
      } catch (IOException expected) {
        assertTrue(expected.getMessage(), expected.getMessage().contains(RdmaTransportKeys.SEND_TIMEOUT_MS));
      }
      long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
      assertTrue("failed after " + ms + " ms", ms >= 250 && ms < 5_000);
      assertFalse(toStuck.isOpen());
      assertTrue(atSender.closed.await(5, TimeUnit.SECONDS));
      assertTrue(String.valueOf(atSender.cause.get()),
        atSender.cause.get().getMessage().contains(RdmaTransportKeys.SEND_TIMEOUT_MS));
      toHealthy.send(utf8("still served"));
      assertEquals("still served", healthy.messages.poll(5, TimeUnit.SECONDS));
      stuck.hold.countDown();
    } finally {
      sender.close();
    }
  }

  /**
   * Sides with different strata.rdma.max.message.bytes: each endpoint carries the smaller limit
   * (as verbs, whose peer's rendezvous region is only that large); a larger message is refused
   * with MessageTooLargeException, nothing sent, the endpoint left open.
   */
  @Test
  public void endpointLimitIsTheSmallerOfBothSides() throws Exception {
    MapTransportConf conf = new MapTransportConf();
    conf.setInt(RdmaTransportKeys.CREDITS, 2);
    conf.setInt(RdmaTransportKeys.EAGER_THRESHOLD, 64);
    conf.setInt(RdmaTransportKeys.MAX_MESSAGE, 1024); // the server's (setUp) is 4096
    conf.set(RdmaTransportKeys.LOOPBACK_DELIVERY, "poller");
    LoopbackTransport small = new LoopbackTransport(conf);
    try {
      Recorder atServer = new Recorder();
      Recorder atSmall = new Recorder();
      BlockingQueue<RdmaEndpoint> accepted = new LinkedBlockingQueue<>();
      RdmaListener l = server.listen(new InetSocketAddress("127.0.0.1", 0), new RdmaAcceptor() {
        @Override
        public RdmaReceiver accept(InetSocketAddress peer, ByteBuffer privateData) {
          return atServer;
        }

        @Override
        public void established(RdmaEndpoint endpoint) {
          accepted.add(endpoint);
        }
      });
      RdmaEndpoint c = small.connect(l.localAddress(), ByteBuffer.allocate(0), atSmall, 1000);
      RdmaEndpoint s = accepted.poll(5, TimeUnit.SECONDS);
      assertNotNull(s);
      assertEquals(1024, c.maxMessageSize());
      assertEquals("the server side learns the client's smaller limit", 1024, s.maxMessageSize());
      try {
        s.send(utf8("y".repeat(2000)));
        fail("a 2000-byte message to a side whose limit is 1024 was sent");
      } catch (MessageTooLargeException expected) {
        assertTrue(expected.getMessage(), expected.getMessage().contains(RdmaTransportKeys.MAX_MESSAGE));
      }
      assertTrue("a refused message leaves the endpoint open", s.isOpen() && c.isOpen());
      s.send(utf8("z".repeat(1000)));
      assertEquals("z".repeat(1000), atSmall.messages.poll(5, TimeUnit.SECONDS));
    } finally {
      small.close();
    }
  }

  @Test
  public void acceptorSeesPrivateDataAndMayReject() throws Exception {
    AtomicReference<String> seen = new AtomicReference<>();
    RdmaListener l = server.listen(new InetSocketAddress("127.0.0.1", 0), (p, d) -> {
      byte[] b = new byte[d.remaining()];
      d.get(b);
      seen.set(new String(b, StandardCharsets.UTF_8));
      return seen.get().equals("let me in") ? new Recorder() : null;
    });
    try {
      client.connect(l.localAddress(), utf8("forged"), new Recorder(), 1000);
      fail("rejected request must fail connect");
    } catch (ConnectException expected) {
      assertEquals("forged", seen.get());
    }
    assertNotNull(client.connect(l.localAddress(), utf8("let me in"), new Recorder(), 1000));
    try {
      client.connect(l.localAddress(), ByteBuffer.allocate(57), new Recorder(), 1000);
      fail("private data above 56 bytes");
    } catch (IllegalArgumentException expected) {
      // as RDMA CM
    }
  }

  @Test
  public void orderlyCloseAndKillNotifyBothSides() throws Exception {
    Recorder atServer = new Recorder();
    RdmaListener l = server.listen(new InetSocketAddress("127.0.0.1", 0), (p, d) -> atServer);
    Recorder atClient = new Recorder();
    RdmaEndpoint c = client.connect(l.localAddress(), ByteBuffer.allocate(0), atClient, 1000);
    c.close();
    assertTrue(atClient.closed.await(5, TimeUnit.SECONDS));
    assertTrue(atServer.closed.await(5, TimeUnit.SECONDS));
    assertNull("local close: no cause", atClient.cause.get());
    assertNotNull("peer closed: a cause", atServer.cause.get());
    try {
      c.send(utf8("late"));
      fail("send on a closed endpoint");
    } catch (IOException expected) {
      // nothing sent
    }

    Recorder s2 = new Recorder();
    Recorder c2 = new Recorder();
    RdmaListener l2 = server.listen(new InetSocketAddress("127.0.0.1", 0), (p, d) -> s2);
    RdmaEndpoint e2 = client.connect(l2.localAddress(), ByteBuffer.allocate(0), c2, 1000);
    assertEquals("one connection killed", 1, LoopbackTransport.killEndpoints());
    assertTrue(c2.closed.await(5, TimeUnit.SECONDS));
    assertTrue(s2.closed.await(5, TimeUnit.SECONDS));
    assertNotNull(c2.cause.get());
    assertNotNull(s2.cause.get());
    assertFalse(e2.isOpen());

    LoopbackTransport.killListeners();
    try {
      client.connect(l2.localAddress(), ByteBuffer.allocate(0), new Recorder(), 1000);
      fail("no listener");
    } catch (ConnectException expected) {
      // the listener is gone
    }
  }

  /**
   * The disconnect handshake: a closed side keeps its resources (no onReleased, still counted by
   * openEndpoints) until the peer answers its disconnect request; a peer withholding its answers
   * holds them, its own side closed all the same; resuming answers, and both sides are released,
   * each after its onClose.
   */
  @Test
  public void closedSideIsReleasedOnlyWhenThePeerAnswers() throws Exception {
    Recorder atServer = new Recorder();
    RdmaListener l = server.listen(new InetSocketAddress("127.0.0.1", 0), (p, d) -> atServer);
    Recorder atClient = new Recorder();
    int before = LoopbackTransport.openEndpoints();
    RdmaEndpoint c = client.connect(l.localAddress(), ByteBuffer.allocate(0), atClient, 1000);
    assertEquals(before + 2, LoopbackTransport.openEndpoints());

    client.withholdDisconnectReplies(true);
    server.endpointsForTest().get(0).close(); // the server closes; the client ignores the request
    assertTrue(atServer.closed.await(5, TimeUnit.SECONDS));
    assertTrue("the client's side closes all the same", atClient.closed.await(5, TimeUnit.SECONDS));
    assertFalse(c.isOpen());
    assertFalse("the server's side is not released before the answer",
      atServer.released.await(300, TimeUnit.MILLISECONDS));
    assertEquals("both sides still hold their resources", before + 2,
      LoopbackTransport.openEndpoints());

    assertEquals("one answer sent", 1, client.withholdDisconnectReplies(false));
    assertTrue(atServer.released.await(5, TimeUnit.SECONDS));
    assertTrue(atClient.released.await(5, TimeUnit.SECONDS));
    assertTrue(atServer.closedBeforeRelease);
    assertTrue(atClient.closedBeforeRelease);
    assertEquals(before, LoopbackTransport.openEndpoints());

    // Without withholding a close is answered at once: both sides released.
    Recorder s2 = new Recorder();
    RdmaListener l2 = server.listen(new InetSocketAddress("127.0.0.1", 0), (p, d) -> s2);
    Recorder c2 = new Recorder();
    client.connect(l2.localAddress(), ByteBuffer.allocate(0), c2, 1000).close();
    assertTrue(c2.released.await(5, TimeUnit.SECONDS));
    assertTrue(s2.released.await(5, TimeUnit.SECONDS));
    assertEquals(before, LoopbackTransport.openEndpoints());

    // Closing a withholding transport answers what it held, as its process's exit would.
    Recorder s3 = new Recorder();
    RdmaListener l3 = server.listen(new InetSocketAddress("127.0.0.1", 0), (p, d) -> s3);
    client.withholdDisconnectReplies(true);
    client.connect(l3.localAddress(), ByteBuffer.allocate(0), new Recorder(), 1000);
    server.endpointsForTest().get(0).close();
    assertTrue(s3.closed.await(5, TimeUnit.SECONDS));
    assertFalse(s3.released.await(300, TimeUnit.MILLISECONDS));
    client.close();
    assertTrue(s3.released.await(5, TimeUnit.SECONDS));
    assertEquals(before, LoopbackTransport.openEndpoints());
  }

  /**
   * A frozen transport's endpoint closed and torn down by its peer meanwhile (it has left its
   * transport) still hears onClose and onReleased, in that order, once the transport thaws: what
   * counts endpoints until their release never keeps one for ever.
   */
  @Test
  public void closeAndReleaseHeldByAFreezeAreDeliveredOnThaw() throws Exception {
    Recorder atServer = new Recorder();
    RdmaListener l = server.listen(new InetSocketAddress("127.0.0.1", 0), (p, d) -> atServer);
    RdmaEndpoint c = client.connect(l.localAddress(), ByteBuffer.allocate(0), new Recorder(),
      1000);
    int port = l.localAddress().getPort();
    assertTrue(LoopbackTransport.freeze(port, true));
    try {
      c.close();
      assertFalse("nothing delivered while frozen", atServer.closed.await(200,
        TimeUnit.MILLISECONDS));
    } finally {
      LoopbackTransport.freeze(port, false);
    }
    assertTrue(atServer.closed.await(5, TimeUnit.SECONDS));
    assertTrue(atServer.released.await(5, TimeUnit.SECONDS));
    assertTrue(atServer.closedBeforeRelease);
  }

  /** Inline delivery: concurrent senders, each sender's messages in its order, one at a time. */
  @Test
  public void inlineDeliveryIsSerialAndOrderedPerSender() throws Exception {
    MapTransportConf conf = new MapTransportConf();
    conf.set(RdmaTransportKeys.LOOPBACK_DELIVERY, "inline");
    try (LoopbackTransport s = new LoopbackTransport(conf);
      LoopbackTransport c = new LoopbackTransport(conf)) {
      java.util.concurrent.atomic.AtomicInteger inside = new java.util.concurrent.atomic.AtomicInteger();
      List<String> got = new CopyOnWriteArrayList<>();
      List<Integer> overlaps = new CopyOnWriteArrayList<>();
      RdmaReceiver r = new RdmaReceiver() {
        @Override
        public void onMessage(RdmaEndpoint e, ByteBuffer m) {
          if (inside.incrementAndGet() > 1) {
            overlaps.add(1);
          }
          byte[] b = new byte[m.remaining()];
          m.get(b);
          got.add(new String(b, StandardCharsets.UTF_8));
          inside.decrementAndGet();
        }

        @Override
        public void onClose(RdmaEndpoint e, IOException cause) {
        }
      };
      RdmaListener l = s.listen(new InetSocketAddress("127.0.0.1", 0), (p, d) -> r);
      RdmaEndpoint e = c.connect(l.localAddress(), ByteBuffer.allocate(0), new Recorder(), 1000);
      Thread[] senders = new Thread[4];
      for (int t = 0; t < senders.length; t++) {
        int id = t;
        senders[t] = new Thread(() -> {
          for (int i = 0; i < 500; i++) {
            try {
              e.send(utf8(id + ":" + i));
            } catch (IOException ex) {
              throw new RuntimeException(ex);
            }
          }
        });
        senders[t].start();
      }
      for (Thread t : senders) {
        t.join();
      }
      assertEquals(2000, got.size());
      assertTrue("deliveries overlapped", overlaps.isEmpty());
      int[] last = { -1, -1, -1, -1 };
      for (String m : got) {
        int sender = Integer.parseInt(m.substring(0, m.indexOf(':')));
        int i = Integer.parseInt(m.substring(m.indexOf(':') + 1));
        assertTrue(m + " out of order", i > last[sender]);
        last[sender] = i;
      }
    }
  }
}
