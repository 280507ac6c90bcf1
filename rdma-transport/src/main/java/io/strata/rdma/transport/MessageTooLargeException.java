package io.strata.rdma.transport;

import java.io.IOException;

/**
 * A message above the smaller of the two sides' message limits
 * ({@code strata.rdma.max.message.bytes}, exchanged when the endpoint connects) was not sent; the
 * endpoint stays open. Callers check {@link RdmaEndpoint#maxMessageSize()} first and take
 * another path (sockets) for such a message. Immutable.
 */
public class MessageTooLargeException extends IOException {
  private static final long serialVersionUID = 1L;

  public MessageTooLargeException(String message) {
    super(message);
  }
}
