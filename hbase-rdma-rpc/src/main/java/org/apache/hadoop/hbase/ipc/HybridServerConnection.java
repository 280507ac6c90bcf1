package org.apache.hadoop.hbase.ipc;

import io.strata.hbase.rdma.HybridRpcKeys;
import io.strata.hbase.rdma.RdmaRpcMetrics;
import io.strata.rdma.transport.RdmaEndpoint;
import io.strata.rdma.transport.RdmaReceiver;
import io.strata.rdma.transport.RdmaTransportKeys;
import io.strata.rdma.transport.TransportCounters;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.hadoop.hbase.CallQueueTooBigException;
import org.apache.hadoop.hbase.CellScanner;
import org.apache.hadoop.hbase.ipc.RpcServer.CallCleanup;
import org.apache.hadoop.hbase.client.VersionInfoUtil;
import org.apache.hadoop.hbase.codec.Codec;
import org.apache.hadoop.hbase.io.ByteBufferInputStream;
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
 *
 * <p>No thread ever waits here for the client's credit: a handler offers its response to the
 * endpoint without waiting, and one that finds no credit is copied to this endpoint's queue,
 * which the server's {@link ResponseFlusher} (or the next response) sends as credits return. The
 * queue is bounded in bytes ({@code strata.rdma.server.queued.response.bytes}) and in age
 * ({@code strata.rdma.send.timeout.ms}): past either the endpoint is closed, as HBase's socket
 * server drops a client that stops reading. Calls in flight per endpoint are capped
 * ({@code strata.rdma.server.max.calls.per.endpoint}); a request above the cap is answered with
 * {@link CallQueueTooBigException} without running. A client withholding credits thus holds no
 * handler, and at most the cap of calls and the queue's bytes.
 */
final class HybridServerConnection extends ServerRpcConnection implements RdmaReceiver {
  private final HybridRpcServer server;
  private volatile RdmaEndpoint endpoint;
  private volatile boolean open = true;
  /** When the message being decoded arrived, while a benchmark records (completion thread). */
  private long receivedAt;
  private int receivedBytes;
  /** Calls received and not yet answered (their responses queued included). */
  private final AtomicInteger callsInFlight = new AtomicInteger();
  /** Responses waiting for the client's credit, in the order they were answered. */
  private final ConcurrentLinkedQueue<Queued> queue = new ConcurrentLinkedQueue<>();
  private final AtomicLong queuedBytes = new AtomicLong();
  /** One sender from the queue at a time, so that queued responses go out in order. */
  private final ReentrantLock flushing = new ReentrantLock();

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
    if (callsInFlight.get() >= server.maxCallsPerEndpoint()) {
      refuse(from, message);
      return;
    }
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

  /**
   * Answers a request above the endpoint's cap of calls in flight with
   * {@link CallQueueTooBigException} (HBase's client backs off and retries it), without running
   * it. Only the request's header is read; one that does not parse closes the endpoint, as any
   * request that does not parse does.
   */
  private void refuse(RdmaEndpoint from, ByteBuffer message) {
    RequestHeader header;
    try {
      header = RequestHeader.parseDelimitedFrom(new ByteBufferInputStream(message.duplicate()));
    } catch (IOException | RuntimeException e) {
      header = null;
    }
    if (header == null) {
      RpcServer.LOG.warn("Closing RDMA endpoint from {}: its request header does not parse", this);
      from.close();
      return;
    }
    int cap = server.maxCallsPerEndpoint();
    String msg = "RDMA endpoint from " + hostAddress + ":" + remotePort + " (" + user.getName()
      + ") has " + callsInFlight.get() + " calls in flight, its cap ("
      + HybridRpcKeys.Server.MAX_CALLS_PER_ENDPOINT + "=" + cap + "): " + header.getMethodName()
      + " call " + header.getCallId() + " refused, not run";
    RdmaRpcMetrics.counter("server.calls.refused").increment();
    server.logRefusedCall(msg);
    HybridServerCall refused = createCall(header.getCallId(), service, null, null, null, null,
      message.remaining(), null, 0, null);
    refused.setResponse(null, null, new CallQueueTooBigException(msg), msg);
    refused.sendResponseIfReady();
  }

