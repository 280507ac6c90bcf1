package io.strata.hbase.rdma;

import io.strata.compat.VersionCheck;
import io.strata.rdma.transport.RdmaTransportKeys;
import io.strata.rdma.transport.SupportedTransport;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;

/**
 * Configuration keys of the hybrid HBase RPC, each with its default and one validating typed
 * getter (a bad value fails with an {@link IllegalArgumentException} naming the key): the
 * transport choice here, then the keys of the client ({@link Client}), of the RegionServer's RPC
 * server ({@link Server}) and of its RPC handlers ({@link Handler}). The transports' own keys
 * (credits, eager threshold, message limit, poll spin, send timeout, loopback delivery) are in
 * {@code io.strata.rdma.transport.RdmaTransportKeys}, the verbs transport's (device, native
 * library) in {@code io.strata.rdma.verbs.VerbsKeys}; all are read from the same Hadoop
 * configuration. Listed in the README's configuration table. Stateless; thread-safe.
 */
public final class HybridRpcKeys {
  private HybridRpcKeys() {
  }

  /**
   * Transport for the RDMA endpoint: {@code verbs} (native runtime over rdma-core),
   * {@code loopback} (in-process, for hosts without a device), {@code none} (sockets only), or
   * the class name of an {@code io.strata.rdma.transport.TransportFactory}. Default
   * {@code verbs}; when it cannot run, one log line says why and calls use sockets.
   */
  public static final String TRANSPORT = "strata.rdma.transport";
  public static final String TRANSPORT_DEFAULT = "verbs";
  /** The {@link #TRANSPORT} value that turns the RDMA endpoint off. */
  public static final String TRANSPORT_NONE = "none";

  /**
   * {@link #TRANSPORT}: {@code none}, a {@link SupportedTransport}'s name in lower case, or a
   * factory class name as given (blanks around it dropped).
   */
  public static String transport(Configuration conf) {
    String value = conf.get(TRANSPORT, TRANSPORT_DEFAULT).trim();
    if (value.equalsIgnoreCase(TRANSPORT_NONE)) {
      return TRANSPORT_NONE;
    }
    SupportedTransport known = SupportedTransport.valueOfIgnoreCase(value);
    if (known != null) {
      return known.configName();
    }
    try {
      return SupportedTransport.factoryClassName(value);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(TRANSPORT + "=" + value.toLowerCase(Locale.ROOT)
        + " is not a transport; use " + SupportedTransport.choices() + ", " + TRANSPORT_NONE
        + " or the class name of a transport factory");
    }
  }

  /** Keys of a client ({@code org.apache.hadoop.hbase.ipc.HybridRpcClient}). */
  public static final class Client {
    private Client() {
    }

    /** The ClientService methods {@link #ROUTED_METHODS} may name. */
    public static final List<String> ROUTABLE =
      Collections.unmodifiableList(Arrays.asList("Get", "Mutate", "Multi", "Scan"));

    /**
     * ClientService methods a Strata client sends over a RegionServer's RDMA endpoint, comma
     * separated, from {@code Get}, {@code Mutate}, {@code Multi}, {@code Scan}. Every other call,
     * and every call to a server without an endpoint, goes over sockets. Default
     * {@code Get,Mutate,Multi}; empty routes nothing.
     */
    public static final String ROUTED_METHODS = "strata.rdma.routed.methods";
    public static final String ROUTED_METHODS_DEFAULT = "Get,Mutate,Multi";

    /**
     * Milliseconds a client waits after its endpoint to a RegionServer failed (or could not be
     * set up) before it tries again; meanwhile calls to that server go over sockets. Default
     * 10000.
     */
    public static final String RETRY_MS = "strata.rdma.client.retry.ms";
    public static final long RETRY_MS_DEFAULT = 10_000;

    /** Connection set-up timeout (address/route resolution and connect), ms. Default 5000. */
    public static final String CONNECT_TIMEOUT_MS = "strata.rdma.connect.timeout.ms";
    public static final int CONNECT_TIMEOUT_MS_DEFAULT = 5000;

    /**
     * Microseconds a blocking client call (HBase's {@code Table}) sent over an RDMA endpoint
     * polls for its response before the caller parks; an answer within that time needs no
     * wake-up. Methods whose calls to that server typically take longer are not polled for. 0
     * turns polling off. Default 100; not negative.
     */
    public static final String POLL_US = "strata.rdma.client.poll.us";
    public static final long POLL_US_DEFAULT = 100;

