package org.apache.hadoop.hbase.ipc;

import io.strata.compat.VersionCheck;
import io.strata.hbase.rdma.EndpointOffer;
import io.strata.hbase.rdma.EndpointRefusedException;
import io.strata.hbase.rdma.EndpointTokens;
import io.strata.hbase.rdma.RateLimitedLog;
import io.strata.hbase.rdma.HybridRpcKeys;
import io.strata.hbase.rdma.RdmaRpcMetrics;
import io.strata.hbase.rdma.RdmaTransports;
import io.strata.hbase.rdma.ReadOnlyCalls;
import io.strata.hbase.rdma.RpcProtection;
import io.strata.rdma.transport.RdmaAcceptor;
import io.strata.rdma.transport.RdmaEndpoint;
import io.strata.rdma.transport.RdmaListener;
import io.strata.rdma.transport.RdmaReceiver;
import io.strata.rdma.transport.RdmaTransport;
import io.strata.rdma.transport.RdmaTransportKeys;
import io.strata.rdma.transport.TransportCounters;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.CellScanner;
import org.apache.hadoop.hbase.Server;
import org.apache.hadoop.hbase.master.HMaster;
import org.apache.hadoop.hbase.monitoring.MonitoredRPCHandler;
import org.apache.hadoop.hbase.security.User;
import org.apache.hadoop.hbase.util.EnvironmentEdgeManager;
import org.apache.hadoop.hbase.util.Pair;
import org.apache.hbase.thirdparty.io.netty.channel.Channel;
import org.apache.hbase.thirdparty.com.google.protobuf.BlockingService;
import org.apache.hbase.thirdparty.com.google.protobuf.Message;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.ClientService;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.CoprocessorServiceRequest;
import org.apache.hadoop.hbase.shaded.protobuf.generated.RPCProtos.ConnectionHeader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * HBase's Netty RPC server plus an RDMA endpoint for ClientService: requests that arrive on the
 * endpoint go through the same connection code, scheduler, handlers, call metrics, quotas and
 * access checks as socket requests, and their responses go back over the endpoint. Enable with
 * {@code hbase.rpc.server.impl=org.apache.hadoop.hbase.ipc.HybridRpcServer}.
 *
 * <p>Only a client that authenticated over a socket connection can open an endpoint: it asks
 * for an {@link EndpointOffer} over that connection and gets a one-time token bound to its user,
 * which it presents in the connection request; the endpoint's calls run as that user. Stock
 * clients never ask and use sockets as with {@code NettyRpcServer}. In a class of this package
 * because HBase's server connection and call types are package-private.
 */
public class HybridRpcServer extends NettyRpcServer {
  private static final Logger LOG = LoggerFactory.getLogger(HybridRpcServer.class);

  private final BlockingService clientService;
  private final RdmaTransport transport;
  private final EndpointTokens<Grant> tokens;
  private final Set<HybridServerConnection> connections = ConcurrentHashMap.newKeySet();
  /**
   * Endpoints from their acceptance until their transport tore them down (onReleased): the
   * connected ones and the closed ones whose queue pair and registered memory wait for the
   * peer's answer to the disconnect request. What the caps count, with the tokens outstanding.
   */
  private final Set<HybridServerConnection> pinned = ConcurrentHashMap.newKeySet();
  private final InetAddress rpcBindAddress;
  private final String rdmaBindAddress;
  private final int rdmaPort;
  private final int maxEndpoints;
  private final int maxEndpointsPerUser;
  private final int maxCallsPerEndpoint;
  private final long queuedResponseBytes;
  private final long sendTimeoutMs;
  private final String serverName;
  /** Sends responses that found no credit; started with the endpoint. */
  private volatile ResponseFlusher responseFlusher;
  private final RateLimitedLog refusedCalls = new RateLimitedLog(10, TimeUnit.SECONDS);
  /** Serializes the caps' check-then-issue of offers. */
  private final Object offers = new Object();
  /** Refused connection requests and offers: one WARN per 10 s at most. */
  private final RateLimitedLog refusedRequests = new RateLimitedLog(10, TimeUnit.SECONDS);
  private final RateLimitedLog refusedOffers = new RateLimitedLog(10, TimeUnit.SECONDS);
  private volatile RdmaListener listener;
  /** strata.rpc.server.stages; a connection accepted before it is set is HBase's own. */
  private volatile boolean stages;

