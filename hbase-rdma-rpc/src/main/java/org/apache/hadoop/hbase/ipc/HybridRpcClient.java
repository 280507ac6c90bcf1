package org.apache.hadoop.hbase.ipc;

import io.strata.compat.VersionCheck;
import io.strata.hbase.rdma.PollerSlots;
import io.strata.hbase.rdma.HybridRpcKeys;
import io.strata.hbase.rdma.RdmaTransports;
import io.strata.hbase.rdma.RpcProtection;
import io.strata.rdma.transport.RdmaTransport;
import io.strata.rdma.transport.TransportCounters;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.client.MetricsConnection;
import org.apache.hadoop.hbase.security.User;
import org.apache.hbase.thirdparty.com.google.protobuf.BlockingRpcChannel;
import org.apache.hbase.thirdparty.com.google.protobuf.Descriptors.MethodDescriptor;
import org.apache.hbase.thirdparty.com.google.protobuf.RpcChannel;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.ClientService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * HBase's Netty RPC client whose ClientService connections send the routed methods
 * ({@code strata.rdma.routed.methods}: Get, Mutate, Multi by default) over the RegionServer's RDMA
 * endpoint and everything else over the socket. Enable with
 * {@code hbase.rpc.client.impl=org.apache.hadoop.hbase.ipc.HybridRpcClient}.
 *
 * <p>Calls keep HBase's client machinery (call ids, timeouts, cancellation, metrics, retries):
 * only the transport of a routed call changes. A server without an endpoint (a stock
 * RegionServer, or the transport off) gets everything over sockets after one log line. The
 * transport is created with the first routed call, so clients that never route pay nothing.
 */
public class HybridRpcClient extends NettyRpcClient {
  private static final Logger LOG = LoggerFactory.getLogger(HybridRpcClient.class);

  private final Set<String> routed;
  private final long retryMs;
  private final long connectTimeoutMs;
  private final long pollNanos;
  private final EndpointPolling polling;
  private final boolean asyncPoll;
  private final Object transportLock = new Object();
  private boolean transportTried;
  private volatile RdmaTransport transport;
  private volatile ExecutorService connector;
  private final Set<HybridClientReceiver> endpoints = ConcurrentHashMap.newKeySet();

  public HybridRpcClient(Configuration conf, String clusterId, SocketAddress localAddress,
    MetricsConnection metrics) {
    this(conf, clusterId, localAddress, metrics, Collections.emptyMap());
  }

  public HybridRpcClient(Configuration conf, String clusterId, SocketAddress localAddress,
    MetricsConnection metrics, Map<String, byte[]> connectionAttributes) {
    super(versionChecked(conf), clusterId, localAddress, metrics, connectionAttributes);
    String unprotected = RpcProtection.whyNoEndpoint(conf, false);
    if (unprotected != null && !routedMethods(conf).isEmpty()) {
      LOG.info("RDMA endpoints off for this client: {}; every call goes over the protected "
        + "socket", unprotected);
    }
    this.routed = unprotected == null ? routedMethods(conf) : Collections.emptySet();
    this.retryMs = HybridRpcKeys.Client.retryMs(conf);
    this.connectTimeoutMs = HybridRpcKeys.Client.connectTimeoutMs(conf);
    long pollUs = HybridRpcKeys.Client.pollUs(conf);
    int maxPollers = HybridRpcKeys.Client.pollers(conf);
    this.pollNanos = TimeUnit.MICROSECONDS.toNanos(pollUs);
    this.polling = new EndpointPolling(pollNanos, new PollerSlots(maxPollers > 0 ? maxPollers
      : Math.max(1, Runtime.getRuntime().availableProcessors() / 2)));
    this.asyncPoll = HybridRpcKeys.Client.asyncPoll(conf);
  }

  /**
   * HBase's blocking channel ({@code Table}), except that a call sent over an RDMA endpoint is
   * polled for before the caller parks ({@code strata.rdma.client.poll.us}).
   */
  @Override
  public BlockingRpcChannel createBlockingRpcChannel(ServerName sn, User ticket, int rpcTimeout) {
    if (routed.isEmpty() || pollNanos == 0) {
      return super.createBlockingRpcChannel(sn, ticket, rpcTimeout);
    }
    return new PollingBlockingRpcChannel(super.createRpcChannel(sn, ticket, rpcTimeout),
      polling);
  }

