package io.strata.rdma.verbs;

import io.strata.rdma.transport.MessageTooLargeException;
import io.strata.rdma.transport.RdmaAcceptor;
import io.strata.rdma.transport.RdmaEndpoint;
import io.strata.rdma.transport.RdmaReceiver;
import io.strata.rdma.transport.TransportCounters;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A connected queue pair of the verbs transport. Holds one reference to the native endpoint in a
 * {@link Handle}, dropped exactly once by {@link #close()} (also called when the peer goes away
 * and when the transport closes). Sends copy straight from the caller's buffer into registered
 * memory.
 *
 * <p>Thread-safe: sends run concurrently under the read lock of {@code handleLock}; the release
 * of the native handle takes its write lock, so that no send uses a freed endpoint. Delivery
 * callbacks run on the transport's progress thread only.
 */
final class VerbsEndpoint implements RdmaEndpoint {
  private static final Logger LOG = LoggerFactory.getLogger(VerbsEndpoint.class);
  static final int MAX_PRIVATE_DATA = 55;

  final long id;
  final RdmaAcceptor acceptor; // null on the connecting side
  private final VerbsTransport.State transport;
  private final InetSocketAddress remote;
  private final RdmaReceiver receiver;
  private final TransportCounters counters = new TransportCounters();
  /** Sends hold the read lock; the release of the native handle takes the write lock. */
  private final ReentrantReadWriteLock handleLock = new ReentrantReadWriteLock();
  private final AtomicBoolean closing = new AtomicBoolean();
  private final AtomicBoolean closeNotified = new AtomicBoolean();
  private final AtomicBoolean releaseNotified = new AtomicBoolean();
  private Handle handle; // guarded by this; null before attach and after release
  private boolean attached; // guarded by this
  private boolean released; // guarded by this
  private volatile String closeCause;
  private ByteBuffer eagerView; // progress thread only
  private ByteBuffer rendezvousView; // progress thread only

  VerbsEndpoint(VerbsTransport.State transport, long id, InetSocketAddress remote,
      RdmaReceiver receiver, RdmaAcceptor acceptor) {
    this.transport = transport;
    this.id = id;
    this.remote = remote;
    this.receiver = receiver;
    this.acceptor = acceptor;
  }

  /** Takes ownership of the native reference; if closed already, gives it back at once. */
  void attach(long nativeHandle) {
    Handle giveBack;
    synchronized (this) {
      if (attached) {
        return;
      }
      attached = true;
      Handle h = new Handle(nativeHandle);
      giveBack = released ? h : null;
      if (giveBack == null) {
        handle = h;
      }
    }
    if (giveBack != null) {
      giveBack.close();
    }
  }

  /** The native endpoint, 0 before attach and once released. */
  private synchronized long handle() {
    return handle == null ? 0 : handle.handle;
  }

  @Override
  public void send(ByteBuffer message) throws IOException {
    int length = message.remaining();
    checkSize(length);
    handleLock.readLock().lock();
    try {
      long h = openHandle();
      int pos = message.position();
      if (message.isDirect()) {
        NativeVerbs.sendDirect(h, message, pos, length);
      } else if (message.hasArray()) {
        NativeVerbs.sendArray(h, message.array(), message.arrayOffset() + pos, length);
      } else {
        byte[] copy = new byte[length];
        message.duplicate().get(copy);
        NativeVerbs.sendArray(h, copy, 0, length);
      }
      counters.sent(length);
    } finally {
      handleLock.readLock().unlock();
    }
  }

  /** Gathers the parts straight into registered memory: one copy, as for a single buffer. */
  @Override
  public void send(ByteBuffer[] parts) throws IOException {
    send(parts, -1);
  }

  @Override
  public boolean send(ByteBuffer[] parts, long maxWaitMs) throws IOException {
    if (parts.length > 16) {
      ByteBuffer gathered = ByteBuffer.allocateDirect(sizeOf(parts));
      for (ByteBuffer part : parts) {
        gathered.put(part.duplicate());
      }
      return send(new ByteBuffer[] { gathered.flip() }, maxWaitMs);
    }
    Object[] sources = new Object[parts.length];
    int[] offsets = new int[parts.length];
    int[] lengths = new int[parts.length];
    int total = 0;
    for (int i = 0; i < parts.length; i++) {
      ByteBuffer part = parts[i];
      lengths[i] = part.remaining();
      total += lengths[i];
      if (part.isDirect()) {
        sources[i] = part;
        offsets[i] = part.position();
      } else if (part.hasArray()) {
        sources[i] = part.array();
        offsets[i] = part.arrayOffset() + part.position();
      } else {
        byte[] copy = new byte[lengths[i]];
        part.duplicate().get(copy);
        sources[i] = copy;
      }
    }
    checkSize(total);
    handleLock.readLock().lock();
    try {
      int wait = maxWaitMs < 0 ? -1 : (int) Math.min(Integer.MAX_VALUE, maxWaitMs);
      if (!NativeVerbs.sendParts(openHandle(), sources, offsets, lengths, total, wait)) {
        return false;
      }
      counters.sent(total);
      return true;
    } finally {
      handleLock.readLock().unlock();
    }
  }

  private static int sizeOf(ByteBuffer[] parts) {
    int size = 0;
    for (ByteBuffer part : parts) {
      size += part.remaining();
    }
    return size;
  }