  /**
   * {@code conf}, once the running HBase and Hadoop are checked: before NettyRpcServer's
   * constructor, so that a refused server has bound no port and made no event loop.
   */
  private static Configuration versionChecked(Configuration conf) {
    VersionCheck.hbasePlugin("HybridRpcServer (HBase RPC server)",
      HybridRpcKeys.versionCheck(conf));
    return conf;
  }

  public HybridRpcServer(Server server, String name, List<BlockingServiceAndInterface> services,
    InetSocketAddress bindAddress, Configuration conf, RpcScheduler scheduler,
    boolean reservoirEnabled) throws IOException {
    super(server, name, services, bindAddress, versionChecked(conf), scheduler, reservoirEnabled);
    this.clientService = getService(services, ClientService.getDescriptor().getName());
    this.tokens = new EndpointTokens<>(HybridRpcKeys.Server.tokenTtlMs(conf),
      EnvironmentEdgeManager::currentTime);
    this.rpcBindAddress = bindAddress.getAddress();
    this.rdmaBindAddress = HybridRpcKeys.Server.bindAddress(conf);
    this.rdmaPort = HybridRpcKeys.Server.port(conf);
    this.maxEndpoints = HybridRpcKeys.Server.maxEndpoints(conf);
    this.maxEndpointsPerUser = HybridRpcKeys.Server.maxEndpointsPerUser(conf);
    this.maxCallsPerEndpoint = HybridRpcKeys.Server.maxCallsPerEndpoint(conf);
    this.queuedResponseBytes = HybridRpcKeys.Server.queuedResponseBytes(conf);
    this.serverName = name;
    this.sendTimeoutMs = RdmaTransportKeys.sendTimeoutMs(RdmaTransports.transportConf(conf));
    this.stages = HybridRpcKeys.Server.stages(conf);
    RdmaRpcMetrics.register();
    String unprotected = RpcProtection.whyNoEndpoint(conf, true);
    // Masters and servers without ClientService have no Get/Put to serve over RDMA.
    if (clientService == null || server instanceof HMaster) {
      this.transport = null;
    } else if (unprotected != null) {
      LOG.warn("No RDMA endpoint for RPC server {}: {}; Get, Mutate and Multi stay on the "
        + "protected socket", name, unprotected);
      this.transport = null;
    } else {
      this.transport = RdmaTransports.create(conf, "RPC server " + name).orElse(null);
    }
  }

  @Override
  public synchronized void start() {
    super.start();
    if (transport == null || listener != null) {
      return;
    }
    String where = rdmaBindAddress.isEmpty() ? "the RPC bind address " + rpcBindAddress
      : HybridRpcKeys.Server.BIND_ADDRESS + "=" + rdmaBindAddress;
    responseFlusher = new ResponseFlusher(serverName);
    try {
      listener = HybridRpcKeys.Server.BIND_ADDRESS_AUTO.equalsIgnoreCase(rdmaBindAddress)
        ? listenAuto()
        : transport.listen(new InetSocketAddress(rdmaBindAddress.isEmpty() ? rpcBindAddress
          : InetAddress.getByName(rdmaBindAddress), rdmaPort), new Acceptor());
      LOG.info("RDMA endpoint ({} transport) for ClientService listening on {} ({})",
        transport.name(), listener.localAddress(), where);
    } catch (IOException | RuntimeException e) {
      LOG.warn("RDMA endpoint ({} transport) cannot listen on {} ({}): sockets only; set {} to "
        + "an address of the RDMA device's interface, or auto", transport.name(), where,
        e.toString(), HybridRpcKeys.Server.BIND_ADDRESS);
      closeTransport();
    }
  }

