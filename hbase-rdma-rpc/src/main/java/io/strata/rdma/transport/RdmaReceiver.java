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
   * The endpoint closed: {@code cause} is null after a local or orderly close, otherwise what
   * failed (peer gone, transport error). Called once.
   */
  void onClose(RdmaEndpoint endpoint, IOException cause);
}
