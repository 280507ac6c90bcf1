package io.strata.rdma.loopback;

import io.strata.rdma.transport.MessageTooLargeException;
import io.strata.rdma.transport.RdmaEndpoint;
import io.strata.rdma.transport.RdmaReceiver;
import io.strata.rdma.transport.TransportCounters;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One side of a loopback connection. Its receive buffers ("registered" at set-up, one per credit)
 * are what the peer's sends copy into; a message is delivered on this side's completion thread
 * as a read-only view of its buffer, and the buffer and its credit go back to the peer only when
 * the receiver returns, as a verbs receive is reposted.
 */
final class LoopbackEndpoint implements RdmaEndpoint {
  private static final Logger LOG = LoggerFactory.getLogger(LoopbackEndpoint.class);

  private final LoopbackTransport transport;
  private final CompletionPoller poller;
  private final InetSocketAddress local;
  private final InetSocketAddress remote;
  private final int eagerBytes;
  private final Semaphore receiveCredits;
  private final ConcurrentLinkedQueue<ReceiveBuffer> freeBuffers = new ConcurrentLinkedQueue<>();
  private final TransportCounters counters = new TransportCounters();
  private final AtomicBoolean open = new AtomicBoolean(true);
  /** Torn down: its resources freed and its receiver told (after the disconnect handshake). */
  private final AtomicBoolean released = new AtomicBoolean();
  /** Completions (messages, close) for this side, delivered in order, one at a time. */
  private final ConcurrentLinkedQueue<CompletionPoller.Completion> mailbox =
    new ConcurrentLinkedQueue<>();
  private final AtomicBoolean delivering = new AtomicBoolean();
  private final CompletionPoller.Completion drainer = this::drain;
  private volatile RdmaReceiver receiver;
  private volatile LoopbackEndpoint peer;

  LoopbackEndpoint(LoopbackTransport transport, CompletionPoller poller, InetSocketAddress local,
    InetSocketAddress remote, int credits, int eagerBytes) {
    this.transport = transport;
    this.poller = poller;
    this.local = local;
    this.remote = remote;
    this.eagerBytes = eagerBytes;
    this.receiveCredits = new Semaphore(credits);
    for (int i = 0; i < credits; i++) {
      freeBuffers.add(new ReceiveBuffer(ByteBuffer.allocateDirect(eagerBytes)));
    }
  }

  void connect(LoopbackEndpoint peer, RdmaReceiver receiver) {
    this.peer = peer;
    this.receiver = receiver;
  }

  @Override
  public void send(ByteBuffer message) throws IOException {
    send(new ByteBuffer[] { message });
  }

  @Override
  public void send(ByteBuffer[] parts) throws IOException {
    send(parts, -1);
  }

  @Override
  public boolean send(ByteBuffer[] parts, long maxWaitMs) throws IOException {
    int size = 0;
    for (ByteBuffer part : parts) {
      size += part.remaining();
    }
    LoopbackEndpoint to = peer;
    int limit = maxMessageSize();
    if (size > limit) {
      throw new MessageTooLargeException("Message of " + size + " bytes to " + remote
        + " exceeds the " + limit + "-byte limit of this endpoint (the smaller of both sides' "
        + "strata.rdma.max.message.bytes)");
    }
    checkOpen(to);
    if (!to.acquireCredit(this, maxWaitMs)) {
      return false;
    }
    ReceiveBuffer rb = to.freeBuffers.poll();
    // A message above the eager size goes by rendezvous: the peer receives it in a buffer made
    // for it (verbs: an RDMA WRITE into a registered buffer the peer advertised).
    ByteBuffer target = size <= eagerBytes ? rb.buffer : ByteBuffer.allocateDirect(size);
    int at = 0;
    for (ByteBuffer part : parts) {
      int n = part.remaining();
      // Absolute copy, neither buffer's position moves (ByteBuffer.put(int, ByteBuffer, int, int)
      // is Java 16+; this jar is built for Java 11).
      ByteBuffer dst = target.duplicate();
      dst.position(at);
      dst.put(part.duplicate());
      at += n;
    }
    rb.deliver(target, size);
    counters.sent(size);
    return true;
  }

