package io.strata.hbase.rdma;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.hbase.metrics.Counter;
import org.apache.hadoop.hbase.metrics.MetricRegistries;
import org.apache.hadoop.hbase.metrics.MetricRegistry;
import org.apache.hadoop.hbase.metrics.MetricRegistryInfo;

/**
 * What went over the RDMA endpoints and what fell back to sockets, per JVM: the proof that calls
 * really used the transport. Published by a RegionServer over JMX as
 * {@code Hadoop:service=HBase,name=RegionServer,sub=StrataRdmaRpc} (Hadoop's metrics system
 * capitalizes the names there: {@code Server.Get.calls}); readable in any JVM through
 * {@link #count(String)}.
 *
 * <p>Counters: {@code server.<Method>.calls} (calls received over an endpoint),
 * {@code server.endpoints.accepted|rejected}, {@code server.offers},
 * {@code server.bytes.received|sent}, {@code server.responses.too.large} (responses above the
 * endpoint's message limit, replaced by {@link EndpointMessageTooLargeException}),
 * {@code server.calls.refused.unbounded} (Appends refused before running, re-sent by the client
 * over its socket), {@code server.multi.get.results.deferred} (Multis that write whose Get results
 * were replaced by {@code MultiActionResultTooLarge}), {@code server.calls.refused} (requests
 * above {@link HybridRpcKeys.Server#MAX_CALLS_PER_ENDPOINT}), {@code server.responses.queued}
 * (responses that found no credit and waited in their endpoint's queue),
 * {@code server.endpoints.closed.credit} (endpoints closed for a queue over its byte or age
 * bound);
 * {@code client.resent.response.too.large} (read-only calls re-sent over sockets for that);
 * {@code client.<Method>.rdma} and
 * {@code client.<Method>.sockets} (routed methods sent over an endpoint, or over sockets for want
 * of one), {@code client.fallback.before.send} (endpoint failed before the call was handed to
 * it, or no credit free: sent over sockets), {@code client.fallback.no.credit} (of those, the
 * calls that found no credit free), {@code client.failed.after.send} (endpoint died with the
 * call in flight: failed retriably, HBase's retry re-sends it),
 * {@code client.endpoints.connected|failed},
 * {@code client.offers.refused} (server without an endpoint).
 */
public final class RdmaRpcMetrics {
  static final MetricRegistryInfo INFO = new MetricRegistryInfo("StrataRdmaRpc",
    "Strata hybrid RPC: calls over RDMA endpoints and fallbacks to sockets",
    "RegionServer,sub=StrataRdmaRpc", "regionserver", false);

  private static final MetricRegistry REGISTRY = MetricRegistries.global().create(INFO);
  private static final Map<String, Counter> SERVER_CALLS = new ConcurrentHashMap<>();
  private static final Map<String, Counter> CLIENT_RDMA = new ConcurrentHashMap<>();
  private static final Map<String, Counter> CLIENT_SOCKETS = new ConcurrentHashMap<>();
  /** Counted per request and response: held, not looked up by name each time. */
  public static final Counter SERVER_BYTES_RECEIVED = REGISTRY.counter("server.bytes.received");
  public static final Counter SERVER_BYTES_SENT = REGISTRY.counter("server.bytes.sent");

  private RdmaRpcMetrics() {
  }

  /**
   * Creates the registry now (class initialization), so that a RegionServer publishes the MBean
   * from its start rather than from its first endpoint.
   */
  public static void register() {
  }

  public static Counter counter(String name) {
    return REGISTRY.counter(name);
  }

  public static void serverCall(String method) {
    SERVER_CALLS.computeIfAbsent(method, m -> REGISTRY.counter("server." + m + ".calls"))
      .increment();
  }

  public static void clientRdma(String method) {
    CLIENT_RDMA.computeIfAbsent(method, m -> REGISTRY.counter("client." + m + ".rdma"))
      .increment();
  }

  public static void clientSockets(String method) {
    CLIENT_SOCKETS.computeIfAbsent(method, m -> REGISTRY.counter("client." + m + ".sockets"))
      .increment();
  }

  /** A counter's current value, 0 when nothing was counted under that name. */
  public static long count(String name) {
    return REGISTRY.get(name).map(m -> ((Counter) m).getCount()).orElse(0L);
  }
}