  /** Listens on the first address of an up, non-loopback interface that the transport takes. */
  private RdmaListener listenAuto() throws IOException {
    List<String> tried = new ArrayList<>();
    for (NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
      if (nif.isLoopback() || !nif.isUp()) {
        continue;
      }
      for (InetAddress a : Collections.list(nif.getInetAddresses())) {
        if (a.isLinkLocalAddress()) {
          continue;
        }
        try {
          return transport.listen(new InetSocketAddress(a, rdmaPort), new Acceptor());
        } catch (IOException notRdma) {
          tried.add(nif.getName() + " " + a.getHostAddress() + ": " + notRdma.getMessage());
        }
      }
    }
    throw new IOException("no interface address to listen on " + (tried.isEmpty()
      ? "(no up, non-loopback interface)" : "(tried " + String.join("; ", tried) + ")"));
  }

  @Override
  public synchronized void stop() {
    closeTransport();
    super.stop();
  }

  private void closeTransport() {
    RdmaListener l = listener;
    listener = null;
    if (l != null) {
      l.close();
    }
    for (HybridServerConnection c : new ArrayList<>(connections)) {
      c.close();
    }
    ResponseFlusher f = responseFlusher;
    responseFlusher = null;
    if (f != null) {
      f.stop();
    }
    if (transport != null) {
      try {
        transport.close();
      } catch (IOException e) {
        LOG.warn("Closing the {} transport failed", transport.name(), e);
      }
    }
  }

  /** The endpoint's listen address, or null when this server has no RDMA endpoint. */
  public InetSocketAddress getRdmaAddress() {
    RdmaListener l = listener;
    return l == null ? null : l.localAddress();
  }

  /**
   * Closes every endpoint connected now, as a failed device would: clients fail the calls in
   * flight on them retriably, send over sockets meanwhile and connect new endpoints after
   * {@code strata.rdma.client.retry.ms}. Fault injection for tests; returns how many were
   * closed.
   */
  public int closeRdmaConnections() {
    int n = 0;
    for (HybridServerConnection c : new ArrayList<>(connections)) {
      c.close();
      n++;
    }
    return n;
  }

  /** Message and byte counters of the endpoints connected now that have carried a call. */
  public List<TransportCounters> rdmaConnectionCounters() {
    List<TransportCounters> counters = new ArrayList<>();
    for (HybridServerConnection c : connections) {
      TransportCounters tc = c.counters();
      if (tc != null) {
        counters.add(tc);
      }
    }
    return counters;
  }

  /** Endpoints connected to this server now. */
  public int getNumRdmaConnections() {
    return connections.size();
  }

  /**
   * Endpoints whose transport resources this server holds now: the connected ones and the closed
   * ones not yet torn down (their peer has not answered the disconnect request). The caps count
   * these.
   */
  public int getNumRdmaEndpointsPinned() {
    return pinned.size();
  }

  /** Answers the offer call itself; every other call runs as on {@link NettyRpcServer}. */
  @Override
  public Pair<Message, CellScanner> call(RpcCall call, MonitoredRPCHandler status)
    throws IOException {
    if (
      call.getMethod() != null && call.getService() == clientService
        && "ExecRegionServerService".equals(call.getMethod().getName())
        && EndpointOffer.isOfferRequest(call.getParam())
    ) {
      return new Pair<>(offer(call), null);
    }
    if (call instanceof HybridServerCall && call.getMethod() != null
      && ReadOnlyCalls.writesWithUnboundedResponse(call.getMethod().getName(), call.getParam())) {
      throw ((HybridServerCall) call).refuseUnbounded();
    }
    if (!stages) {
      return super.call(call, status);
    }
    CallStamps.handlerStart(call);
    try {
      return super.call(call, status);
    } finally {
      CallStamps.handlerEnd(call);
    }
  }

