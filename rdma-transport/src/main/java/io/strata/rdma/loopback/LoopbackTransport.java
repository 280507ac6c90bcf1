package io.strata.rdma.loopback;

import io.strata.rdma.transport.RdmaAcceptor;
import io.strata.rdma.transport.RdmaEndpoint;
import io.strata.rdma.transport.RdmaListener;
import io.strata.rdma.transport.RdmaReceiver;
import io.strata.rdma.transport.RdmaTransport;
import io.strata.rdma.transport.RdmaTransportKeys;
import io.strata.rdma.transport.TransportConf;
import java.io.IOException;
import java.net.BindException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The RDMA transport inside one JVM. All instances share one fabric: a listener of one instance
 * (a RegionServer's) is reachable by {@link #connect} of another (a client's) at the port it was
 * given. Listener ports are the fabric's own, not the operating system's. Receive credits and the
 * eager buffer size come from the same keys as verbs.
 *
 * <p>Delivery ({@code strata.rdma.loopback.delivery}): {@code inline} (default) runs a message's
 * completion on the sending thread when no other delivery to that endpoint is under way — what a
 * completion thread busy-polling on a core of its own gives, less the wire — so that the RPC's
 * own cost is what is measured; {@code poller} gives each instance one completion thread that
 * busy-polls for {@code strata.rdma.poll.spin.us} and then parks, as a verbs completion thread
 * sharing cores with everything else. Either way one endpoint's completions run one at a time,
 * in order.
 *
 * <p>Closing runs the connection manager's handshake: the closing side sends a disconnect
 * request and keeps its resources until the peer answers (the peer's side closes and is torn
 * down on the request); each side's receiver hears {@code onReleased} once torn down.
 *
 * <p>Fault hooks for tests: {@link #killEndpoints()} fails every connected endpoint on both sides
 * (messages not yet delivered are lost, as when a port or process dies), {@link #killListeners()}
 * makes new connection requests fail, {@link #withholdDisconnectReplies} makes a transport a peer
 * that ignores disconnect requests.
 */
public final class LoopbackTransport implements RdmaTransport {
  /** Largest private data of a connection request, as RDMA CM allows for RC connections. */
  public static final int MAX_PRIVATE_DATA = 56;

  private static final Map<Integer, Listener> LISTENERS = new ConcurrentHashMap<>();
  private static final Set<LoopbackTransport> TRANSPORTS = ConcurrentHashMap.newKeySet();
  private static final AtomicInteger NEXT_PORT = new AtomicInteger(20_000);
  private static final AtomicInteger NEXT_ID = new AtomicInteger();

  private final int credits;
  private final int eagerBytes;
  private final int maxMessage;
  private final int sendTimeoutMs;
  private final long spinNanos;
  private final boolean inline;
  private final String id = "loopback-" + NEXT_ID.incrementAndGet();
  private final Set<LoopbackEndpoint> endpoints = ConcurrentHashMap.newKeySet();
  /** Endpoints with completions held by a freeze (see {@link #heldUntilThaw}). */
  private final Set<LoopbackEndpoint> held = ConcurrentHashMap.newKeySet();
  private final Set<Listener> listeners = ConcurrentHashMap.newKeySet();
  private volatile CompletionPoller poller;
  private volatile boolean closed;
  private volatile boolean frozen;
  /** Disconnect requests left unanswered (guarded by this); null while answers go at once. */
  private List<LoopbackEndpoint> withheld;

  public LoopbackTransport(TransportConf conf) {
    this.credits = credits(conf);
    this.eagerBytes = RdmaTransportKeys.eagerThreshold(conf);
    this.maxMessage = RdmaTransportKeys.maxMessage(conf);
    this.sendTimeoutMs = RdmaTransportKeys.sendTimeoutMs(conf);
    this.spinNanos = TimeUnit.MICROSECONDS.toNanos(RdmaTransportKeys.pollSpinUs(conf));
    this.inline = RdmaTransportKeys.loopbackDelivery(conf)
      .equals(RdmaTransportKeys.LOOPBACK_DELIVERY_INLINE);
    TRANSPORTS.add(this);
  }

  /**
   * {@link RdmaTransportKeys#CREDITS}, any positive number: the loopback transport sends no
   * credit messages, so the verbs transport's lower bound of 4 ({@link
   * RdmaTransportKeys#credits}) does not apply, and its tests run out of credits with 2.
   */
  private static int credits(TransportConf conf) {
    int v = RdmaTransportKeys.intValue(conf, RdmaTransportKeys.CREDITS,
      RdmaTransportKeys.CREDITS_DEFAULT);
    if (v <= 0) {
      throw new IllegalArgumentException(RdmaTransportKeys.CREDITS + " must be > 0, not " + v);
    }
    return v;
  }

  @Override
  public String name() {
    return "loopback";
  }

  @Override
  public int maxMessageSize() {
    return maxMessage;
  }

  /** The completion thread, null in inline delivery mode. */
  private CompletionPoller poller() throws IOException {
    if (closed) {
      throw new IOException("Transport " + id + " is closed");
    }
    if (inline) {
      return null;
    }
    CompletionPoller p = poller;
    if (p == null) {
      synchronized (this) {
        if (poller == null) {
          poller = new CompletionPoller(id + "-completions", spinNanos);
        }
        p = poller;
      }
    }
    return p;
  }

  @Override
  public RdmaListener listen(InetSocketAddress address, RdmaAcceptor acceptor) throws IOException {
    CompletionPoller p = poller();
    int port = address.getPort();
    Listener listener;
    if (port == 0) {
      do {
        port = NEXT_PORT.getAndIncrement();
        listener = new Listener(this, p, new InetSocketAddress(address.getAddress(), port),
          acceptor);
      } while (LISTENERS.putIfAbsent(port, listener) != null);
    } else {
      listener = new Listener(this, p, address, acceptor);
      if (LISTENERS.putIfAbsent(port, listener) != null) {
        throw new BindException("Loopback port " + port + " is in use");
      }
    }
    listeners.add(listener);
    return listener;
  }

  @Override
  public RdmaEndpoint connect(InetSocketAddress address, ByteBuffer privateData,
    RdmaReceiver receiver, long timeoutMs) throws IOException {
    if (privateData.remaining() > MAX_PRIVATE_DATA) {
      throw new IllegalArgumentException("Private data of " + privateData.remaining()
        + " bytes exceeds the " + MAX_PRIVATE_DATA + "-byte limit");
    }
    CompletionPoller p = poller();
    Listener listener = LISTENERS.get(address.getPort());
    if (listener == null || !listener.accepts(address)) {
      throw new ConnectException("No loopback listener at " + address);
    }
    InetSocketAddress local = new InetSocketAddress("127.0.0.1", NEXT_PORT.getAndIncrement());
    ByteBuffer data = ByteBuffer.allocate(privateData.remaining());
    data.put(privateData.duplicate()).flip();
    return listener.connect(this, p, local, data.asReadOnlyBuffer(), receiver);
  }

  /**
   * Fault hook: this transport's endpoints stop (true) or resume (false) answering the peer's
   * disconnect requests, as a hostile peer that ignores them: its side of a connection the other
   * side closed still closes (its receiver hears onClose), but the other side's resources stay
   * until the answer, which resuming sends for every request held. Returns how many answers
   * resuming sent (0 when withholding starts). Closing the transport answers them too.
   */
  public int withholdDisconnectReplies(boolean withhold) {
    List<LoopbackEndpoint> answer;
    synchronized (this) {
      if (withhold) {
        if (withheld == null) {
          withheld = new ArrayList<>();
        }
        return 0;
      }
      answer = withheld == null ? new ArrayList<>() : withheld;
      withheld = null;
    }
    for (LoopbackEndpoint e : answer) {
      e.release();
    }
    return answer.size();
  }

  /** Holds {@code endpoint}'s answer to a disconnect request when replies are withheld. */
  synchronized boolean withheld(LoopbackEndpoint endpoint) {
    if (withheld == null || closed) {
      return false;
    }
    withheld.add(endpoint);
    return true;
  }

  /** This transport's endpoints not yet torn down (tests of this package). */
  List<RdmaEndpoint> endpointsForTest() {
    return new ArrayList<>(endpoints);
  }

  void added(LoopbackEndpoint endpoint) {
    endpoints.add(endpoint);
  }

  void removed(LoopbackEndpoint endpoint) {
    endpoints.remove(endpoint);
  }

  /**
   * Fault hook: the transport owning the listener at {@code listenerPort} stops (true) or
   * resumes (false) delivering completions, as a process stopped by SIGSTOP or in a long GC
   * pause: its endpoints receive nothing and return no credits; messages wait, in order, until
   * it resumes. Returns whether such a transport exists.
   */
  public static boolean freeze(int listenerPort, boolean freeze) {
    Listener l = LISTENERS.get(listenerPort);
    if (l == null) {
      return false;
    }
    LoopbackTransport t = l.transport;
    t.frozen = freeze;
    if (!freeze) {
      for (LoopbackEndpoint e : t.endpoints) {
        e.thaw();
      }
      for (LoopbackEndpoint e : t.held) {
        t.held.remove(e);
        e.thaw();
      }
    }
    return true;
  }

  /**
   * {@code endpoint} has completions held while this transport is frozen: thawing delivers them
   * even when it has left {@code endpoints} meanwhile (closed and torn down while frozen).
   */
  void heldUntilThaw(LoopbackEndpoint endpoint) {
    held.add(endpoint);
  }

  boolean frozen() {
    return frozen;
  }

  int sendTimeoutMs() {
    return sendTimeoutMs;
  }

  int credits() {
    return credits;
  }

  int eagerBytes() {
    return eagerBytes;
  }

  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    for (Listener l : new ArrayList<>(listeners)) {
      l.close();
    }
    // As a process's exit: its connections are torn down without waiting for any answer, and
    // the disconnect requests it held are answered.
    withholdDisconnectReplies(false);
    for (LoopbackEndpoint e : new ArrayList<>(endpoints)) {
      e.close();
      e.release();
    }
    TRANSPORTS.remove(this);
    CompletionPoller p = poller;
    if (p != null) {
      p.stop();
    }
  }

  /**
   * Fails every connected endpoint of every loopback transport in this JVM, both sides, with an
   * error (what a dead port or peer looks like). Returns how many connections were killed.
   */
  public static int killEndpoints() {
    List<LoopbackEndpoint> all = new ArrayList<>();
    for (LoopbackTransport t : TRANSPORTS) {
      all.addAll(t.endpoints);
    }
    int killed = 0;
    for (LoopbackEndpoint e : all) {
      if (e.isOpen()) {
        e.die("Loopback endpoint killed (fault injection)");
        killed++;
      }
    }
    return killed;
  }

  /** Closes every listener in this JVM: new connection requests fail until one listens again. */
  public static int killListeners() {
    List<Listener> all = new ArrayList<>(LISTENERS.values());
    all.forEach(Listener::close);
    return all.size();
  }

  /**
   * Endpoints of all loopback transports in this JVM not yet torn down (both sides counted):
   * connected ones and closed ones waiting for the answer to their disconnect request.
   */
  public static int openEndpoints() {
    int n = 0;
    for (LoopbackTransport t : TRANSPORTS) {
      n += t.endpoints.size();
    }
    return n;
  }

  private static final class Listener implements RdmaListener {
    private final LoopbackTransport transport;
    private final CompletionPoller poller;
    private final InetSocketAddress address;
    private final RdmaAcceptor acceptor;
    private volatile boolean open = true;

    Listener(LoopbackTransport transport, CompletionPoller poller, InetSocketAddress address,
      RdmaAcceptor acceptor) {
      this.transport = transport;
      this.poller = poller;
      this.address = address;
      this.acceptor = acceptor;
    }

    boolean accepts(InetSocketAddress to) {
      return open && (address.getAddress() == null || address.getAddress().isAnyLocalAddress()
        || to.getAddress() == null || to.getAddress().equals(address.getAddress())
        || to.getAddress().isLoopbackAddress());
    }

    RdmaEndpoint connect(LoopbackTransport client, CompletionPoller clientPoller,
      InetSocketAddress clientAddress, ByteBuffer privateData, RdmaReceiver clientReceiver)
      throws IOException {
      RdmaReceiver serverReceiver = acceptor.accept(clientAddress, privateData);
      if (serverReceiver == null) {
        throw new ConnectException("Connection request to " + address + " rejected");
      }
      // Each side's receive buffers are its own transport's: credits and eager size.
      LoopbackEndpoint c = new LoopbackEndpoint(client, clientPoller, clientAddress, address,
        client.credits(), client.eagerBytes());
      LoopbackEndpoint s = new LoopbackEndpoint(transport, poller, address, clientAddress,
        transport.credits(), transport.eagerBytes());
      c.connect(s, clientReceiver);
      s.connect(c, serverReceiver);
      client.added(c);
      transport.added(s);
      if (!open) {
        c.kill("Listener " + address + " closed");
        throw new ConnectException("No loopback listener at " + address);
      }
      serverReceiver.onEstablished(s);
      acceptor.established(s);
      return c;
    }

    @Override
    public InetSocketAddress localAddress() {
      return address;
    }

    @Override
    public void close() {
      open = false;
      LISTENERS.remove(address.getPort(), this);
      transport.listeners.remove(this);
    }
  }
}