    /**
     * Client threads of a JVM that may poll for responses at once; the others park at once.
     * Default 0: half the JVM's processors, at least 1; not negative.
     */
    public static final String POLLERS = "strata.rdma.client.pollers";
    public static final int POLLERS_DEFAULT = 0;

    /**
     * Whether an {@code AsyncTable} call sent over an endpoint is polled for, as a {@code Table}
     * call is: the thread that issues it polls up to {@link #POLL_US} before the call returns its
     * future, so that the future is usually complete and {@code join()} does not park. It holds
     * the issuing thread for that long at most: a caller that issues many calls before joining
     * them has them answered one after the other. Default true.
     */
    public static final String ASYNC_POLL = "strata.rdma.client.async.poll";
    public static final boolean ASYNC_POLL_DEFAULT = true;

    /** {@link #ASYNC_POLL}: true or false. */
    public static boolean asyncPoll(Configuration conf) {
      return bool(conf, ASYNC_POLL, ASYNC_POLL_DEFAULT);
    }

    /** {@link #ROUTED_METHODS}, in order, each one of {@link #ROUTABLE}. */
    public static Set<String> routedMethods(Configuration conf) {
      Set<String> methods = new LinkedHashSet<>();
      String value = conf.get(ROUTED_METHODS, ROUTED_METHODS_DEFAULT);
      for (String m : value.split(",")) {
        m = m.trim();
        if (m.isEmpty()) {
          continue;
        }
        if (!ROUTABLE.contains(m)) {
          throw new IllegalArgumentException(ROUTED_METHODS + " names '" + m
            + "'; the routable ClientService methods are " + ROUTABLE);
        }
        methods.add(m);
      }
      return Collections.unmodifiableSet(methods);
    }

    /** {@link #RETRY_MS}. */
    public static long retryMs(Configuration conf) {
      return positive(conf, RETRY_MS, RETRY_MS_DEFAULT);
    }

    /** {@link #CONNECT_TIMEOUT_MS}. */
    public static long connectTimeoutMs(Configuration conf) {
      return positive(conf, CONNECT_TIMEOUT_MS, CONNECT_TIMEOUT_MS_DEFAULT);
    }

    /** {@link #POLL_US}, not negative. */
    public static long pollUs(Configuration conf) {
      return within(POLL_US, whole(conf, POLL_US, POLL_US_DEFAULT), 0, Long.MAX_VALUE);
    }

    /** {@link #POLLERS}, not negative (0: half the JVM's processors). */
    public static int pollers(Configuration conf) {
      return range(conf, POLLERS, POLLERS_DEFAULT, 0, 1024);
    }
  }

  /** Keys of a RegionServer's RPC server ({@code org.apache.hadoop.hbase.ipc.HybridRpcServer}). */
  public static final class Server {
    private Server() {
    }

    /**
     * Port a RegionServer's RDMA endpoint listens on, on the RPC server's bind address. Default
     * 0: any free port (clients learn it over the authenticated socket connection).
     */
    public static final String PORT = "strata.rdma.port";
    public static final int PORT_DEFAULT = 0;

    /**
     * Address a RegionServer's RDMA endpoint listens on (and announces to clients). Default
     * empty: the RPC server's bind address. {@code auto}: the first address of an up,
     * non-loopback network interface the transport can listen on — for hosts whose RPC address
     * is not on the RDMA device (e.g. a RegionServer bound to localhost). Otherwise a host name
     * or IP address of the RDMA device's interface. When the endpoint cannot listen there, one
     * WARN names the address and the server serves sockets only.
     */
    public static final String BIND_ADDRESS = "strata.rdma.bind.address";
    public static final String BIND_ADDRESS_DEFAULT = "";
    public static final String BIND_ADDRESS_AUTO = "auto";

    /**
     * Milliseconds a one-time endpoint token, issued to an authenticated socket connection,
     * stays valid for the connection request that presents it. Default 30000; positive.
     */
    public static final String TOKEN_TTL_MS = "strata.rdma.token.ttl.ms";
    public static final long TOKEN_TTL_MS_DEFAULT = 30_000;

    /**
     * RDMA endpoints a RegionServer holds at once: connected ones, closed ones not yet torn down
     * (a close sends a disconnect request, and the queue pair and registered memory stay until
     * the peer answers it or the connection manager gives up), plus offers whose token is
     * outstanding. Each pins its registered memory (about 1 MiB of buffers + 2 x
     * {@code strata.rdma.max.message.bytes} with the defaults: ~9 MiB), so this bounds what
     * clients can make the server lock, a peer that ignores disconnect requests included. An
     * offer above the cap is refused and that client stays on sockets (it asks again after
     * {@code strata.rdma.client.retry.ms}). Default 128.
     */
    public static final String MAX_ENDPOINTS = "strata.rdma.server.max.endpoints";
    public static final int MAX_ENDPOINTS_DEFAULT = 128;

