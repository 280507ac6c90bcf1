package io.strata.rdma.transport;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Receives an endpoint's messages. Called on the transport's completion thread: decode or copy
 * what is needed and hand work off, never block.
 */
public interface RdmaReceiver {

  /**
   * A message arrived. {@code message} (position..limit) is a read-only view of a registered
   * receive buffer that is valid only until this method returns.
   */
  void onMessage(RdmaEndpoint endpoint, ByteBuffer message);

  /**
   * An endpoint this receiver was given by {@link RdmaAcceptor#accept} is established, so that
   * the receiver has it (to send, or to close) before its first message — which may still arrive
   * first on some transports. Called once, before {@link RdmaAcceptor#established}. Default:
   * nothing.
   */
  default void onEstablished(RdmaEndpoint endpoint) {
  }

  /**
   * The endpoint closed: {@code cause} is null after a local or orderly close, otherwise what
   * failed (peer gone, transport error). Called once.
   */
  void onClose(RdmaEndpoint endpoint, IOException cause);

  /**
   * The endpoint's transport resources (its queue pair and registered buffers, about twice
   * {@code strata.rdma.max.message.bytes} plus the eager pools) are freed: the connection
   * manager's teardown completed. Called once, after {@link #onClose}, which comes first: a close
   * sends a disconnect request, and the resources stay until the peer answers it (or, over
   * verbs, until the connection manager gives up waiting), so a peer that ignores disconnect
   * requests keeps them pinned meanwhile. Whoever caps endpoints counts one until this call.
   * Default: nothing.
   */
  default void onReleased(RdmaEndpoint endpoint) {
  }
}
