package io.strata.hbase.rdma;

import java.util.Locale;
import org.apache.hadoop.conf.Configuration;

/**
 * Whether the RDMA endpoint can match the protection HBase's socket RPC is configured for. The
 * endpoint authenticates (its token comes over the authenticated socket) but neither encrypts
 * nor checks integrity, so it is never used when {@code hbase.rpc.protection} asks for
 * {@code integrity} or {@code privacy}, or when HBase's TLS is on: calls then stay on the
 * protected socket. Stateless; thread-safe.
 */
public final class RpcProtection {
  /** HBase's keys (upstream names). */
  public static final String RPC_PROTECTION = "hbase.rpc.protection";
  public static final String SERVER_TLS = "hbase.server.netty.tls.enabled";
  public static final String CLIENT_TLS = "hbase.client.netty.tls.enabled";

  private RpcProtection() {
  }

  /**
   * Null when the endpoint matches the configured protection; else why not, for the one log line
   * that says the endpoint is off.
   */
  public static String whyNoEndpoint(Configuration conf, boolean server) {
    String tls = server ? SERVER_TLS : CLIENT_TLS;
    if (conf.getBoolean(tls, false)) {
      return tls + "=true: the RDMA endpoint has no TLS";
    }
    String qop = conf.get(RPC_PROTECTION, "authentication");
    for (String level : qop.split(",")) {
      String l = level.trim().toLowerCase(Locale.ROOT);
      if (!l.isEmpty() && !l.equals("authentication")) {
        return RPC_PROTECTION + "=" + qop + " asks for " + l + ", which the RDMA endpoint does "
          + "not provide (it authenticates only)";
      }
    }
    return null;
  }
}
