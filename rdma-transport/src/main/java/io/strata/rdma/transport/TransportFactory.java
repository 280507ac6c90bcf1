package io.strata.rdma.transport;

/**
 * Creates the transports of one kind. {@link SupportedTransport} names the factory of each
 * transport Strata ships; a configuration may also name any implementation by its class name,
 * which needs a public no-argument constructor. Implementations are stateless and thread-safe.
 */
public interface TransportFactory {

  /**
   * A new transport configured from {@code conf}.
   *
   * @throws TransportUnavailableException when the transport cannot run on this machine (no
   *     native library, no device), with a reason an operator can act on
   * @throws IllegalArgumentException when a key has a bad value (the message names the key)
   */
  RdmaTransport newTransport(TransportConf conf) throws TransportUnavailableException;
}
