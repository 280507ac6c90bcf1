package io.strata.hbase.rdma;

import io.strata.rdma.loopback.LoopbackTransport;
import io.strata.rdma.transport.RdmaTransport;
import io.strata.rdma.transport.TransportUnavailableException;
import java.lang.reflect.InvocationTargetException;
import java.util.Locale;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place that turns {@code strata.rdma.transport} into a transport. The verbs transport is
 * loaded by class name so that this module builds and runs without the native one; when it cannot
 * run here, one WARN line says why and the caller uses sockets only.
 */
public final class RdmaTransports {
  private static final Logger LOG = LoggerFactory.getLogger(RdmaTransports.class);

  /** The native transport's class (module {@code native/}, JNI over rdma-core). */
  public static final String VERBS_CLASS = "io.strata.rdma.verbs.VerbsTransport";

  private RdmaTransports() {
  }

  /**
   * The configured transport, or empty when it is {@code none} or cannot run here (logged once
   * per call as a WARN naming the reason). {@code who} names the user in the log line, e.g.
   * {@code "RegionServer RPC server"}.
   *
   * @throws IllegalArgumentException when the key names no known transport
   */
  public static Optional<RdmaTransport> create(Configuration conf, String who) {
    String name = conf.get(RdmaKeys.TRANSPORT, RdmaKeys.TRANSPORT_DEFAULT).trim()
      .toLowerCase(Locale.ROOT);
    switch (name) {
      case "none":
        LOG.info("{}: {}=none, RDMA endpoint off, sockets only", who, RdmaKeys.TRANSPORT);
        return Optional.empty();
      case "loopback":
        return Optional.of(new LoopbackTransport(conf));
      case "verbs":
        return verbs(conf, who);
      default:
        throw new IllegalArgumentException(RdmaKeys.TRANSPORT + "=" + name
          + " is not a transport; use verbs, loopback or none");
    }
  }

  private static Optional<RdmaTransport> verbs(Configuration conf, String who) {
    try {
      Class<? extends RdmaTransport> c =
        Class.forName(VERBS_CLASS).asSubclass(RdmaTransport.class);
      return Optional.of(c.getConstructor(Configuration.class).newInstance(conf));
    } catch (ClassNotFoundException e) {
      LOG.warn("{}: RDMA transport verbs not available ({} is not on the classpath; add the "
        + "native module's jar): sockets only", who, VERBS_CLASS);
    } catch (InvocationTargetException e) {
      Throwable cause = e.getCause();
      if (cause instanceof TransportUnavailableException) {
        LOG.warn("{}: RDMA transport verbs unavailable: {}: sockets only", who,
          cause.getMessage());
      } else {
        LOG.warn("{}: RDMA transport verbs failed to start ({}): sockets only", who,
          String.valueOf(cause));
      }
    } catch (ReflectiveOperationException | ClassCastException | LinkageError e) {
      LOG.warn("{}: RDMA transport verbs cannot be loaded ({}): sockets only", who,
        e.toString());
    }
    return Optional.empty();
  }
}