    /**
     * RDMA endpoints (connected, closed and not yet torn down, or offered with the token
     * outstanding) one user may hold on a RegionServer, so that one user cannot take every
     * endpoint. Default 32.
     */
    public static final String MAX_ENDPOINTS_PER_USER = "strata.rdma.server.max.endpoints.per.user";
    public static final int MAX_ENDPOINTS_PER_USER_DEFAULT = 32;

    /**
     * Whether the RPC server can record where a call's time goes ({@link RpcStages}), for
     * {@code strata bench rpc}: socket calls then run through connection and call subclasses that
     * take timestamps when a benchmark turns recording on. Default false: socket calls run
     * through HBase's own classes.
     */
    public static final String STAGES = "strata.rpc.server.stages";
    public static final boolean STAGES_DEFAULT = false;

    /**
     * Calls one RDMA endpoint may have in flight on a RegionServer: received and not yet
     * answered, their responses waiting for the client's credit included. A request above the
     * cap is answered at once with {@code CallQueueTooBigException} (HBase's client backs off and
     * retries it) and never runs, so that one client cannot fill the call queues or the response
     * queue with calls whose responses it does not take. Default 256; [1, 65536].
     */
    public static final String MAX_CALLS_PER_ENDPOINT = "strata.rdma.server.max.calls.per.endpoint";
    public static final int MAX_CALLS_PER_ENDPOINT_DEFAULT = 256;

    /**
     * Bytes of responses one RDMA endpoint may have waiting for its client's credit. Responses
     * are never waited for on an RPC handler: one that finds no credit is queued and sent as the
     * client returns credits. An endpoint whose queue would exceed this, or whose oldest queued
     * response is older than {@code strata.rdma.send.timeout.ms}, is closed (its client fails the
     * calls in flight retriably and retries them over its socket), as HBase's socket server drops
     * a client that does not read its responses. Default 0: four times
     * {@code strata.rdma.max.message.bytes}; else at least that limit.
     */
    public static final String QUEUED_RESPONSE_BYTES = "strata.rdma.server.queued.response.bytes";
    public static final long QUEUED_RESPONSE_BYTES_DEFAULT = 0;

    /** {@link #MAX_CALLS_PER_ENDPOINT}, in [1, 65536]. */
    public static int maxCallsPerEndpoint(Configuration conf) {
      return range(conf, MAX_CALLS_PER_ENDPOINT, MAX_CALLS_PER_ENDPOINT_DEFAULT, 1, 65_536);
    }

    /**
     * {@link #QUEUED_RESPONSE_BYTES} in effect: 0 gives four times the transport's message limit;
     * a set value below that limit (a response the queue could never hold) is an error naming
     * both keys.
     */
    public static long queuedResponseBytes(Configuration conf) {
      int maxMessage = RdmaTransportKeys.maxMessage(RdmaTransports.transportConf(conf));
      long v = within(QUEUED_RESPONSE_BYTES,
        whole(conf, QUEUED_RESPONSE_BYTES, QUEUED_RESPONSE_BYTES_DEFAULT), 0, 1L << 40);
      if (v == 0) {
        return 4L * maxMessage;
      }
      if (v < maxMessage) {
        throw new IllegalArgumentException(QUEUED_RESPONSE_BYTES + "=" + v + " is below "
          + RdmaTransportKeys.MAX_MESSAGE + "=" + maxMessage + ": a response the endpoint carries "
          + "must fit in its queue; raise it, or set 0 for four times the message limit");
      }
      return v;
    }

    /** {@link #STAGES}: true or false. */
    public static boolean stages(Configuration conf) {
      return bool(conf, STAGES, STAGES_DEFAULT);
    }

    /** {@link #PORT}. */
    public static int port(Configuration conf) {
      return range(conf, PORT, PORT_DEFAULT, 0, 65_535);
    }

    /** {@link #BIND_ADDRESS}, blanks around it dropped: empty, {@code auto} or an address. */
    public static String bindAddress(Configuration conf) {
      return conf.get(BIND_ADDRESS, BIND_ADDRESS_DEFAULT).trim();
    }

