package io.strata.rdma.verbs;

import io.strata.rdma.transport.RdmaAcceptor;
import io.strata.rdma.transport.RdmaEndpoint;
import io.strata.rdma.transport.RdmaListener;
import io.strata.rdma.transport.RdmaReceiver;
import io.strata.rdma.transport.RdmaTransport;
import io.strata.rdma.transport.RdmaTransportKeys;
import io.strata.rdma.transport.TransportConf;
import io.strata.rdma.transport.TransportUnavailableException;
import java.io.IOException;
import java.lang.ref.Cleaner;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link RdmaTransport} over Strata's native endpoint runtime (rdma-core through JNI): RDMA CM
 * connections, reliable-connected queue pairs, credit flow control, RDMA WRITE above the eager
 * threshold. One progress thread per transport polls completions (busy for
 * {@value RdmaTransportKeys#POLL_SPIN_US} µs, then waits on the completion channel) and runs
 * every receiver and acceptor callback. Created by {@link VerbsTransportFactory}.
 *
 * <p>The constructor throws {@link TransportUnavailableException} with one actionable reason
 * when the native library cannot load or there is no usable RDMA device. Native resources are
 * freed by {@link #close()}; a transport dropped without closing is closed by a
 * {@link Cleaner}. The native context is a {@link Context}, freed exactly once by the progress
 * thread when its loop returned. Thread-safe.
 */
public final class VerbsTransport implements RdmaTransport {
  private static final Logger LOG = LoggerFactory.getLogger(VerbsTransport.class);
  private static final Cleaner CLEANER = Cleaner.create();

  private final State state;
  private final Cleaner.Cleanable cleanable;

  public VerbsTransport(TransportConf conf) throws TransportUnavailableException {
    this(conf, false);
  }

  /**
   * {@code withoutDevice}: a context that opens no RDMA connection manager and can neither
   * listen nor connect (tests of the binding's life cycle on machines without a device).
   */
  VerbsTransport(TransportConf conf, boolean withoutDevice) throws TransportUnavailableException {
    Settings s = new Settings(conf);
    NativeLibrary.load(VerbsKeys.nativeLibrary(conf));
    String devices = withoutDevice ? "none" : probe(s.device);
    long ctx;
    try {
      ctx = NativeVerbs.createContext(s.device, s.eager, s.credits, s.maxMessage, s.spinUs,
          s.sendTimeoutMs, withoutDevice);
    } catch (TransportUnavailableException e) {
      throw e;
    } catch (IllegalArgumentException e) {
      throw e;
    } catch (IOException e) {
      throw new TransportUnavailableException("cannot open the verbs transport: "
          + e.getMessage(), e);
    }
    this.state = new State(new Context(ctx), s);
    this.cleanable = CLEANER.register(this, state);
    state.thread.start();
    LOG.info("verbs transport open on {} (eager {} B, {} credits, max message {} B, poll spin {} us,"
        + " send timeout {} ms)", devices, s.eager, s.credits, s.maxMessage, s.spinUs,
        s.sendTimeoutMs);
  }

  private static String probe(String device) throws TransportUnavailableException {
    try {
      return NativeVerbs.probe(device);
    } catch (TransportUnavailableException e) {
      throw e;
    } catch (IOException e) {
      throw new TransportUnavailableException(e.getMessage(), e);
    }
  }

  @Override
  public String name() {
    return "verbs";
  }

  @Override
  public int maxMessageSize() {
    return state.settings.maxMessage;
  }

  /** Largest private data {@link #connect} carries: 55 bytes (one of the 56 holds the length). */
  @Override
  public int maxPrivateData() {
    return VerbsEndpoint.MAX_PRIVATE_DATA;
  }

  @Override
  public RdmaListener listen(InetSocketAddress address, RdmaAcceptor acceptor) throws IOException {
    state.checkOpen();
    InetAddress ip = resolved(address);
    long id = state.ids.incrementAndGet();
    VerbsListener listener = new VerbsListener(state, id, acceptor);
    state.listeners.put(id, listener);
    // Held across the native listen, as for connect: a close racing it must not free the context
    // the listen uses.
    state.contextLock.readLock().lock();
    try {
      state.checkOpen();
      VerbsListener.Handle handle = new VerbsListener.Handle(NativeVerbs.listen(
          state.context.handleOrThrow(), ip.getHostAddress(), address.getPort(), 128, id));
      int port;
      try {
        port = handle.port();
      } catch (RuntimeException e) {
        handle.close();
        throw e;
      }
      listener.attach(handle, new InetSocketAddress(ip, port));
    } catch (IOException | RuntimeException e) {
      state.listeners.remove(id);
      throw e;
    } finally {
      state.contextLock.readLock().unlock();
    }
    return listener;
  }

  @Override
  public RdmaEndpoint connect(InetSocketAddress address, ByteBuffer privateData,
      RdmaReceiver receiver, long timeoutMs) throws IOException {
    state.checkOpen();
    InetAddress ip = resolved(address);
    byte[] pdata = new byte[privateData == null ? 0 : privateData.remaining()];
    if (pdata.length > VerbsEndpoint.MAX_PRIVATE_DATA) {
      throw new IllegalArgumentException("private data of " + pdata.length + " bytes for "
          + address + ": the verbs transport carries at most " + VerbsEndpoint.MAX_PRIVATE_DATA);
    }
    if (privateData != null) {
      privateData.duplicate().get(pdata);
    }
    int timeout = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeoutMs));
    long id = state.ids.incrementAndGet();
    VerbsEndpoint ep = new VerbsEndpoint(state, id, new InetSocketAddress(ip, address.getPort()),
        receiver, null);
    state.endpoints.put(id, ep);
    // Held across the native connect: the progress thread frees the context only once no
    // connect is under way (a close racing a connect must not free what it uses).
    state.contextLock.readLock().lock();
    try {
      state.checkOpen();
      ep.attach(NativeVerbs.connect(state.context.handleOrThrow(), ip.getHostAddress(),
          address.getPort(), pdata, timeout, id));
    } catch (IOException | RuntimeException e) {
      state.endpoints.remove(id);
      throw e;
    } finally {
      state.contextLock.readLock().unlock();
    }
    return ep;
  }

  private static InetAddress resolved(InetSocketAddress address) throws IOException {
    if (address.isUnresolved() || address.getAddress() == null) {
      throw new IOException("cannot resolve " + address);
    }
    return address.getAddress();
  }

  @Override
  public void close() {
    cleanable.clean();
  }

  /** Live native objects of this process (leak checks in tests). */
  static long liveNativeObjects() {
    return NativeVerbs.liveObjects();
  }

  /** {@link #liveNativeObjects()}, loading the library first. */
  static long liveNativeObjectsAfterLoad() throws TransportUnavailableException {
    NativeLibrary.load(VerbsKeys.NATIVE_LIBRARY_DEFAULT);
    return NativeVerbs.liveObjects();
  }

  /** Validated settings; a bad value names its key. */
  static final class Settings {
    final String device;
    final int eager;
    final int credits;
    final int maxMessage;
    final int spinUs;
    final int sendTimeoutMs;

    Settings(TransportConf conf) {
      device = VerbsKeys.device(conf);
      eager = RdmaTransportKeys.eagerThreshold(conf);
      credits = RdmaTransportKeys.credits(conf);
      maxMessage = RdmaTransportKeys.maxMessage(conf);
      spinUs = RdmaTransportKeys.pollSpinUs(conf);
      sendTimeoutMs = RdmaTransportKeys.sendTimeoutMs(conf);
    }
  }

  /**
   * The native context: freed exactly once, under the write lock of {@code contextLock}, so that
   * no native call that holds its read lock (a connect) uses a freed context.
   */
  static final class Context extends NativeReference {
    final ReentrantReadWriteLock contextLock = new ReentrantReadWriteLock();

    Context(long nativeHandle) {
      super(nativeHandle);
    }

    @Override
    protected void disposeInternal(long nativeHandle) {
      contextLock.writeLock().lock();
      try {
        NativeVerbs.destroyContext(nativeHandle);
      } finally {
        contextLock.writeLock().unlock();
      }
    }
  }

  /**
   * Everything the progress thread and the cleaner need, without a reference to the
   * {@link VerbsTransport} facade (so that an unreachable transport can be cleaned).
   */
  static final class State implements NativeCallbacks, Runnable {
    final Context context;
    final Settings settings;
    final Thread thread;
    final AtomicLong ids = new AtomicLong();
    final Map<Long, VerbsEndpoint> endpoints = new ConcurrentHashMap<>();
    final Map<Long, VerbsListener> listeners = new ConcurrentHashMap<>();
    /** Read: a native call using the context is under way; write: the context is freed. */
    final ReentrantReadWriteLock contextLock;
    private volatile boolean closed;

    State(Context context, Settings settings) {
      this.context = context;
      this.contextLock = context.contextLock;
      this.settings = settings;
      this.thread = new Thread(this::progress, "strata-rdma-verbs-progress");
      this.thread.setDaemon(true);
    }

    private void progress() {
      try {
        NativeVerbs.run(context.handle, this);
      } finally {
        closed = true;
        context.close(); // the loop's owner frees the context once it returned
        // The loop tore every endpoint down as it stopped; any it could not tell is released now.
        for (Long id : new ArrayList<>(endpoints.keySet())) {
          onReleased(id);
        }
      }
    }

    void checkOpen() throws IOException {
      if (closed) {
        throw new IOException("the verbs transport is closed");
      }
    }

    /** Cleaner action and {@link VerbsTransport#close()}: closes everything, frees the context. */
    @Override
    public void run() {
      if (closed) {
        return;
      }
      closed = true;
      for (VerbsListener l : new ArrayList<>(listeners.values())) {
        l.close();
      }
      for (VerbsEndpoint e : new ArrayList<>(endpoints.values())) {
        e.close();
      }
      NativeVerbs.stop(context.handle);
      if (Thread.currentThread() != thread) {
        try {
          thread.join(30_000);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
          LOG.warn("verbs transport's progress thread did not stop within 30 s; its native "
              + "context is freed when it does");
        }
      }
    }

    @Override
    public void onMessage(long endpointId, long endpointHandle, int region, int offset,
        int length) {
      VerbsEndpoint ep = endpoints.get(endpointId);
      if (ep != null) {
        ep.deliver(endpointHandle, region, offset, length);
      }
    }

    /** Closed for its receiver; it stays in the table until its teardown ({@link #onReleased}). */
    @Override
    public void onClose(long endpointId, String cause) {
      VerbsEndpoint ep = endpoints.get(endpointId);
      if (ep != null) {
        ep.closedByTransport(cause);
      }
    }

    @Override
    public void onReleased(long endpointId) {
      VerbsEndpoint ep = endpoints.remove(endpointId);
      if (ep != null) {
        ep.releasedByTransport();
      }
    }

    @Override
    public long onConnectRequest(long listenerId, long endpointHandle, String peerHost,
        int peerPort, byte[] privateData) {
      VerbsListener listener = listeners.get(listenerId);
      if (listener == null || closed) {
        return 0;
      }
      InetSocketAddress peer = new InetSocketAddress(peerHost, peerPort);
      RdmaReceiver receiver;
      try {
        receiver = listener.acceptor.accept(peer, ByteBuffer.wrap(privateData).asReadOnlyBuffer());
      } catch (Throwable t) {
        LOG.warn("acceptor of {} failed on a connection request from {}; rejected",
            listener.localAddress(), peer, t);
        return 0;
      }
      if (receiver == null) {
        return 0;
      }
      long id = ids.incrementAndGet();
      VerbsEndpoint ep = new VerbsEndpoint(this, id, peer, receiver, listener.acceptor);
      endpoints.put(id, ep);
      ep.attach(endpointHandle); // the native side takes the Java endpoint's reference on return
      return id;
    }

    @Override
    public void onEstablished(long endpointId, long endpointHandle) {
      VerbsEndpoint ep = endpoints.get(endpointId);
      if (ep != null && ep.acceptor != null) {
        ep.established();
        try {
          ep.acceptor.established(ep);
        } catch (Throwable t) {
          LOG.warn("acceptor failed on the established endpoint from {}", ep.remoteAddress(), t);
        }
      }
    }
  }
}
