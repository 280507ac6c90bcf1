package io.strata.rdma.transport;

import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * One connected queue pair. Thread-safe for {@link #send}; messages from one endpoint arrive at
 * the peer in send order. Closing is idempotent and releases the endpoint's native resources.
 */
public interface RdmaEndpoint extends Closeable {

  /**
   * Sends the bytes between {@code message}'s position and limit as one message, waiting while
   * the peer has no free receive credit. The buffer may be reused once this returns. Throws an
   * {@link IOException} once the endpoint is closed or the peer is gone; nothing is sent then.
   */
  void send(ByteBuffer message) throws IOException;

  /**
   * Sends the concatenation of {@code parts} (each from position to limit) as one message, so
   * that a response made of a header and cell-block buffers reaches the registered buffer in one
   * copy. Same contract as {@link #send(ByteBuffer)}; the parts' positions are left unchanged.
   * The default gathers into one buffer; transports override it to copy straight into theirs.
   */
  default void send(ByteBuffer[] parts) throws IOException {
    int size = 0;
    for (ByteBuffer part : parts) {
      size += part.remaining();
    }
    ByteBuffer message = ByteBuffer.allocate(size);
    for (ByteBuffer part : parts) {
      message.put(part.duplicate());
    }
    message.flip();
    send(message);
  }

  /**
   * {@link #send(ByteBuffer[])} waiting at most {@code maxWaitMs} for the peer's credit (and never
   * longer than {@code strata.rdma.send.timeout.ms}, after which the endpoint closes): returns
   * false when no credit came within {@code maxWaitMs} — nothing was sent and the endpoint stays
   * open. A client call sends with {@code maxWaitMs} 0 (credit free now, else the socket): its
   * thread may be one that every client of the JVM shares. The default ignores the bound.
   */
  default boolean send(ByteBuffer[] parts, long maxWaitMs) throws IOException {
    send(parts);
    return true;
  }

  boolean isOpen();

  /**
   * Largest message this endpoint carries: the smaller of this side's and the peer's
   * {@code strata.rdma.max.message.bytes}, learnt when the endpoint connected. A larger message
   * fails with {@link MessageTooLargeException}, nothing sent, the endpoint left open.
   */
  int maxMessageSize();

  InetSocketAddress remoteAddress();

  /** Counters of what really went over this endpoint (messages and bytes each way). */
  TransportCounters counters();

  @Override
  void close();
}