  private void checkSize(int length) throws MessageTooLargeException {
    int limit = maxMessageSize();
    if (length > limit) {
      throw new MessageTooLargeException("message of " + length + " bytes to " + remote
          + " exceeds this endpoint's " + limit + " (the smaller of both sides' "
          + "strata.rdma.max.message.bytes)");
    }
  }

  /** The smaller of both sides' limits, as the native runtime learnt them at connect. */
  @Override
  public int maxMessageSize() {
    handleLock.readLock().lock();
    try {
      long h = handle();
      return h == 0 ? transport.settings.maxMessage : NativeVerbs.maxMessage(h);
    } finally {
      handleLock.readLock().unlock();
    }
  }

  /** The native handle; call with the read lock held. */
  private long openHandle() throws IOException {
    long h = handle();
    if (h == 0 || closing.get()) {
      throw closedException();
    }
    return h;
  }

  private IOException closedException() {
    String cause = closeCause;
    return new IOException("endpoint to " + remote + " is closed" + (cause == null ? "" : ": " + cause));
  }

  @Override
  public boolean isOpen() {
    handleLock.readLock().lock();
    try {
      long h = handle();
      return h != 0 && !closing.get() && NativeVerbs.isOpen(h);
    } finally {
      handleLock.readLock().unlock();
    }
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
   * Native counters of this endpoint: messages sent, bytes sent, messages received, bytes
   * received, messages sent by RDMA WRITE, credit messages sent, sends that waited for credit.
   * Zeros once closed.
   */
  long[] nativeStats() {
    long[] out = new long[7];
    handleLock.readLock().lock();
    try {
      long h = handle();
      if (h != 0) {
        NativeVerbs.stats(h, out);
      }
    } finally {
      handleLock.readLock().unlock();
    }
    return out;
  }

  /** The accepted endpoint is established (progress thread): tell the receiver. */
  void established() {
    try {
      receiver.onEstablished(this);
    } catch (Throwable t) {
      LOG.warn("receiver of the endpoint from {} failed on establishment", remote, t);
    }
  }

  /** A message arrived (progress thread); {@code nativeHandle} maps the receive regions. */
  void deliver(long nativeHandle, int region, int offset, int length) {
    if (closing.get()) {
      return;
    }
    ByteBuffer message;
    try {
      ByteBuffer base = region == 0 ? eagerView : rendezvousView;
      if (base == null) {
        base = NativeVerbs.region(nativeHandle, region).asReadOnlyBuffer();
        if (region == 0) {
          eagerView = base;
        } else {
          rendezvousView = base;
        }
      }
      // ByteBuffer.slice(int, int) is Java 13+; this jar is built for Java 11. A duplicate, so
      // that the shared view's own position and limit stay as they are.
      ByteBuffer view = base.duplicate();
      view.limit(offset + length);
      view.position(offset);
      message = view.slice();
    } catch (IOException | RuntimeException e) {
      LOG.warn("cannot map the receive region of the endpoint to {}: {}", remote, e.toString());
      return;
    }
    counters.received(length);
    try {
      receiver.onMessage(this, message);
    } catch (Throwable t) {
      LOG.warn("receiver of the endpoint to {} failed on a {}-byte message", remote, length, t);
    }
  }

  /** The native endpoint closed (locally, by the peer, or on an error): tell the receiver once. */
  void closedByTransport(String cause) {
    if (cause != null) {
      closeCause = cause;
    }
    if (closeNotified.compareAndSet(false, true)) {
      try {
        receiver.onClose(this, cause == null ? null : new IOException(cause));
      } catch (Throwable t) {
        LOG.warn("receiver of the endpoint to {} failed on close", remote, t);
      }
    }
    close();
  }

  /**
   * The native endpoint is torn down (progress thread): its queue pair and registered memory are
   * freed. Tells the receiver once, after its onClose.
   */
  void releasedByTransport() {
    if (!closeNotified.get()) {
      closedByTransport("torn down");
    }
    if (releaseNotified.compareAndSet(false, true)) {
      try {
        receiver.onReleased(this);
      } catch (Throwable t) {
        LOG.warn("receiver of the endpoint to {} failed on release", remote, t);
      }
    }
  }

  @Override
  public void close() {
    if (!closing.compareAndSet(false, true)) {
      return;
    }
    long open = handle();
    if (open != 0) {
      NativeVerbs.closeEndpoint(open); // wakes sends waiting for credit, before the write lock
    }
    handleLock.writeLock().lock();
    try {
      Handle h;
      synchronized (this) {
        h = handle;
        handle = null;
        released = true;
      }
      if (h != null) {
        h.close();
      }
    } finally {
      handleLock.writeLock().unlock();
    }
    eagerView = null;
    rendezvousView = null;
  }

  @Override
  public String toString() {
    return "VerbsEndpoint[" + remote + ", " + counters + "]";
  }

  /** The Java side's reference to a native endpoint: closes the endpoint and drops it. */
  static final class Handle extends NativeReference {
    Handle(long nativeHandle) {
      super(nativeHandle);
    }

    @Override
    protected void disposeInternal(long nativeHandle) {
      NativeVerbs.closeEndpoint(nativeHandle);
      NativeVerbs.releaseEndpoint(nativeHandle);
    }
  }
}
