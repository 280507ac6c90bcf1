package io.strata.rdma.verbs;

import io.strata.rdma.transport.RdmaAcceptor;
import io.strata.rdma.transport.RdmaListener;
import java.net.InetSocketAddress;

/** A listening RDMA CM id; closing it leaves the endpoints it accepted open. */
final class VerbsListener implements RdmaListener {
  final RdmaAcceptor acceptor;
  private final VerbsTransport.State transport;
  private final long id;
  private long handle; // guarded by this
  private InetSocketAddress local;

  VerbsListener(VerbsTransport.State transport, long id, RdmaAcceptor acceptor) {
    this.transport = transport;
    this.id = id;
    this.acceptor = acceptor;
  }

  synchronized void attach(long nativeHandle, InetSocketAddress localAddress) {
    this.handle = nativeHandle;
    this.local = localAddress;
  }

  @Override
  public synchronized InetSocketAddress localAddress() {
    return local;
  }

  @Override
  public void close() {
    long h;
    synchronized (this) {
      h = handle;
      handle = 0;
    }
    transport.listeners.remove(id);
    if (h != 0) {
      NativeVerbs.closeListener(h);
    }
  }

  @Override
  public String toString() {
    return "VerbsListener[" + local + "]";
  }
}