  /**
   * HBase's socket connection, or with {@code strata.rpc.server.stages} on one whose Get and
   * Mutate calls take stamps while a benchmark records.
   */
  @Override
  protected NettyServerRpcConnection createNettyServerRpcConnection(Channel channel) {
    return stages ? new StagedNettyServerRpcConnection(this, channel)
      : super.createNettyServerRpcConnection(channel);
  }

  private Message offer(RpcCall call) throws IOException {
    RdmaListener l = listener;
    if (l == null) {
      throw new org.apache.hadoop.hbase.exceptions.UnknownProtocolException(
        "No RDMA endpoint on this server (" + HybridRpcKeys.TRANSPORT + " off or unavailable)");
    }
    User user = call.getRequestUser().orElse(null);
    if (user == null) {
      throw new org.apache.hadoop.hbase.security.AccessDeniedException(
        "RDMA endpoint offered only to an authenticated connection's user");
    }
    // Copied out: the param aliases the socket's request buffer, which is reused after the call.
    ConnectionHeader asked = ConnectionHeader.parseFrom(
      ((CoprocessorServiceRequest) call.getParam()).getCall().getRequest().toByteArray());
    ConnectionHeader negotiated = call instanceof ServerCall
      ? ((ServerCall<?>) call).connection.connectionHeader : null;
    String mismatch = headerMismatch(asked, negotiated);
    if (mismatch != null) {
      RdmaRpcMetrics.counter("server.offers.refused.header").increment();
      long held = refusedOffers.tryLog();
      if (held >= 0) {
        LOG.warn("Refused an RDMA endpoint to {} from {}: {}{}", user.getName(),
          call.getRemoteAddress(), mismatch, held > 0 ? " (" + held + " more refused)" : "");
      }
      throw new EndpointRefusedException(mismatch + ": calls stay on sockets");
    }
    // The endpoint takes the socket connection's settings, never the request's own.
    byte[] token = issueWithinCaps(user, negotiated, call);
    RdmaRpcMetrics.counter("server.offers").increment();
    InetSocketAddress a = l.localAddress();
    return new EndpointOffer(transport.name(), announcedHost(a), a.getPort(), token).toResponse();
  }

  /**
   * Why an offer request's connection header may not become an endpoint's, or null: the endpoint
   * serves ClientService only, with the cell codec and compressor the socket connection that
   * asks for it negotiated. The header's service name feeds service-level authorization and its
   * class names are instantiated, so none of them may be the client's free choice.
   */
  static String headerMismatch(ConnectionHeader asked, ConnectionHeader negotiated) {
    String clientService = ClientService.getDescriptor().getName();
    if (negotiated == null) {
      return "the offer did not come over a socket connection with a connection header";
    }
    if (!clientService.equals(asked.getServiceName())) {
      return "the offer asks for service '" + asked.getServiceName() + "'; an RDMA endpoint "
        + "serves " + clientService + " only";
    }
    if (!clientService.equals(negotiated.getServiceName())) {
      return "the offer came over a connection to service '" + negotiated.getServiceName()
        + "', not " + clientService;
    }
    String codec = asked.hasCellBlockCodecClass() ? asked.getCellBlockCodecClass() : "";
    String socketCodec =
      negotiated.hasCellBlockCodecClass() ? negotiated.getCellBlockCodecClass() : "";
    if (!codec.equals(socketCodec)) {
      return "the offer asks for cell codec '" + codec + "'; the socket connection negotiated '"
        + socketCodec + "', which the endpoint uses";
    }
    String compressor =
      asked.hasCellBlockCompressorClass() ? asked.getCellBlockCompressorClass() : "";
    String socketCompressor =
      negotiated.hasCellBlockCompressorClass() ? negotiated.getCellBlockCompressorClass() : "";
    if (!compressor.equals(socketCompressor)) {
      return "the offer asks for cell compressor '" + compressor + "'; the socket connection "
        + "negotiated '" + socketCompressor + "', which the endpoint uses";
    }
    return null;
  }

