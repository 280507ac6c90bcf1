package org.apache.hadoop.hbase.ipc;

import io.strata.hbase.rdma.RdmaRpcMetrics;
import io.strata.rdma.transport.RdmaEndpoint;
import io.strata.rdma.transport.RdmaReceiver;
import io.strata.rdma.transport.TransportCounters;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.hbase.CellScanner;
import org.apache.hadoop.hbase.ipc.RpcServer.CallCleanup;
import org.apache.hadoop.hbase.client.VersionInfoUtil;
import org.apache.hadoop.hbase.codec.Codec;
import org.apache.hadoop.hbase.nio.ByteBuff;
import org.apache.hadoop.hbase.util.EnvironmentEdgeManager;
import org.apache.hadoop.io.compress.CompressionCodec;
import org.apache.hbase.thirdparty.com.google.protobuf.BlockingService;
import org.apache.hbase.thirdparty.com.google.protobuf.Descriptors.MethodDescriptor;
import org.apache.hbase.thirdparty.com.google.protobuf.Message;
import org.apache.hadoop.hbase.shaded.protobuf.generated.HBaseProtos;
import org.apache.hadoop.hbase.shaded.protobuf.generated.RPCProtos.ConnectionHeader;
import org.apache.hadoop.hbase.shaded.protobuf.generated.RPCProtos.RequestHeader;

/**
 * The server side of one RDMA endpoint: HBase's {@link ServerRpcConnection} fed by the
 * transport instead of a socket. Its user, cell codec and attributes were fixed when the
 * endpoint's token was issued over an authenticated socket connection, so there is no preamble,
 * connection header or SASL exchange on the endpoint: each message is one request (RequestHeader,
 * param, cell block — HBase's framing without the length prefix), decoded on the transport's
 * completion thread into a call for the scheduler, as a Netty event loop does.
 *
 * <p>The request bytes are copied once out of the receive buffer (which the transport reuses
 * when the callback returns) into a buffer from the server's allocator, released when the call
 * and the WAL are done with it. The client's counterpart is {@link HybridClientReceiver}.
 * Requests are decoded on the completion thread only; responses are sent from handler threads,
 * each as one message (the endpoint's send is thread-safe).
 */
final class HybridServerConnection extends ServerRpcConnection implements RdmaReceiver {
  private final HybridRpcServer server;
  private volatile RdmaEndpoint endpoint;
  private volatile boolean open = true;
  /** When the message being decoded arrived, while a benchmark records (completion thread). */
  private long receivedAt;
  private int receivedBytes;

  HybridServerConnection(HybridRpcServer server, HybridRpcServer.Grant grant,
    InetSocketAddress peer) throws IOException {
    super(server);
    this.server = server;
    ConnectionHeader header = grant.header;
    this.connectionHeader = header;
    this.service = server.clientService();
    this.user = grant.user;
    this.ugi = grant.user.getUGI();
    this.codec = codec(header);
    this.compressionCodec = compressor(header);
    this.connectionAttributes = attributes(header);
    this.retryImmediatelySupported =
      header.hasVersionInfo() && VersionInfoUtil.hasMinimumVersion(header.getVersionInfo(), 1, 2);
    this.addr = peer.getAddress();
    this.hostAddress = addr == null ? peer.getHostString() : addr.getHostAddress();
    this.remotePort = peer.getPort();
    // Service-level authorization (hadoop.security.authorization), as for a socket connection.
    if (server.needAuthorization()) {
      try {
        server.authorize(ugi, header, addr);
      } catch (org.apache.hadoop.security.authorize.AuthorizationException e) {
        throw new org.apache.hadoop.hbase.security.AccessDeniedException(e.getMessage());
      }
    }
    this.connectionHeaderRead = true;
    RpcServer.AUDITLOG.info("RDMA endpoint from {}:{}, ugi={}, service={}", hostAddress,
      remotePort, ugi, header.getServiceName());
  }

  private static Codec codec(ConnectionHeader header) throws IOException {
    if (!header.hasCellBlockCodecClass() || header.getCellBlockCodecClass().isEmpty()) {
      return null;
    }
    try {
      return (Codec) Class.forName(header.getCellBlockCodecClass()).getDeclaredConstructor()
        .newInstance();
    } catch (Exception e) {
      throw new UnsupportedCellCodecException(header.getCellBlockCodecClass(), e);
    }
  }

  private static CompressionCodec compressor(ConnectionHeader header) throws IOException {
    if (!header.hasCellBlockCompressorClass() || header.getCellBlockCompressorClass().isEmpty()) {
      return null;
    }
    try {
      return (CompressionCodec) Class.forName(header.getCellBlockCompressorClass())
        .getDeclaredConstructor().newInstance();
    } catch (Exception e) {
      throw new UnsupportedCompressionCodecException(header.getCellBlockCompressorClass(), e);
    }
  }

