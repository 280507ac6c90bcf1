package org.apache.hadoop.hbase.ipc;

import io.strata.hbase.rdma.EndpointOffer;
import io.strata.hbase.rdma.EndpointRefusedException;
import io.strata.hbase.rdma.EndpointTokens;
import io.strata.hbase.rdma.RdmaRpcMetrics;
import io.strata.rdma.transport.RdmaEndpoint;
import io.strata.rdma.transport.RdmaTransport;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.exceptions.UnknownProtocolException;
import org.apache.hadoop.hbase.util.EnvironmentEdgeManager;
import org.apache.hadoop.ipc.RemoteException;
import org.apache.hbase.thirdparty.com.google.protobuf.RpcCallback;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.ClientService;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.CoprocessorServiceResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client's connection to one RegionServer's ClientService for one user: HBase's Netty socket
 * connection, plus an RDMA endpoint for the routed methods once the server has offered one.
 *
 * <p>Set-up: the first routed call asks the server for an {@link EndpointOffer} over the socket
 * (so only an authenticated connection gets a token) and connects the endpoint in the background;
 * until then, and whenever the endpoint is down, routed calls go over the socket. A server that
 * has no endpoint is asked once; a failed endpoint is retried after
 * {@code strata.rdma.client.retry.ms}.
 *
 * <p>Fallback without losing or repeating calls: a call the endpoint refuses to take (closed,
 * too large, no credit free) was not sent and goes over the socket at once; a call in flight
 * when the endpoint dies has an unknown outcome and fails with
 * {@code ConnectionClosedException}, which HBase's client retries like a dropped socket
 * connection (over the socket, the endpoint being down). Each call takes exactly one of the
 * two paths: {@link HybridClientReceiver#trySend} returns false only for a call that nothing
 * else (the endpoint's close, a timeout, a cancel) completed.
 *
 * <p>Thread-safe: callers' threads send, the endpoint is installed and dropped through volatile
 * fields, and one set-up runs at a time ({@code settingUp}). Its endpoint's receiver is a
 * {@link HybridClientReceiver}.
 */
class HybridClientConnection extends NettyRpcConnection {
  private static final Logger LOG = LoggerFactory.getLogger(HybridClientConnection.class);

  private final HybridRpcClient client;
  private final AtomicBoolean settingUp = new AtomicBoolean();
  private volatile HybridClientReceiver rdma;
  private volatile boolean noEndpoint;
  private volatile long retryAtMs;
  private volatile boolean closed;

  HybridClientConnection(HybridRpcClient client, ConnectionId remoteId) throws IOException {
    super(client, remoteId);
    this.client = client;
  }

  @Override
  public void sendRequest(Call call, HBaseRpcController hrc) {
    if (!client.routes(call.md)) {
      super.sendRequest(call, hrc);
      return;
    }
    HybridClientReceiver r = rdma;
    if (r != null) {
      if (r.trySend(call, hrc)) {
        EndpointPolling.sentOverEndpoint();
        RdmaRpcMetrics.clientRdma(call.md.getName());
        return;
      }
      RdmaRpcMetrics.counter("client.fallback.before.send").increment();
      if (!r.isOpen() && rdma == r) {
        // Dead but still installed (it closed before its close could uninstall it): drop it,
        // so that a new endpoint is set up after the retry delay instead of never.
        dropDead(r);
      }
    } else {
      maybeSetUp();
    }
    RdmaRpcMetrics.clientSockets(call.md.getName());
    super.sendRequest(call, hrc);
  }

  /** Sends a call over the socket that the endpoint could not answer (see HybridClientReceiver). */
  void sendOverSocket(Call call, HBaseRpcController hrc) {
    RdmaRpcMetrics.clientSockets(call.md.getName());
    super.sendRequest(call, hrc);
  }

  /** Schedules the call's timeout as for a socket call (RpcConnection's timer). */
  void scheduleTimeout(Call call) {
    scheduleTimeoutTask(call);
  }

  @Override
  protected void callTimeout(Call call) {
    HybridClientReceiver r = rdma;
    if (r != null) {
      r.forget(call);
    }
    super.callTimeout(call);
  }

  private void maybeSetUp() {
    if (noEndpoint || closed || EnvironmentEdgeManager.currentTime() < retryAtMs
      || !settingUp.compareAndSet(false, true)) {
      return;
    }
    RdmaTransport transport = client.transport();
    if (transport == null) {
      noEndpoint = true;
      settingUp.set(false);
      return;
    }
    HBaseRpcController controller = new HBaseRpcControllerImpl();
    ServerName sn =
      ServerName.valueOf(remoteId.getAddress().getHostName(), remoteId.getAddress().getPort(), 0L);
    ClientService.Interface stub = ClientService
      .newStub(client.plainRpcChannel(sn, remoteId.getTicket(), (int) client.connectTimeoutMs()));
    RpcCallback<CoprocessorServiceResponse> done = response -> {
      if (controller.failed() || response == null) {
        offerRefused(controller.getFailed());
        return;
      }
      EndpointOffer offer;
      try {
        offer = EndpointOffer.fromResponse(response);
      } catch (IOException e) {
        offerRefused(e);
        return;
      }
      client.connectAsync(() -> connect(transport, offer));
    };
    stub.execRegionServerService(controller,
      EndpointOffer.request(getConnectionHeader().toByteArray()), done);
  }

  private void offerRefused(Throwable error) {
    IOException unwrapped = error instanceof RemoteException
      ? ((RemoteException) error).unwrapRemoteException()
      : error instanceof IOException ? (IOException) error : new IOException(error);
    if (isRemote(error, unwrapped, EndpointRefusedException.class)) {
      // The server is at its endpoint cap: a clean refusal, not a failure.
      retryAtMs = EnvironmentEdgeManager.currentTime() + client.retryMs();
      RdmaRpcMetrics.counter("client.offers.refused").increment();
      LOG.info("RegionServer {} refused an RDMA endpoint ({}): {} calls to it use sockets, asking "
        + "again in {} ms", remoteId.getAddress(), unwrapped.getMessage(), client.routed(),
        client.retryMs());
    } else if (isRemote(error, unwrapped, UnknownProtocolException.class)) {
      noEndpoint = true;
      RdmaRpcMetrics.counter("client.offers.refused").increment();
      LOG.info("RegionServer {} has no RDMA endpoint (a stock RegionServer, or its transport is "
        + "off): {} calls to it use sockets", remoteId.getAddress(), client.routed());
    } else {
      retryAtMs = EnvironmentEdgeManager.currentTime() + client.retryMs();
      RdmaRpcMetrics.counter("client.endpoints.failed").increment();
      LOG.warn("Asking RegionServer {} for its RDMA endpoint failed ({}): sockets, retrying in {} "
        + "ms", remoteId.getAddress(), String.valueOf(unwrapped), client.retryMs());
    }
    settingUp.set(false);
  }

  private static boolean isRemote(Throwable error, IOException unwrapped,
    Class<? extends IOException> type) {
    if (type.isInstance(unwrapped)) {
      return true;
    }
    Throwable t = error;
    while (t != null) {
      if (t instanceof RemoteException && type.getName()
        .equals(((RemoteException) t).getClassName())) {
        return true;
      }
      t = t.getCause();
    }
    return false;
  }

  private void connect(RdmaTransport transport, EndpointOffer offer) {
    try {
      if (!transport.name().equals(offer.transport())) {
        throw new IOException("the server's endpoint uses the " + offer.transport()
          + " transport, this client " + transport.name());
      }
      HybridClientReceiver r = new HybridClientReceiver(this, client, offer.address());
      RdmaEndpoint e = transport.connect(offer.address(),
        EndpointTokens.privateData(offer.token()), r, client.connectTimeoutMs());
      r.connected(e);
      if (closed) {
        e.close();
        return;
      }
      rdma = r;
      if (!e.isOpen()) {
        // Closed between connect and here: its close found nothing installed to remove.
        dropDead(r);
        return;
      }
      client.endpointUp(r);
      RdmaRpcMetrics.counter("client.endpoints.connected").increment();
      LOG.info("{} calls to RegionServer {} go over its {}", client.routed(),
        remoteId.getAddress(), offer);
    } catch (IOException | RuntimeException e) {
      retryAtMs = EnvironmentEdgeManager.currentTime() + client.retryMs();
      RdmaRpcMetrics.counter("client.endpoints.failed").increment();
      LOG.warn("RDMA endpoint to RegionServer {} not connected ({}): sockets, retrying in {} ms",
        remoteId.getAddress(), e.toString(), client.retryMs());
    } finally {
      settingUp.set(false);
    }
  }

  /** The endpoint closed; calls in flight on it have been failed retriably. */
  void endpointClosed(HybridClientReceiver r, IOException cause) {
    client.endpointDown(r);
    if (rdma == r) {
      rdma = null;
    }
    if (cause != null && !closed) {
      retryAtMs = EnvironmentEdgeManager.currentTime() + client.retryMs();
      RdmaRpcMetrics.counter("client.endpoints.failed").increment();
      LOG.warn("RDMA endpoint to RegionServer {} failed ({}): calls in flight are retried, "
        + "calls go over sockets, new endpoint in {} ms", remoteId.getAddress(),
        cause.getMessage(), client.retryMs());
    }
  }

  /**
   * Uninstalls an endpoint whose close (already reported by {@link #endpointClosed}) came before
   * it was installed; the next routed call after the retry delay sets a new one up.
   */
  private void dropDead(HybridClientReceiver r) {
    client.endpointDown(r);
    if (rdma == r) {
      rdma = null;
      retryAtMs = EnvironmentEdgeManager.currentTime() + client.retryMs();
    }
  }

  /** Whether calls go over an endpoint now. */
  boolean rdmaConnected() {
    return rdma != null;
  }

  /**
   * Active while the socket is up or the endpoint has calls in flight. An endpoint with none is
   * idle: HBase's idle-connection cleanup ({@code hbase.ipc.client.connection.minIdleTimeBeforeClose}
   * without a call to this server) then closes it through {@link #cleanupConnection}, as it closes
   * an idle socket.
   */
  @Override
  public boolean isActive() {
    HybridClientReceiver r = rdma;
    return super.isActive() || (r != null && r.hasCallsInFlight());
  }


  /**
   * Closes the endpoint with the connection: client close, server gone, or the whole connection
   * idle. Not on {@link #shutdown}, which closes the socket only: HBase shuts a socket down when
   * nothing was written to it for the idle time, which for a client whose calls all go over the
   * endpoint comes every idle time however busy the endpoint is.
   */
  @Override
  public void cleanupConnection() {
    closed = true;
    closeEndpoint();
    super.cleanupConnection();
  }

  private void closeEndpoint() {
    HybridClientReceiver r = rdma;
    rdma = null;
    if (r != null) {
      r.close();
    }
  }
}
