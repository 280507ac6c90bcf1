package io.strata.rdma.transport;

import java.io.Closeable;
import java.net.InetSocketAddress;

/** A listening endpoint; closing it stops accepting and leaves established endpoints open. */
public interface RdmaListener extends Closeable {

  InetSocketAddress localAddress();

  @Override
  void close();
}
