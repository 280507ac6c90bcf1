package io.strata.rdma.transport;

import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * A reliable, connection-oriented message transport with RDMA semantics (the seam between HBase's
 * RPC and the endpoint runtime): message boundaries are kept, sends are flow-controlled by
 * credits, and received messages are handed out as views of pre-registered buffers so that a
 * request or response crosses the JNI boundary without a copy.
 *
 * <p>Implementations: the verbs transport over {@code native/} (rdma-core through JNI) and an
 * in-process loopback used where no RDMA device exists, each created by its
 * {@link TransportFactory} (named by {@link SupportedTransport}) from a {@link TransportConf}; a
 * factory throws {@link TransportUnavailableException} when its transport cannot run here (no
 * native library, no device), with a reason an operator can act on.
 */
public interface RdmaTransport extends Closeable {

  /** Short name for logs and metrics, e.g. {@code verbs} or {@code loopback}. */
  String name();

  /** Largest message {@link RdmaEndpoint#send} accepts, in bytes. */
  int maxMessageSize();

  /**
   * Largest private data {@link #connect} carries, in bytes: 56 unless the transport needs some
   * of the RDMA CM's 56 bytes itself (the verbs transport carries 55).
   */
  default int maxPrivateData() {
    return 56;
  }

  /**
   * Listens on {@code address} (port 0 picks a free port). Each connection request is passed to
   * {@code acceptor} with the private data the peer sent; the acceptor decides whether to accept.
   */
  RdmaListener listen(InetSocketAddress address, RdmaAcceptor acceptor) throws IOException;

  /**
   * Connects to a listener, sending {@code privateData} (at most 56 bytes, the RDMA CM limit for
   * RC connections) with the request. Fails with an {@link IOException} naming the peer when the
   * peer rejects, does not answer within {@code timeoutMs}, or is unreachable.
   */
  RdmaEndpoint connect(InetSocketAddress address, ByteBuffer privateData, RdmaReceiver receiver,
      long timeoutMs) throws IOException;
}
