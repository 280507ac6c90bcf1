package io.strata.hbase.rdma;

import org.apache.hadoop.conf.Configuration;

/**
 * Configuration keys of the RDMA RPC and its transports, each with its default, and the
 * validating getters of those with bounds (a bad value names its key). Listed in the README's
 * configuration table. Stateless; thread-safe.
 */
public final class RdmaKeys {
  private RdmaKeys() {
  }

  // ---- transport selection ----

  /**
   * Transport for the RDMA endpoint: {@code verbs} (native runtime over rdma-core),
   * {@code loopback} (in-process, for hosts without a device) or {@code none} (sockets only).
   * Default {@code verbs}; when it cannot run, one log line says why and calls use sockets.
   */
  public static final String TRANSPORT = "strata.rdma.transport";
  public static final String TRANSPORT_DEFAULT = "verbs";

  // ---- verbs transport (native/) ----

  /** RDMA device name, e.g. {@code mlx5_0} or {@code rxe0}. Default empty: the device rdma_cm
   * resolves for the bind/peer address. */
  public static final String DEVICE = "strata.rdma.device";
  public static final String DEVICE_DEFAULT = "";

  /** Bytes per pre-registered send/receive buffer; messages up to this size go eagerly (send/recv),
   * larger ones by RDMA WRITE. Default 8192. */
  public static final String EAGER_THRESHOLD = "strata.rdma.eager.threshold";
  public static final int EAGER_THRESHOLD_DEFAULT = 8192;

  /** Receive buffers posted per endpoint = send credits granted to the peer. Default 64. */
  public static final String CREDITS = "strata.rdma.credits";
  public static final int CREDITS_DEFAULT = 64;

  /** Largest message an endpoint carries (the rendezvous buffer bound). Default 4 MiB. */
  public static final String MAX_MESSAGE = "strata.rdma.max.message.bytes";
  public static final int MAX_MESSAGE_DEFAULT = 4 << 20;

  /** Microseconds the completion thread busy-polls before it waits on the completion channel.
   * Default 100. */
  public static final String POLL_SPIN_US = "strata.rdma.poll.spin.us";
  public static final int POLL_SPIN_US_DEFAULT = 100;

  /** Path of {@code libstrata_rdma.so} to load instead of the copy packaged in the
   * hbase-rdma-rpc jar (which is extracted to {@code java.io.tmpdir} at load time). Default
   * empty. */
  public static final String NATIVE_LIBRARY = "strata.rdma.native.library";
  public static final String NATIVE_LIBRARY_DEFAULT = "";

  /**
   * Longest a send waits for the peer's credit (a free receive buffer), ms. A peer that returns
   * none for that long (it stopped reading: a frozen or hostile client) has its endpoint closed:
   * the waiting handler is freed, the peer's calls in flight fail and its client retries them
   * over sockets — as HBase's RPC server drops a connection whose client does not read its
   * responses. Default 10000; [1, 86400000].
   */
  public static final String SEND_TIMEOUT_MS = "strata.rdma.send.timeout.ms";
  public static final int SEND_TIMEOUT_MS_DEFAULT = 10_000;

  /** Connection set-up timeout (address/route resolution and connect), ms. Default 5000. */
  public static final String CONNECT_TIMEOUT_MS = "strata.rdma.connect.timeout.ms";
  public static final int CONNECT_TIMEOUT_MS_DEFAULT = 5000;

  // ---- loopback transport ----

  /**
   * How the loopback transport runs receive completions: {@code inline} on the sending thread
   * when the receiving endpoint is idle (a completion thread always polling on its own core),
   * or {@code poller} on a completion thread per transport that spins
   * {@code strata.rdma.poll.spin.us} and then parks. Default {@code inline}.
   */
  public static final String LOOPBACK_DELIVERY = "strata.rdma.loopback.delivery";
  public static final String LOOPBACK_DELIVERY_DEFAULT = "inline";

  // ---- hybrid RPC ----

  /**
   * ClientService methods a Strata client sends over a RegionServer's RDMA endpoint, comma
   * separated, from {@code Get}, {@code Mutate}, {@code Multi}, {@code Scan}. Every other call,
   * and every call to a server without an endpoint, goes over sockets. Default
   * {@code Get,Mutate,Multi}; empty routes nothing.
   */
  public static final String ROUTED_METHODS = "strata.rdma.routed.methods";
  public static final String ROUTED_METHODS_DEFAULT = "Get,Mutate,Multi";

  /**
   * Port a RegionServer's RDMA endpoint listens on, on the RPC server's bind address. Default 0:
   * any free port (clients learn it over the authenticated socket connection).
   */
  public static final String PORT = "strata.rdma.port";
  public static final int PORT_DEFAULT = 0;

  /**
   * Address a RegionServer's RDMA endpoint listens on (and announces to clients). Default empty:
   * the RPC server's bind address. {@code auto}: the first address of an up, non-loopback network
   * interface the transport can listen on — for hosts whose RPC address is not on the RDMA
   * device (e.g. a RegionServer bound to localhost). Otherwise a host name or IP address of the
   * RDMA device's interface. When the endpoint cannot listen there, one WARN names the address
   * and the server serves sockets only.
   */
  public static final String BIND_ADDRESS = "strata.rdma.bind.address";
  public static final String BIND_ADDRESS_DEFAULT = "";
  public static final String BIND_ADDRESS_AUTO = "auto";

  /**
   * Milliseconds a one-time endpoint token, issued to an authenticated socket connection, stays
   * valid for the connection request that presents it. Default 30000.
   */
  public static final String TOKEN_TTL_MS = "strata.rdma.token.ttl.ms";
  public static final long TOKEN_TTL_MS_DEFAULT = 30_000;