  private void checkOpen(LoopbackEndpoint to) throws IOException {
    if (!open.get() || to == null || !to.open.get()) {
      throw new IOException("Loopback endpoint " + local + " -> " + remote + " is closed");
    }
  }

  /**
   * Waits for a receive credit of this endpoint, as the sender {@code from}, at most
   * {@code strata.rdma.send.timeout.ms}: a receiver that returns none for that long (a stuck or
   * hostile peer) gets its endpoint closed on both sides, as the verbs runtime does, so that the
   * sending thread (an RPC handler) is not held by one peer. A caller's shorter
   * {@code maxWaitMs} (>= 0) running out returns false instead, the endpoint left open.
   */
  private boolean acquireCredit(LoopbackEndpoint from, long maxWaitMs) throws IOException {
    long timeoutMs = from.transport.sendTimeoutMs();
    boolean callersWait = maxWaitMs >= 0 && maxWaitMs < timeoutMs;
    long start = System.nanoTime();
    long deadline = start + TimeUnit.MILLISECONDS.toNanos(callersWait ? maxWaitMs : timeoutMs);
    try {
      while (!receiveCredits.tryAcquire(Math.max(0, Math.min(10_000_000L,
        deadline - System.nanoTime())), TimeUnit.NANOSECONDS)) {
        from.checkOpen(this);
        if (System.nanoTime() - deadline >= 0) {
          if (callersWait) {
            return false;
          }
          String why = "peer " + from.remote + " returned no credit for " + timeoutMs
            + " ms (strata.rdma.send.timeout.ms); endpoint closed";
          from.kill(why);
          throw new IOException(why);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("Interrupted waiting for a send credit to " + local, e);
    }
    if (!open.get() || !from.open.get()) {
      receiveCredits.release();
      from.checkOpen(this);
    }
    return true;
  }

  @Override
  public boolean isOpen() {
    return open.get();
  }

  /** The smaller of both sides' limits: the peer's receive buffer for a large message is its own. */
  @Override
  public int maxMessageSize() {
    LoopbackEndpoint p = peer;
    int mine = transport.maxMessageSize();
    return p == null ? mine : Math.min(mine, p.transport.maxMessageSize());
  }

  @Override
  public InetSocketAddress remoteAddress() {
    return remote;
  }

  @Override
  public TransportCounters counters() {
    return counters;
  }

  /**
   * Orderly close: this side's receiver sees a null cause, the peer's a "peer closed" error.
   * This side's resources stay until the peer answers the disconnect request (see
   * {@link #disconnect}).
   */
  @Override
  public void close() {
    disconnect(null, "Peer " + local + " closed the endpoint");
  }

  /**
   * Closes this side with {@code cause} (the local side failed it: a send timeout, a receiver
   * that threw) and asks the peer to disconnect, as a verbs endpoint's close does: the peer's
   * receiver sees {@code why}.
   */
  void kill(String why) {
    disconnect(new IOException(why), why);
  }

  /**
   * The connection manager's handshake: this side closes ({@code cause} null for a local close)
   * and sends a disconnect request; its resources are released ({@link RdmaReceiver#onReleased})
   * when the peer answers — at once, unless the peer's transport withholds its answers
   * ({@link LoopbackTransport#withholdDisconnectReplies}), a peer that ignores disconnect
   * requests.
   */
  private void disconnect(IOException cause, String peerWhy) {
    LoopbackEndpoint p = peer;
    boolean first = closeWith(cause);
    if (p == null) {
      release();
    } else if (first) {
      p.disconnectRequested(new IOException(peerWhy));
    }
  }

  /**
   * The peer's disconnect request arrived (the RDMA CM's DISCONNECTED event): this side closes
   * with {@code cause} and answers by tearing itself down, unless its transport withholds the
   * answer (a hostile peer's: the request is ignored).
   */
  private void disconnectRequested(IOException cause) {
    closeWith(cause);
    if (!transport.withheld(this)) {
      release();
    }
  }

  /**
   * Fails both sides with {@code why} and frees both at once, without the disconnect handshake:
   * the port or the process died, so nobody is left to answer.
   */
  void die(String why) {
    LoopbackEndpoint p = peer;
    closeWith(new IOException(why));
    if (p != null) {
      p.closeWith(new IOException(why));
    }
    release(); // and the peer's
  }

  /**
   * Tears this side down, once: it leaves its transport and its receiver is told
   * ({@link RdmaReceiver#onReleased}) after its {@code onClose}. The peer, if it still waits for
   * this answer to its disconnect request, is torn down in turn.
   */
  void release() {
    if (!released.compareAndSet(false, true)) {
      return;
    }
    closeWith(new IOException("Loopback endpoint " + local + " -> " + remote + " torn down"));
    transport.removed(this);
    RdmaReceiver r = receiver;
    if (r != null) {
      complete(() -> r.onReleased(this));
    }
    LoopbackEndpoint p = peer;
    if (p != null && !p.released.get()) {
      p.closeWith(new IOException("Peer " + local + " is gone"));
      p.release();
    }
  }

  /** Closes this side for its receiver (once; false when it was closed already). */
  boolean closeWith(IOException cause) {
    if (!open.compareAndSet(true, false)) {
      return false;
    }
    RdmaReceiver r = receiver;
    if (r != null) {
      complete(() -> r.onClose(this, cause));
    }
    return true;
  }

  /**
   * Hands a completion to this side's receiver: on the calling thread when no other delivery to
   * this side is under way ({@code inline}, a completion thread that is always polling), else by
   * whichever thread is delivering, or on the transport's completion thread ({@code poller}).
   */
  private void complete(CompletionPoller.Completion c) {
    mailbox.offer(c);
    if (transport.frozen()) {
      // Delivered by thaw(), even once this side has left its transport (its close and its
      // release wait too); a thaw that came meanwhile left it to this thread.
      transport.heldUntilThaw(this);
      if (transport.frozen()) {
        return;
      }
    }
    if (poller == null) {
      drain();
    } else {
      poller.post(drainer);
    }
  }

  private void drain() {
    // One deliverer at a time per endpoint; a thread already delivering to this endpoint (a
    // receiver that sends) leaves its new completions to its own loop, in order.
    while (!mailbox.isEmpty() && !transport.frozen() && delivering.compareAndSet(false, true)) {
      try {
        for (CompletionPoller.Completion c; !transport.frozen() && (c = mailbox.poll()) != null;) {
          try {
            c.complete();
          } catch (RuntimeException | Error e) {
            LOG.error("Completion on {} failed", this, e);
          }
        }
      } finally {
        delivering.set(false);
      }
    }
    if (!mailbox.isEmpty() && transport.frozen()) {
      transport.heldUntilThaw(this); // frozen while delivering: the rest waits for thaw()
      if (!transport.frozen()) {
        thaw();
      }
    }
  }

  /** Delivers what a frozen transport held back. */
  void thaw() {
    if (poller == null) {
      drain();
    } else {
      poller.post(drainer);
    }
  }

  @Override
  public String toString() {
    return "loopback " + local + " -> " + remote + (open.get() ? "" : " (closed)");
  }

  /**
   * A receive buffer of this endpoint with its reusable read-only view; also the completion that
   * delivers it.
   */
  private final class ReceiveBuffer implements CompletionPoller.Completion {
    final ByteBuffer buffer;
    private final ByteBuffer readOnly;
    private ByteBuffer view;
    private int length;

    ReceiveBuffer(ByteBuffer buffer) {
      this.buffer = buffer;
      this.readOnly = buffer.asReadOnlyBuffer();
    }

    /** Delivers the first {@code length} bytes of {@code data}: this buffer or a rendezvous one. */
    void deliver(ByteBuffer data, int length) {
      this.view = data == buffer ? readOnly : data.asReadOnlyBuffer();
      this.length = length;
      LoopbackEndpoint.this.complete(this);
    }

    @Override
    public void complete() {
      try {
        if (open.get()) {
          view.clear().limit(length);
          counters.received(length);
          try {
            receiver.onMessage(LoopbackEndpoint.this, view);
          } catch (RuntimeException e) {
            LOG.error("Receiver of {} failed on a {}-byte message; closing the endpoint",
              LoopbackEndpoint.this, length, e);
            kill("Receiver failed: " + e);
          }
        }
      } finally {
        view = null;
        freeBuffers.add(this);
        receiveCredits.release();
      }
    }
  }
}