  private static Map<String, byte[]> attributes(ConnectionHeader header) {
    if (header.getAttributeList().isEmpty()) {
      return Collections.emptyMap();
    }
    Map<String, byte[]> m = new HashMap<>();
    for (HBaseProtos.NameBytesPair p : header.getAttributeList()) {
      m.put(p.getName(), p.getValue().toByteArray());
    }
    return m;
  }

  @Override
  public void onEstablished(RdmaEndpoint established) {
    endpoint = established;
    if (!open) {
      established.close(); // closed by the server before it was established
    }
  }

  @Override
  public void onMessage(RdmaEndpoint from, ByteBuffer message) {
    receivedAt = CallStamps.receivedNow();
    if (endpoint == null) {
      endpoint = from;
    }
    if (!open) {
      // Closed by the server: the client fails its calls in flight and retries them.
      from.close();
      return;
    }
    int size = message.remaining();
    receivedBytes = size;
    rpcServer.metrics.receivedBytes(size);
    RdmaRpcMetrics.SERVER_BYTES_RECEIVED.increment(size);
    ByteBuff request = rpcServer.bbAllocator.allocate(size);
    request.put(0, ByteBuff.wrap(message), message.position(), size);
    request.position(0).limit(size);
    this.callCleanup = request::release;
    try {
      processOneRpc(request);
    } catch (Exception e) {
      callCleanupIfNeeded();
      RpcServer.LOG.warn("Closing RDMA endpoint from {}: its request could not be processed", this,
        e);
      from.close();
    } finally {
      this.callCleanup = null;
    }
  }

  @Override
  public void onClose(RdmaEndpoint from, IOException cause) {
    open = false;
    server.removed(this);
    callCleanupIfNeeded();
    if (cause != null) {
      RpcServer.LOG.info("RDMA endpoint from {} ({}) closed: {}", this, ugi, cause.getMessage());
    } else {
      RpcServer.LOG.debug("RDMA endpoint from {} closed", this);
    }
  }

  /** The user the endpoint's calls run as (its token's). */
  String userName() {
    return user.getName();
  }

  /** The endpoint's counters, null until its first request arrived. */
  TransportCounters counters() {
    RdmaEndpoint e = endpoint;
    return e == null ? null : e.counters();
  }

  /** The smaller of this server's and the client's limit, exchanged when the endpoint connected. */
  int maxMessageSize() {
    RdmaEndpoint e = endpoint;
    return e == null ? server.rdmaMaxMessageSize() : e.maxMessageSize();
  }

  @Override
  public boolean isConnectionOpen() {
    RdmaEndpoint e = endpoint;
    return open && (e == null || e.isOpen());
  }

  @Override
  public void close() {
    open = false;
    RdmaEndpoint e = endpoint;
    if (e != null) {
      e.close();
    }
    server.removed(this);
  }

  @Override
  public HybridServerCall createCall(int id, BlockingService service, MethodDescriptor md,
    RequestHeader header, Message param, CellScanner cellScanner, long size,
    InetAddress remoteAddress, int timeout, CallCleanup reqCleanup) {
    if (md != null) {
      RdmaRpcMetrics.serverCall(md.getName());
    }
    return new HybridServerCall(id, service, md, header, param, cellScanner, this, size,
      remoteAddress, EnvironmentEdgeManager.currentTime(), timeout, rpcServer.bbAllocator,
      rpcServer.cellBlockBuilder, reqCleanup,
      md == null ? null : CallStamps.of(md.getName(), receivedAt, receivedBytes));
  }

  /** Sends a response (a call's, or a connection-level error) as one message. */
  @Override
  protected void doRespond(RpcResponse resp) {
    try {
      BufferChain chain = resp.getResponse();
      RdmaEndpoint e = endpoint;
      if (chain == null || e == null) {
        return;
      }
      int size = chain.size();
      ByteBuffer[] parts = chain.getBuffers();
      if (resp instanceof HybridServerCall && ((HybridServerCall) resp).replacedTooLarge) {
        ByteBuffer[] marked = new ByteBuffer[parts.length + 1];
        marked[0] = ByteBuffer.allocate(Integer.BYTES).putInt(0, HybridServerCall.TOO_LARGE_MARKER);
        System.arraycopy(parts, 0, marked, 1, parts.length);
        parts = marked;
      }
      try {
        e.send(parts);
        rpcServer.metrics.sentBytes(size);
        RdmaRpcMetrics.SERVER_BYTES_SENT.increment(size);
      } catch (IOException | RuntimeException ex) {
        if (e.isOpen()) {
          // Not sent on an endpoint that is still open: close it, so that the client fails the
          // call (and its others) at once and retries them over its socket, never waiting out
          // its timeout for a response that cannot come.
          RpcServer.LOG.warn("Closing RDMA endpoint from {}: a response could not be sent ({})",
            this, ex.toString());
          e.close();
        } else {
          // The client sees the endpoint die and retries the call; nothing to answer here.
          RpcServer.LOG.debug("Response to {} not sent: {}", this, ex.toString());
        }
      }
    } finally {
      resp.done();
    }
  }

  @Override
  public String toString() {
    return "rdma:" + super.toString();
  }
}
