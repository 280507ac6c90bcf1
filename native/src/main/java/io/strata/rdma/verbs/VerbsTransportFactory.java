package io.strata.rdma.verbs;

import io.strata.rdma.transport.RdmaTransport;
import io.strata.rdma.transport.SupportedTransport;
import io.strata.rdma.transport.TransportConf;
import io.strata.rdma.transport.TransportFactory;
import io.strata.rdma.transport.TransportUnavailableException;

/**
 * Creates {@link VerbsTransport}s ({@link SupportedTransport#VERBS}); loaded by class name, so
 * that code built against the seam alone finds the verbs transport when this jar is on the class
 * path. Stateless; thread-safe.
 */
public final class VerbsTransportFactory implements TransportFactory {

  @Override
  public RdmaTransport newTransport(TransportConf conf) throws TransportUnavailableException {
    return new VerbsTransport(conf);
  }
}
