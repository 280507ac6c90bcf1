package io.strata.hbase.rdma;

import org.apache.hadoop.hbase.DoNotRetryIOException;

/**
 * A response too large for the RDMA endpoint's message limit
 * ({@code strata.rdma.max.message.bytes}). The server sends it in place of the response. The
 * hybrid client re-sends a call that is safe to repeat over its socket connection: a Get or a
 * Multi of Gets, so that caller gets its rows, and an Append, which the server refuses with this
 * error before running it ({@link ReadOnlyCalls}). It passes the error on for any other call,
 * whose effect may already be applied. Not retried by HBase's client: the same call over the
 * same endpoint would fail again.
 */
public class EndpointMessageTooLargeException extends DoNotRetryIOException {
  private static final long serialVersionUID = 1L;

  public EndpointMessageTooLargeException(String message) {
    super(message);
  }
}