  /**
   * Issues a token unless the server's or the user's endpoint cap is reached: endpoints whose
   * transport resources are held (connected, or closed and waiting for the peer to answer the
   * disconnect request: their queue pair and registered memory stay pinned until the teardown)
   * plus tokens outstanding (each may become such an endpoint). Above a cap the offer fails with
   * {@link EndpointRefusedException} naming the user, the peer and the cap's key, and the client
   * stays on sockets.
   */
  private byte[] issueWithinCaps(User user, ConnectionHeader header, RpcCall call)
    throws EndpointRefusedException {
    String name = user.getName();
    InetAddress peer = call.getRemoteAddress();
    String from = peer == null ? "an unknown address" : peer.getHostAddress();
    synchronized (offers) {
      int pinnedNow = pinned.size();
      int closing = Math.max(0, pinnedNow - connections.size());
      int total = pinnedNow + tokens.outstanding();
      String refused = null;
      if (total >= maxEndpoints) {
        refused = "RegionServer has " + total + " RDMA endpoints (connected, offered, or "
          + closing + " closed and not yet torn down), its cap ("
          + HybridRpcKeys.Server.MAX_ENDPOINTS + "=" + maxEndpoints + "); user " + name
          + " from " + from + " refused";
      } else {
        int mine = tokens.outstanding(g -> g.user.getName().equals(name));
        int mineClosing = 0;
        for (HybridServerConnection c : pinned) {
          if (name.equals(c.userName())) {
            mine++;
            if (!connections.contains(c)) {
              mineClosing++;
            }
          }
        }
        if (mine >= maxEndpointsPerUser) {
          refused = "user " + name + " (from " + from + ") has " + mine
            + " RDMA endpoints on this RegionServer (connected, offered, or " + mineClosing
            + " closed and waiting for the peer's answer to the disconnect request), the cap ("
            + HybridRpcKeys.Server.MAX_ENDPOINTS_PER_USER + "=" + maxEndpointsPerUser + ")";
        }
      }
      if (refused != null) {
        RdmaRpcMetrics.counter("server.offers.refused").increment();
        long held = refusedOffers.tryLog();
        if (held >= 0) {
          LOG.warn("Refused an RDMA endpoint to {} from {}: {}; it stays on sockets{}", name,
            call.getRemoteAddress(), refused, held > 0 ? " (" + held + " more refused)" : "");
        }
        throw new EndpointRefusedException(refused + ": calls stay on sockets");
      }
      return tokens.issue(new Grant(user, header, call.getRemoteAddress()));
    }
  }

  private String announcedHost(InetSocketAddress a) {
    InetAddress ip = a.getAddress();
    if (ip != null && !ip.isAnyLocalAddress()) {
      return ip.getHostAddress();
    }
    if (server != null && server.getServerName() != null) {
      return server.getServerName().getHostname();
    }
    return getListenerAddress().getHostString();
  }

  /** The endpoint closed: no longer connected, still pinned until {@link #released}. */
  void removed(HybridServerConnection connection) {
    connections.remove(connection);
  }

  /** The endpoint's transport tore it down: its resources no longer count against the caps. */
  void released(HybridServerConnection connection) {
    connections.remove(connection);
    if (pinned.remove(connection)) {
      RdmaRpcMetrics.counter("server.endpoints.released").increment();
    }
  }

  int rdmaMaxMessageSize() {
    return transport == null ? Integer.MAX_VALUE : transport.maxMessageSize();
  }

  BlockingService clientService() {
    return clientService;
  }

  int maxCallsPerEndpoint() {
    return maxCallsPerEndpoint;
  }

  long queuedResponseBytes() {
    return queuedResponseBytes;
  }

  long sendTimeoutMs() {
    return sendTimeoutMs;
  }

