package io.strata.hbase.rdma;

import io.strata.rdma.loopback.LoopbackTransport;
import io.strata.rdma.transport.RdmaAcceptor;
import io.strata.rdma.transport.RdmaEndpoint;
import io.strata.rdma.transport.RdmaListener;
import io.strata.rdma.transport.RdmaReceiver;
import io.strata.rdma.transport.RdmaTransport;
import io.strata.rdma.transport.TransportConf;
import io.strata.rdma.transport.TransportCounters;
import io.strata.rdma.transport.TransportFactory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A client transport for tests ({@code strata.rdma.transport} set to this class): the loopback
 * transport, whose endpoints record every send (thread, how long the caller let it wait for
 * credit, how long it took, whether it was sent) and can hold the next send on a latch, so that
 * something (a close) can happen while a send is under way. Its name is the loopback's, so loopback servers accept it.
 */
public final class HookedTransportFactory implements TransportFactory {
  private static final Queue<Send> SENDS = new ConcurrentLinkedQueue<>();
  private static final AtomicReference<Gate> GATE = new AtomicReference<>();
  /** Sends under way: thread, start (System.nanoTime) and the wait the caller allowed. */
  private static final Map<Thread, long[]> UNDER_WAY = new ConcurrentHashMap<>();

  @Override
  public RdmaTransport newTransport(TransportConf conf) {
    return new Hooked(new LoopbackTransport(conf));
  }

  /** One {@code send} through a hooked endpoint. */
  static final class Send {
    final String thread;
    final long maxWaitMs;
    final long tookMs;
    final String outcome;

    Send(String thread, long maxWaitMs, long tookMs, String outcome) {
      this.thread = thread;
      this.maxWaitMs = maxWaitMs;
      this.tookMs = tookMs;
      this.outcome = outcome;
    }

    @Override
    public String toString() {
      return "send on " + thread + " (maxWaitMs " + maxWaitMs + ", took " + tookMs + " ms, "
        + outcome + ")";
    }
  }

  /** Holds the next send through any hooked endpoint until {@link #release}. */
  static final class Gate {
    private final CountDownLatch entered = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);
    private volatile RdmaEndpoint endpoint;

    /** The endpoint whose send is held, once a send is held (else null after the wait). */
    RdmaEndpoint awaitHeld(long timeoutMs) throws InterruptedException {
      return entered.await(timeoutMs, TimeUnit.MILLISECONDS) ? endpoint : null;
    }

    void release() {
      released.countDown();
    }
  }

  /** The next send through a hooked endpoint waits until the returned gate is released. */
  static Gate holdNextSend() {
    Gate g = new Gate();
    GATE.set(g);
    return g;
  }

  /** Every send recorded so far. */
  static List<Send> sends() {
    return new ArrayList<>(SENDS);
  }

  /** Sends under way now, as if they ended now. */
  static List<Send> sendsUnderWay() {
    List<Send> l = new ArrayList<>();
    long now = System.nanoTime();
    UNDER_WAY.forEach((t, s) -> l.add(new Send(t.getName(), s[1],
      TimeUnit.NANOSECONDS.toMillis(now - s[0]), "under way")));
    return l;
  }

  static void clearSends() {
    SENDS.clear();
  }

  private static final class Hooked implements RdmaTransport {
    private final RdmaTransport delegate;

    Hooked(RdmaTransport delegate) {
      this.delegate = delegate;
    }

    @Override
    public String name() {
      return delegate.name();
    }

    @Override
    public int maxMessageSize() {
      return delegate.maxMessageSize();
    }

    @Override
    public int maxPrivateData() {
      return delegate.maxPrivateData();
    }

    @Override
    public RdmaListener listen(InetSocketAddress address, RdmaAcceptor acceptor)
      throws IOException {
      return delegate.listen(address, acceptor);
    }

    @Override
    public RdmaEndpoint connect(InetSocketAddress address, ByteBuffer privateData,
      RdmaReceiver receiver, long timeoutMs) throws IOException {
      return new HookedEndpoint(delegate.connect(address, privateData, receiver, timeoutMs));
    }

    @Override
    public void close() throws IOException {
      delegate.close();
    }
  }

  private static final class HookedEndpoint implements RdmaEndpoint {
    private final RdmaEndpoint delegate;

    HookedEndpoint(RdmaEndpoint delegate) {
      this.delegate = delegate;
    }

    @Override
    public void send(ByteBuffer message) throws IOException {
      send(new ByteBuffer[] { message }, -1);
    }

    @Override
    public void send(ByteBuffer[] parts) throws IOException {
      send(parts, -1);
    }

    @Override
    public boolean send(ByteBuffer[] parts, long maxWaitMs) throws IOException {
      long t0 = System.nanoTime();
      String outcome = "thrown";
      UNDER_WAY.put(Thread.currentThread(), new long[] { t0, maxWaitMs });
      try {
        Gate g = GATE.get();
        if (g != null && GATE.compareAndSet(g, null)) {
          g.endpoint = delegate;
          g.entered.countDown();
          g.released.await();
        }
        boolean sent = delegate.send(parts, maxWaitMs);
        outcome = sent ? "sent" : "no credit";
        return sent;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while held", e);
      } finally {
        UNDER_WAY.remove(Thread.currentThread());
        SENDS.add(new Send(Thread.currentThread().getName(), maxWaitMs,
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0), outcome));
      }
    }

    @Override
    public boolean isOpen() {
      return delegate.isOpen();
    }

    @Override
    public int maxMessageSize() {
      return delegate.maxMessageSize();
    }

    @Override
    public InetSocketAddress remoteAddress() {
      return delegate.remoteAddress();
    }

    @Override
    public TransportCounters counters() {
      return delegate.counters();
    }

    @Override
    public void close() {
      delegate.close();
    }
  }
}