  @Override
  public void onClose(RdmaEndpoint from, IOException cause) {
    open = false;
    server.removed(this);
    dropQueued();
    callCleanupIfNeeded();
    if (cause != null) {
      RpcServer.LOG.info("RDMA endpoint from {} ({}) closed: {}", this, ugi, cause.getMessage());
    } else {
      RpcServer.LOG.debug("RDMA endpoint from {} closed", this);
    }
  }

  /**
   * The transport tore the endpoint down (after the peer answered the disconnect request): its
   * queue pair and registered memory are freed, and it stops counting against the caps.
   */
  @Override
  public void onReleased(RdmaEndpoint from) {
    open = false;
    server.released(this);
    RpcServer.LOG.debug("RDMA endpoint from {} torn down", this);
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
    dropQueued();
  }

  @Override
  public HybridServerCall createCall(int id, BlockingService service, MethodDescriptor md,
    RequestHeader header, Message param, CellScanner cellScanner, long size,
    InetAddress remoteAddress, int timeout, CallCleanup reqCleanup) {
    if (md != null) {
      RdmaRpcMetrics.serverCall(md.getName());
    }
    HybridServerCall call = new HybridServerCall(id, service, md, header, param, cellScanner, this,
      size, remoteAddress, EnvironmentEdgeManager.currentTime(), timeout, rpcServer.bbAllocator,
      rpcServer.cellBlockBuilder, reqCleanup,
      md == null ? null : CallStamps.of(md.getName(), receivedAt, receivedBytes));
    if (md != null) {
      // Counted until its response is sent or dropped (error answers are not calls: uncounted).
      call.inFlight = true;
      callsInFlight.incrementAndGet();
    }
    return call;
  }

  /** Calls received over this endpoint and not yet answered. */
  int callsInFlight() {
    return callsInFlight.get();
  }

  /** Bytes of responses waiting for the client's credit. */
  long queuedBytes() {
    return queuedBytes.get();
  }

