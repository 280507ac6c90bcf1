package io.strata.rdma.verbs;

import io.strata.rdma.transport.RdmaAcceptor;
import io.strata.rdma.transport.RdmaListener;
import java.net.InetSocketAddress;

/**
 * A listening RDMA CM id; closing it leaves the endpoints it accepted open. Registered with its
 * transport before the native listen returns (a connection request may arrive at once), so the
 * native id is attached afterwards, in a {@link Handle} that frees it exactly once. Thread-safe.
 */
final class VerbsListener implements RdmaListener {
  final RdmaAcceptor acceptor;
  private final VerbsTransport.State transport;
  private final long id;
  private Handle handle; // guarded by this
  private InetSocketAddress local;

  VerbsListener(VerbsTransport.State transport, long id, RdmaAcceptor acceptor) {
    this.transport = transport;
    this.id = id;
    this.acceptor = acceptor;
  }

  synchronized void attach(Handle nativeHandle, InetSocketAddress localAddress) {
    this.handle = nativeHandle;
    this.local = localAddress;
  }

  @Override
  public synchronized InetSocketAddress localAddress() {
    return local;
  }

  @Override
  public void close() {
    Handle h;
    synchronized (this) {
      h = handle;
      handle = null;
    }
    transport.listeners.remove(id);
    if (h != null) {
      h.close();
    }
  }

  @Override
  public String toString() {
    return "VerbsListener[" + local + "]";
  }

  /** A native listening id: closed once. */
  static final class Handle extends NativeReference {
    Handle(long nativeHandle) {
      super(nativeHandle);
    }

    /** The port the native id listens on. */
    int port() {
      return NativeVerbs.listenerPort(handleOrThrow());
    }

    @Override
    protected void disposeInternal(long nativeHandle) {
      NativeVerbs.closeListener(nativeHandle);
    }
  }
}
