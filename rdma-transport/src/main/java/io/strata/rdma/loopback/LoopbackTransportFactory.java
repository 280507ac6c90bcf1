package io.strata.rdma.loopback;

import io.strata.rdma.transport.RdmaTransport;
import io.strata.rdma.transport.SupportedTransport;
import io.strata.rdma.transport.TransportConf;
import io.strata.rdma.transport.TransportFactory;

/**
 * Creates {@link LoopbackTransport}s ({@link SupportedTransport#LOOPBACK}). Stateless;
 * thread-safe.
 */
public final class LoopbackTransportFactory implements TransportFactory {

  @Override
  public RdmaTransport newTransport(TransportConf conf) {
    return new LoopbackTransport(conf);
  }
}