    /**
     * {@link #TOKEN_TTL_MS}, as given: {@link EndpointTokens} refuses one that is not positive,
     * naming the key.
     */
    public static long tokenTtlMs(Configuration conf) {
      return positive(conf, TOKEN_TTL_MS, TOKEN_TTL_MS_DEFAULT);
    }

    /** {@link #MAX_ENDPOINTS}, in [0, 65536] (0: no endpoint is offered). */
    public static int maxEndpoints(Configuration conf) {
      return range(conf, MAX_ENDPOINTS, MAX_ENDPOINTS_DEFAULT, 0, 65_536);
    }

    /** {@link #MAX_ENDPOINTS_PER_USER}, in [0, 65536]. */
    public static int maxEndpointsPerUser(Configuration conf) {
      return range(conf, MAX_ENDPOINTS_PER_USER, MAX_ENDPOINTS_PER_USER_DEFAULT, 0, 65_536);
    }
  }

  /**
   * Keys of the RegionServer's RPC handlers with {@link PollingRpcSchedulerFactory} (or
   * {@link PollingCallQueue}) installed.
   */
  public static final class Handler {
    private Handler() {
    }

    /**
     * Microseconds an idle RPC handler polls its call queue before it parks; a call arriving
     * meanwhile starts without a thread wake-up. 0 turns polling off. Default 50; not negative.
     */
    public static final String POLL_US = "strata.rpc.handler.poll.us";
    public static final long POLL_US_DEFAULT = 50;

    /**
     * RPC handlers of a JVM that may poll at once (each holds a core while it polls), at most
     * one per call queue. Default 1; not negative.
     */
    public static final String POLLERS = "strata.rpc.handler.pollers";
    public static final int POLLERS_DEFAULT = 1;

    /** {@link #POLL_US}, not negative. */
    public static long pollUs(Configuration conf) {
      return within(POLL_US, whole(conf, POLL_US, POLL_US_DEFAULT), 0, Long.MAX_VALUE);
    }

    /** {@link #POLLERS}, not negative. */
    public static int pollers(Configuration conf) {
      return range(conf, POLLERS, POLLERS_DEFAULT, 0, 1024);
    }
  }

  /** An int key in [min, max]; outside, an error naming the key, its value and the range. */
  static int range(Configuration conf, String key, int dflt, int min, int max) {
    return (int) within(key, whole(conf, key, dflt), min, max);
  }

  // strata-common is only a test dependency of this module (its jar runs on HBase's class path
  // in places that do not carry strata-common): the parsing of its KeyValues, in a few lines.
  private static long whole(Configuration conf, String key, long dflt) {
    String raw = conf.getTrimmed(key);
    if (raw == null || raw.isEmpty()) {
      return dflt;
    }
    try {
      return Long.parseLong(raw);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + " must be a whole number, not '" + raw + "'");
    }
  }

  private static boolean bool(Configuration conf, String key, boolean dflt) {
    String raw = conf.getTrimmed(key);
    if (raw == null || raw.isEmpty()) {
      return dflt;
    }
    if (raw.equalsIgnoreCase("true") || raw.equalsIgnoreCase("false")) {
      return Boolean.parseBoolean(raw);
    }
    throw new IllegalArgumentException(key + " must be true or false, not '" + raw + "'");
  }

  private static long within(String key, long v, long min, long max) {
    if (v < min || v > max) {
      throw new IllegalArgumentException(key + " must be " + (max == Long.MAX_VALUE
        ? "at least " + min : "from " + min + " to " + max) + ", not " + v);
    }
    return v;
  }

  private static long positive(Configuration conf, String key, long dflt) {
    return within(key, whole(conf, key, dflt), 1, Long.MAX_VALUE);
  }

  /**
   * What the hybrid RPC server and client and the polling RPC scheduler do when the running
   * HBase or Hadoop is not the release they are built for
   * ({@link io.strata.compat.SupportedVersions}; the RPC classes live in HBase's {@code ipc}
   * package and use its package-private API): {@code strict} (default) refuses to construct
   * them, naming the one refused and both versions; {@code warn} starts on the untested version
   * and logs a WARN at every start. Checked once per process.
   */
  public static final String VERSION_CHECK = VersionCheck.KEY;
  public static final String VERSION_CHECK_DEFAULT = VersionCheck.KEY_DEFAULT;

  /** {@link #VERSION_CHECK}: {@code strict} or {@code warn}, any other value refused. */
  public static VersionCheck.Mode versionCheck(Configuration conf) {
    return VersionCheck.mode(conf.getTrimmed(VERSION_CHECK));
  }
}