  /**
   * HBase's async channel ({@code AsyncTable}), except that a call sent over an RDMA endpoint is
   * polled for on the issuing thread ({@code strata.rdma.client.async.poll}).
   */
  @Override
  public RpcChannel createRpcChannel(ServerName sn, User user, int rpcTimeout) {
    if (routed.isEmpty() || pollNanos == 0 || !asyncPoll) {
      return super.createRpcChannel(sn, user, rpcTimeout);
    }
    return new PollingRpcChannel(super.createRpcChannel(sn, user, rpcTimeout), polling);
  }

  /** HBase's own async channel, never polled: for the endpoint offer, asked from a send. */
  RpcChannel plainRpcChannel(ServerName sn, User user, int rpcTimeout) {
    return super.createRpcChannel(sn, user, rpcTimeout);
  }

  /**
   * {@code conf}, once the running HBase and Hadoop are checked: before NettyRpcClient's
   * constructor, so that a refused client has made no event loop or connection.
   */
  private static Configuration versionChecked(Configuration conf) {
    VersionCheck.hbasePlugin("HybridRpcClient (HBase RPC client)",
      HybridRpcKeys.versionCheck(conf));
    return conf;
  }

  /** Used in tests only. */
  public HybridRpcClient(Configuration conf) {
    this(conf, HConstants.CLUSTER_ID_DEFAULT, null, null, Collections.emptyMap());
  }

  static Set<String> routedMethods(Configuration conf) {
    return HybridRpcKeys.Client.routedMethods(conf);
  }

  @Override
  protected NettyRpcConnection createConnection(ConnectionId remoteId) throws IOException {
    if (!routed.isEmpty()
      && ClientService.getDescriptor().getName().equals(remoteId.getServiceName())) {
      return new HybridClientConnection(this, remoteId);
    }
    return super.createConnection(remoteId);
  }

  boolean routes(MethodDescriptor md) {
    return routed.contains(md.getName());
  }

  Set<String> routed() {
    return routed;
  }

  long retryMs() {
    return retryMs;
  }

  long connectTimeoutMs() {
    return connectTimeoutMs;
  }

  /** The transport, created on first use; null when it is off or cannot run (logged once). */
  RdmaTransport transport() {
    RdmaTransport t = transport;
    if (t != null) {
      return t;
    }
    synchronized (transportLock) {
      if (!transportTried) {
        transportTried = true;
        transport = RdmaTransports.create(conf, "RPC client").orElse(null);
        if (transport != null) {
          connector = Executors.newSingleThreadExecutor(r -> {
            Thread th = new Thread(r, "strata-rdma-connect");
            th.setDaemon(true);
            return th;
          });
        }
      }
      return transport;
    }
  }

  void endpointUp(HybridClientReceiver e) {
    endpoints.add(e);
  }

  void endpointDown(HybridClientReceiver e) {
    endpoints.remove(e);
  }

  /** Message and byte counters of this client's endpoints connected now. */
  public List<TransportCounters> endpointCounters() {
    List<TransportCounters> counters = new ArrayList<>();
    for (HybridClientReceiver e : endpoints) {
      TransportCounters tc = e.counters();
      if (tc != null) {
        counters.add(tc);
      }
    }
    return counters;
  }

  /** Runs endpoint set-up, which may block up to the connect timeout, off the callers' threads. */
  void connectAsync(Runnable setUp) {
    ExecutorService c = connector;
    if (c != null && !c.isShutdown()) {
      try {
        c.execute(setUp);
        return;
      } catch (java.util.concurrent.RejectedExecutionException e) {
        // closing
      }
    }
  }

  @Override
  protected void closeInternal() {
    super.closeInternal();
    ExecutorService c = connector;
    if (c != null) {
      c.shutdownNow();
    }
    RdmaTransport t = transport;
    if (t != null) {
      try {
        t.close();
      } catch (IOException e) {
        LOG.warn("Closing the {} transport failed", t.name(), e);
      }
    }
  }
}