  /**
   * Sends a response (a call's, or a connection-level error) as one message, never waiting for
   * credit: when the client has none free (or older responses still wait), the response is
   * copied to this endpoint's queue and the call's buffers are released at once.
   */
  @Override
  protected void doRespond(RpcResponse resp) {
    boolean counted = resp instanceof HybridServerCall && ((HybridServerCall) resp).inFlight;
    boolean handedOff = false;
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
        if (!queue.isEmpty()) {
          flushQueued();
        }
        if (queue.isEmpty() && e.send(parts, 0)) {
          sent(size);
          return;
        }
        enqueue(e, parts, counted);
        handedOff = counted;
      } catch (IOException | RuntimeException ex) {
        failed(e, ex);
      }
    } finally {
      if (counted && !handedOff) {
        callsInFlight.decrementAndGet();
      }
      resp.done();
    }
  }

  private void sent(int size) {
    rpcServer.metrics.sentBytes(size);
    RdmaRpcMetrics.SERVER_BYTES_SENT.increment(size);
  }

  /** A response that could not be sent, on an endpoint that may still be open. */
  private void failed(RdmaEndpoint e, Exception ex) {
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
    dropQueued();
  }

  /** Copies a response that found no credit into the queue; past its byte bound, closes. */
  private void enqueue(RdmaEndpoint e, ByteBuffer[] parts, boolean counted) {
    int size = 0;
    for (ByteBuffer part : parts) {
      size += part.remaining(); // the chain's bytes, and the too-large marker where there is one
    }
    long limit = server.queuedResponseBytes();
    long total = queuedBytes.addAndGet(size);
    if (total > limit) {
      queuedBytes.addAndGet(-size);
      if (counted) {
        callsInFlight.decrementAndGet();
      }
      overflow(e, "its queue of responses waiting for credit would hold " + total
        + " bytes, above " + HybridRpcKeys.Server.QUEUED_RESPONSE_BYTES + "=" + limit);
      return;
    }
    ByteBuffer copy = ByteBuffer.allocate(size);
    for (ByteBuffer part : parts) {
      copy.put(part.duplicate());
    }
    copy.flip();
    queue.add(new Queued(copy, counted, System.nanoTime()));
    RdmaRpcMetrics.counter("server.responses.queued").increment();
    if (!open || !e.isOpen()) {
      dropQueued(); // closed meanwhile: nobody would send or drop it
      return;
    }
    server.responseFlusher().queued(this);
  }

  /** The client stopped taking responses: close its endpoint, as a socket server would. */
  private void overflow(RdmaEndpoint e, String why) {
    RdmaRpcMetrics.counter("server.endpoints.closed.credit").increment();
    RpcServer.LOG.warn("Closing RDMA endpoint from {} ({}): the client returns no credit: {}; "
      + "its calls in flight fail and it retries them over its socket", this, ugi, why);
    e.close();
    dropQueued();
  }

  /** What a look at the queue did. */
  static final class Flushed {
    static final Flushed EMPTY = new Flushed(false, true);
    static final Flushed BLOCKED = new Flushed(false, false);
    final boolean sentAny;
    final boolean empty;

    Flushed(boolean sentAny, boolean empty) {
      this.sentAny = sentAny;
      this.empty = empty;
    }
  }

  /**
   * Sends queued responses, oldest first, while the client has credit, never waiting; closes the
   * endpoint when the oldest has waited longer than {@code strata.rdma.send.timeout.ms}. Called
   * by the {@link ResponseFlusher} and by handlers before they answer on this endpoint.
   */
  Flushed flushQueued() {
    if (!flushing.tryLock()) {
      return Flushed.BLOCKED; // another thread is at it
    }
    boolean sentAny = false;
    try {
      RdmaEndpoint e = endpoint;
      for (Queued q; (q = queue.peek()) != null;) {
        if (e == null || !open || !e.isOpen()) {
          dropQueued();
          return Flushed.EMPTY;
        }
        boolean sent;
        try {
          sent = e.send(new ByteBuffer[] { q.message.duplicate() }, 0);
        } catch (IOException | RuntimeException ex) {
          failed(e, ex);
          return Flushed.EMPTY;
        }
        if (!sent) {
          long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - q.queuedAt);
          long timeoutMs = server.sendTimeoutMs();
          if (waitedMs > timeoutMs) {
            overflow(e, "a response has waited " + waitedMs + " ms for credit, above "
              + RdmaTransportKeys.SEND_TIMEOUT_MS + "=" + timeoutMs);
            return Flushed.EMPTY;
          }
          return new Flushed(sentAny, false);
        }
        sentAny = true;
        int size = q.message.remaining();
        sent(size);
        if (queue.remove(q)) { // else dropped meanwhile (closing), and accounted for there
          queuedBytes.addAndGet(-size);
          if (q.counted) {
            callsInFlight.decrementAndGet();
          }
        }
      }
      return new Flushed(sentAny, true);
    } finally {
      flushing.unlock();
    }
  }

  /** Drops what waits for an endpoint that is gone: its client retries those calls. */
  private void dropQueued() {
    for (Queued q; (q = queue.poll()) != null;) {
      queuedBytes.addAndGet(-q.message.remaining());
      if (q.counted) {
        callsInFlight.decrementAndGet();
      }
    }
  }

  /** A response copied out of its call's buffers, waiting for credit. */
  private static final class Queued {
    final ByteBuffer message;
    final boolean counted;
    final long queuedAt;

    Queued(ByteBuffer message, boolean counted, long queuedAt) {
      this.message = message;
      this.counted = counted;
      this.queuedAt = queuedAt;
    }
  }

  @Override
  public String toString() {
    return "rdma:" + super.toString();
  }
}
