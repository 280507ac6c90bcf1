package io.strata.hbase.rdma;

import io.strata.rdma.transport.RdmaTransport;
import io.strata.rdma.transport.SupportedTransport;
import io.strata.rdma.transport.TransportConf;
import io.strata.rdma.transport.TransportFactory;
import io.strata.rdma.transport.TransportUnavailableException;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place that turns {@code strata.rdma.transport} into a transport, through the factory
 * {@link SupportedTransport} names (or a factory class the key names). Factories are loaded by
 * class name, so that this module builds without the native one and runs without it: when a
 * transport cannot run here (its jar absent, no native library, no device), one WARN line says
 * why and the caller uses sockets only. Stateless; thread-safe.
 */
public final class RdmaTransports {
  private static final Logger LOG = LoggerFactory.getLogger(RdmaTransports.class);

  private RdmaTransports() {
  }

  /** The transports' read-only view of a Hadoop configuration (substitution included). */
  public static TransportConf transportConf(Configuration conf) {
    return conf::get;
  }

  /**
   * The configured transport, or empty when it is {@code none} or cannot run here (logged once
   * per call as a WARN naming the reason). {@code who} names the user in the log line, e.g.
   * {@code "RegionServer RPC server"}. The in-process loopback transport runs everywhere, so its
   * failure (a bad key) is thrown rather than hidden behind sockets.
   *
   * @throws IllegalArgumentException when the key names no known transport
   */
  public static Optional<RdmaTransport> create(Configuration conf, String who) {
    String name = HybridRpcKeys.transport(conf);
    if (name.equals(HybridRpcKeys.TRANSPORT_NONE)) {
      LOG.info("{}: {}=none, RDMA endpoint off, sockets only", who, HybridRpcKeys.TRANSPORT);
      return Optional.empty();
    }
    TransportConf transportConf = transportConf(conf);
    TransportFactory factory;
    try {
      factory = SupportedTransport.newFactory(name);
    } catch (TransportUnavailableException e) {
      LOG.warn("{}: RDMA transport {} not available ({}): sockets only", who, name,
        e.getMessage());
      return Optional.empty();
    }
    if (SupportedTransport.valueOfIgnoreCase(name) == SupportedTransport.LOOPBACK) {
      try {
        return Optional.of(factory.newTransport(transportConf));
      } catch (TransportUnavailableException e) {
        throw new IllegalStateException("the loopback transport is always available", e);
      }
    }
    try {
      return Optional.of(factory.newTransport(transportConf));
    } catch (TransportUnavailableException e) {
      LOG.warn("{}: RDMA transport {} unavailable: {}: sockets only", who, name, e.getMessage());
    } catch (RuntimeException e) {
      LOG.warn("{}: RDMA transport {} failed to start ({}): sockets only", who, name,
        String.valueOf(e));
    } catch (LinkageError e) {
      LOG.warn("{}: RDMA transport {} cannot be loaded ({}): sockets only", who, name,
        e.toString());
    }
    return Optional.empty();
  }
}
