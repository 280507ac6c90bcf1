package io.strata.hbase.rdma;

import org.apache.hadoop.hbase.DoNotRetryIOException;

/**
 * A RegionServer refused an RDMA endpoint offer because a cap
 * ({@code strata.rdma.server.max.endpoints}, {@code strata.rdma.server.max.endpoints.per.user})
 * is reached, or because the offer request named another service than ClientService or other
 * cell codecs than its socket connection negotiated. Nothing failed: the client keeps using its socket connection and asks again after
 * {@code strata.rdma.client.retry.ms}. Immutable.
 */
public class EndpointRefusedException extends DoNotRetryIOException {
  private static final long serialVersionUID = 1L;

  public EndpointRefusedException(String message) {
    super(message);
  }
}