  /**
   * RDMA endpoints a RegionServer holds at once: connected ones plus offers whose token is
   * outstanding. Each pins its registered memory (about 1 MiB of buffers + 2 x
   * {@code strata.rdma.max.message.bytes} with the defaults: ~9 MiB), so this bounds what clients
   * can make the server lock. An offer above the cap is refused and that client stays on sockets
   * (it asks again after {@code strata.rdma.client.retry.ms}). Default 128.
   */
  public static final String SERVER_MAX_ENDPOINTS = "strata.rdma.server.max.endpoints";
  public static final int SERVER_MAX_ENDPOINTS_DEFAULT = 128;

  /**
   * RDMA endpoints (connected, or offered with the token outstanding) one user may hold on a
   * RegionServer, so that one user cannot take every endpoint. Default 32.
   */
  public static final String SERVER_MAX_ENDPOINTS_PER_USER =
    "strata.rdma.server.max.endpoints.per.user";
  public static final int SERVER_MAX_ENDPOINTS_PER_USER_DEFAULT = 32;

  /**
   * Milliseconds a client waits after its endpoint to a RegionServer failed (or could not be set
   * up) before it tries again; meanwhile calls to that server go over sockets. Default 10000.
   */
  public static final String RETRY_MS = "strata.rdma.client.retry.ms";
  public static final long RETRY_MS_DEFAULT = 10_000;

  // ---- polling instead of wake-ups ----

  /**
   * Microseconds an idle RPC handler polls its call queue before it parks, with
   * {@link PollingRpcSchedulerFactory} (or {@link PollingCallQueue}) installed; a call arriving
   * meanwhile starts without a thread wake-up. 0 turns polling off. Default 50.
   */
  public static final String HANDLER_POLL_US = "strata.rpc.handler.poll.us";
  public static final long HANDLER_POLL_US_DEFAULT = 50;

  /**
   * RPC handlers of a JVM that may poll at once (each holds a core while it polls), at most one
   * per call queue. Default 1.
   */
  public static final String HANDLER_POLLERS = "strata.rpc.handler.pollers";
  public static final int HANDLER_POLLERS_DEFAULT = 1;

  /**
   * Microseconds a blocking client call (HBase's {@code Table}) sent over an RDMA endpoint polls
   * for its response before the caller parks; an answer within that time needs no wake-up.
   * Methods whose calls to that server typically take longer are not polled for. 0 turns polling
   * off. Default 100.
   */
  public static final String CLIENT_POLL_US = "strata.rdma.client.poll.us";
  public static final long CLIENT_POLL_US_DEFAULT = 100;

  /**
   * Client threads of a JVM that may poll for responses at once; the others park at once.
   * Default 0: half the JVM's processors, at least 1.
   */
  public static final String CLIENT_POLLERS = "strata.rdma.client.pollers";
  public static final int CLIENT_POLLERS_DEFAULT = 0;

  // ---- validating getters ----

  /** {@link #EAGER_THRESHOLD}, in [64, 1 MiB]. */
  public static int eagerThreshold(Configuration conf) {
    return range(conf, EAGER_THRESHOLD, EAGER_THRESHOLD_DEFAULT, 64, 1 << 20);
  }

  /**
   * {@link #CREDITS}, in [4, 4096] (data needs two credits, and with four neither side can wait
   * for credits the other owes), with credits x (eager threshold + 16) below 2^31: the receive
   * buffers are one region addressed by int offsets.
   */
  public static int credits(Configuration conf) {
    int credits = range(conf, CREDITS, CREDITS_DEFAULT, 4, 4096);
    int eager = eagerThreshold(conf);
    long pool = (long) credits * (eager + 16);
    if (pool > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(CREDITS + "=" + credits + " x (" + EAGER_THRESHOLD + "="
        + eager + " + 16) = " + pool + " bytes of receive buffers per endpoint, above "
        + Integer.MAX_VALUE + "; lower either");
    }
    return credits;
  }

  /** {@link #MAX_MESSAGE}, in [eager threshold, 1 GiB]. */
  public static int maxMessage(Configuration conf) {
    return range(conf, MAX_MESSAGE, MAX_MESSAGE_DEFAULT, eagerThreshold(conf), 1 << 30);
  }

  /** {@link #SERVER_MAX_ENDPOINTS}, in [0, 65536] (0: no endpoint is offered). */
  public static int serverMaxEndpoints(Configuration conf) {
    return range(conf, SERVER_MAX_ENDPOINTS, SERVER_MAX_ENDPOINTS_DEFAULT, 0, 65_536);
  }

  /** {@link #SERVER_MAX_ENDPOINTS_PER_USER}, in [0, 65536]. */
  public static int serverMaxEndpointsPerUser(Configuration conf) {
    return range(conf, SERVER_MAX_ENDPOINTS_PER_USER, SERVER_MAX_ENDPOINTS_PER_USER_DEFAULT, 0,
      65_536);
  }

  /** {@link #SEND_TIMEOUT_MS}, in [1, 86400000]. */
  public static int sendTimeoutMs(Configuration conf) {
    return range(conf, SEND_TIMEOUT_MS, SEND_TIMEOUT_MS_DEFAULT, 1, 86_400_000);
  }

  /** An int key in [min, max]; outside, an error naming the key, its value and the range. */
  public static int range(Configuration conf, String key, int dflt, int min, int max) {
    int v = conf.getInt(key, dflt);
    if (v < min || v > max) {
      throw new IllegalArgumentException(key + "=" + v + " is outside [" + min + ", " + max + "]");
    }
    return v;
  }
}
