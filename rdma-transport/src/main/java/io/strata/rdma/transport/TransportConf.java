package io.strata.rdma.transport;

/**
 * The read-only key/value view a transport reads its settings from, so that the transports need
 * no configuration library: the hybrid HBase RPC passes its Hadoop {@code Configuration}
 * ({@code conf::get}), tests and tools a {@link MapTransportConf}. Values are parsed and checked
 * by the typed getters of {@link RdmaTransportKeys} and of each transport's own keys class.
 * Implementations are safe to read from several threads.
 */
@FunctionalInterface
public interface TransportConf {

  /** No key set: every getter returns its default. */
  TransportConf EMPTY = key -> null;

  /** The value of {@code key}, or null when it is not set. */
  String get(String key);
}