  /** The flusher; a connection only queues after the endpoint started listening. */
  ResponseFlusher responseFlusher() {
    ResponseFlusher f = responseFlusher;
    if (f == null) {
      throw new IllegalStateException("RPC server " + serverName + " is stopped: no response flusher");
    }
    return f;
  }

  /** A call refused above an endpoint's cap: one WARN per 10 s at most. */
  void logRefusedCall(String msg) {
    long held = refusedCalls.tryLog();
    if (held >= 0) {
      LOG.warn("{}{}", msg, held > 0 ? " (" + held + " more refused since the last such line)"
        : "");
    }
  }

  /** What a token grants: the socket connection's user and its negotiated connection header. */
  static final class Grant {
    final User user;
    final ConnectionHeader header;
    /** The socket peer that asked for the token: only it may redeem the token. */
    final InetAddress peer;

    Grant(User user, ConnectionHeader header, InetAddress peer) {
      this.user = user;
      this.header = header;
      this.peer = peer;
    }
  }

  /**
   * Whether a connection request from {@code requester} may redeem a token asked for by the
   * socket peer {@code granted}: the same address, or — for a client on this very host whose
   * socket came over loopback while the endpoint listens on the RDMA device's address
   * ({@code strata.rdma.bind.address=auto}) — any address of this host.
   */
  static boolean samePeer(InetAddress granted, InetAddress requester) {
    if (granted == null || requester == null) {
      return false;
    }
    if (granted.equals(requester)) {
      return true;
    }
    if (!granted.isLoopbackAddress()) {
      return false;
    }
    try {
      return requester.isLoopbackAddress()
        || NetworkInterface.getByInetAddress(requester) != null;
    } catch (java.net.SocketException e) {
      return false;
    }
  }

  private final class Acceptor implements RdmaAcceptor {
    @Override
    public RdmaReceiver accept(InetSocketAddress peer, ByteBuffer privateData) {
      // Redeemed and counted under the caps' lock, so that an offer never sees the endpoint as
      // neither a token nor a pinned endpoint.
      synchronized (offers) {
        return acceptLocked(peer, privateData);
      }
    }

    private RdmaReceiver acceptLocked(InetSocketAddress peer, ByteBuffer privateData) {
      Grant grant = tokens.redeem(privateData);
      if (grant != null && !samePeer(grant.peer, peer.getAddress())) {
        RdmaRpcMetrics.counter("server.endpoints.rejected").increment();
        long held = refusedRequests.tryLog();
        if (held >= 0) {
          LOG.warn("Refused an RDMA connection request from {}: its token was issued to {}, "
            + "another peer (a token works only for the host that asked for it){}", peer,
            grant.peer, held > 0 ? " (" + held + " more refused since the last such line)" : "");
        }
        return null;
      }
      if (grant == null) {
        RdmaRpcMetrics.counter("server.endpoints.rejected").increment();
        // A peer retrying in a loop must not fill the log: one line per 10 s.
        long held = refusedRequests.tryLog();
        if (held >= 0) {
          LOG.warn("Refused an RDMA connection request from {}: no valid endpoint token (a client "
            + "must get one over an authenticated socket connection; tokens are single-use and "
            + "expire after {}){}", peer, HybridRpcKeys.Server.TOKEN_TTL_MS,
            held > 0 ? " (" + held + " more refused since the last such line)" : "");
        }
        return null;
      }
      try {
        HybridServerConnection c = new HybridServerConnection(HybridRpcServer.this, grant, peer);
        pinned.add(c);
        connections.add(c);
        RdmaRpcMetrics.counter("server.endpoints.accepted").increment();
        return c;
      } catch (IOException | RuntimeException e) {
        RdmaRpcMetrics.counter("server.endpoints.rejected").increment();
        LOG.warn("Refused an RDMA connection request from {} of {}: {}", peer, grant.user,
          e.toString());
        return null;
      }
    }

    @Override
    public void established(RdmaEndpoint endpoint) {
      LOG.debug("RDMA endpoint from {} established", endpoint.remoteAddress());
    }
  }
}
