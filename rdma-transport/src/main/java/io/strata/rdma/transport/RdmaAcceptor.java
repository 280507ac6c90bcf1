package io.strata.rdma.transport;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/** Decides on a connection request at a listener. */
public interface RdmaAcceptor {

  /**
   * Returns the receiver for the new endpoint, or null to reject the request (the peer's
   * {@code connect} fails). {@code privateData} is what the peer passed to connect.
   */
  RdmaReceiver accept(InetSocketAddress peer, ByteBuffer privateData);

  /** The accepted endpoint is established and may send. Default: nothing. */
  default void established(RdmaEndpoint endpoint) {
  }
}
