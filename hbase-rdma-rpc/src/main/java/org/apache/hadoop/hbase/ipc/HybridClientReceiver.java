package org.apache.hadoop.hbase.ipc;

import io.strata.hbase.rdma.EndpointMessageTooLargeException;
import io.strata.hbase.rdma.RdmaRpcMetrics;
import io.strata.hbase.rdma.ReadOnlyCalls;
import io.strata.hbase.rdma.RpcStages;
import io.strata.rdma.transport.RdmaEndpoint;
import io.strata.rdma.transport.RdmaReceiver;
import io.strata.rdma.transport.TransportCounters;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.hbase.exceptions.ConnectionClosedException;
import org.apache.hbase.thirdparty.io.netty.buffer.ByteBuf;
import org.apache.hbase.thirdparty.io.netty.buffer.ByteBufAllocator;
import org.apache.hbase.thirdparty.io.netty.buffer.ByteBufInputStream;
import org.apache.hbase.thirdparty.io.netty.buffer.ByteBufOutputStream;
import org.apache.hbase.thirdparty.io.netty.buffer.PooledByteBufAllocator;
import org.apache.hbase.thirdparty.io.netty.buffer.Unpooled;
import org.apache.hadoop.hbase.shaded.protobuf.generated.RPCProtos.CellBlockMeta;
import org.apache.hadoop.hbase.shaded.protobuf.generated.RPCProtos.RequestHeader;
import org.apache.hadoop.hbase.shaded.protobuf.generated.RPCProtos.ResponseHeader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's receiver of one RDMA endpoint (the server's counterpart is
 * {@link HybridServerConnection}): writes calls as HBase requests (RequestHeader, param, cell
 * block; one message each, no length prefix) straight from the calling thread, and reads
 * responses on the transport's completion thread with HBase's own response reader. The
 * completion thread only parses the headers and copies the cell block out of the receive
 * buffer; the cells themselves are decoded lazily by whoever consumes the result, off the
 * completion thread. Thread-safe: calls in flight are in concurrent maps.
 */
final class HybridClientReceiver implements RdmaReceiver {
  private static final Logger LOG = LoggerFactory.getLogger(HybridClientReceiver.class);
  private static final ByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;
  private static final String TOO_LARGE = EndpointMessageTooLargeException.class.getName();
  /** A send's longest wait for the server's credit: none (see {@link #trySend}). */
  private static final long NO_WAIT = 0;

  private final HybridClientConnection connection;
  private final HybridRpcClient client;
  private final InetSocketAddress address;
  /** Read-only calls in flight, which go over the socket if their response is too large. */
  private final Map<Integer, HBaseRpcController> repeatable = new ConcurrentHashMap<>();
  /**
   * Calls in flight. Whoever removes one (HBase's response reader, a timeout, a cancel) also
   * forgets its controller, so that responses need no look-up of their own.
   */
  private final Map<Integer, Call> calls = new ConcurrentHashMap<>() {
    private static final long serialVersionUID = 1L;

    @Override
    public Call remove(Object id) {
      repeatable.remove(id);
      return super.remove(id);
    }
  };
  private volatile RdmaEndpoint endpoint;

  HybridClientReceiver(HybridClientConnection connection, HybridRpcClient client,
    InetSocketAddress address) {
    this.connection = connection;
    this.client = client;
    this.address = address;
  }

  void connected(RdmaEndpoint endpoint) {
    this.endpoint = endpoint;
  }

  /**
   * Sends the call over the endpoint if it takes it now, or returns false when it did not take it
   * (closed, the request is too large, or no credit free at this moment): then nothing was sent,
   * no other path completed the call, and the caller uses the socket. True means the endpoint
   * path owns the call: sent, or ended while here (the endpoint closed, the call timed out or was
   * cancelled) — such a call has its outcome and must not go over the socket too (see
   * {@link #reclaim}).
   *
   * <p>Never waits for the server's credit. The calling thread may be one that every client of
   * the JVM shares — HBase's {@code AsyncConnectionImpl.RETRY_TIMER}, which runs every retry, or
   * the Netty event loop that completed a region lookup — and a frozen server that keeps its
   * credits would stall them all; the socket has no such wait (Netty queues the write). For the
   * same reason the send runs outside the controller's lock (unlike HBase's
   * {@code notifyOnCancel(callback, action)}, whose action runs holding it): a call's timeout task,
   * on {@code AbstractRpcClient.WHEEL_TIMER}, takes that lock to fail the call.
   */
  boolean trySend(Call call, HBaseRpcController hrc) {
    RdmaEndpoint e = endpoint;
    if (e == null || !e.isOpen()) {
      return false;
    }
    // Registered first, so that a cancel from now on finds the call once it is in `calls`.
    hrc.notifyOnCancel(cancelled -> {
      if (calls.remove(call.id) != null) {
        IPCUtil.setCancelled(call);
      }
    });
    if (hrc.isCanceled()) {
      IPCUtil.setCancelled(call);
      return true;
    }
    try {
      return send(e, call, hrc);
    } catch (IOException notSent) {
      return false;
    }
  }

  /**
   * True when sent, or when the call ended (the endpoint closed, it timed out or was cancelled)
   * before the send went out; false when the socket is to take the call.
   */
  private boolean send(RdmaEndpoint e, Call call, HBaseRpcController hrc) throws IOException {
    ByteBuf cellBlock = client.cellBlockBuilder.buildCellBlock(client.codec, client.compressor,
      call.cells, ALLOC);
    ByteBuf head = null;
    boolean handedOver = false;
    try {
      CellBlockMeta meta = cellBlock == null ? null
        : CellBlockMeta.newBuilder().setLength(cellBlock.readableBytes()).build();
      RequestHeader header = IPCUtil.buildRequestHeader(call, meta);
      int headSize = IPCUtil.getTotalSizeWhenWrittenDelimited(header, call.param);
      int total = headSize + (cellBlock == null ? 0 : cellBlock.readableBytes());
      if (total > e.maxMessageSize()) {
        // the smaller of both sides' limits: such a request goes over the socket
        throw new IOException("request too large for the endpoint");
      }
      head = ALLOC.heapBuffer(headSize);
      try (ByteBufOutputStream out = new ByteBufOutputStream(head)) {
        header.writeDelimitedTo(out);
        if (call.param != null) {
          call.param.writeDelimitedTo(out);
        }
      }
      if (RpcStages.recording() && RpcStages.recorded(call.md.getName())) {
        RpcStages.stamp(RpcStages.Stamp.REQUEST_ENCODED);
      }
      ByteBuffer[] parts = cellBlock == null ? new ByteBuffer[] { head.nioBuffer() }
        : new ByteBuffer[] { head.nioBuffer(), cellBlock.nioBuffer() };
      calls.put(call.id, call);
      if (ReadOnlyCalls.isReadOnly(call.md.getName(), call.param)) {
        repeatable.put(call.id, hrc);
      }
      connection.scheduleTimeout(call);
      if (hrc.isCanceled() && calls.remove(call.id) != null) {
        IPCUtil.setCancelled(call); // cancelled between registration and now
        if (call.timeoutTask != null) {
          call.timeoutTask.cancel();
        }
        handedOver = true;
        return true;
      }
      boolean sent;
      try {
        sent = e.send(parts, NO_WAIT);
      } catch (IOException notSent) {
        if (!reclaim(call)) {
          // The endpoint's close (failAll), the call's timeout or a cancel ended the call while
          // its send was under way: its caller has the outcome and HBase may already be retrying
          // it, so sending it over the socket as well would run it twice.
          handedOver = true;
          return true;
        }
        throw notSent;
      }
      if (!sent) {
        // No credit now: the server is busy, frozen or partitioned. The socket takes the call
        // unless something ended it meanwhile.
        RdmaRpcMetrics.counter("client.fallback.no.credit").increment();
        if (reclaim(call)) {
          return false;
        }
        handedOver = true;
        return true;
      }
      handedOver = true;
      call.callStats.setRequestSizeBytes(total);
      return true;
    } finally {
      if (!handedOver && cellBlock != null) {
        // Encoding consumed the call's cells; the socket path that takes the call over needs
        // them again.
        byte[] cells = new byte[cellBlock.readableBytes()];
        cellBlock.getBytes(cellBlock.readerIndex(), cells);
        call.cells = client.cellBlockBuilder.createCellScanner(client.codec, client.compressor,
          cells);
      }
      if (head != null) {
        head.release();
      }
      if (cellBlock != null) {
        cellBlock.release();
      }
    }
  }

  /**
   * Takes back a call that was registered in {@link #calls} but not sent, so that the socket can
   * take it over. Removal from {@link #calls} is the one decision every path makes atomically —
   * the response reader, {@link #failAll} on close, the timeout and a cancel each complete only a
   * call they removed — so a call that this thread removes, and whose timeout it cancels before
   * it fires, has been completed by no one and goes over exactly one path: the socket. False
   * when another path got there first: the call has (or is about to have) its outcome and must
   * not be sent anywhere.
   */
  private boolean reclaim(Call call) {
    if (calls.remove(call.id) == null) {
      return false;
    }
    if (call.timeoutTask != null && !call.timeoutTask.cancel()) {
      return false; // the timeout fired: it fails the call
    }
    return !call.isDone();
  }

  /** Whether calls sent over the endpoint await their answers. */
  boolean hasCallsInFlight() {
    return !calls.isEmpty();
  }

  boolean isOpen() {
    RdmaEndpoint e = endpoint;
    return e != null && e.isOpen();
  }

  TransportCounters counters() {
    RdmaEndpoint e = endpoint;
    return e == null ? null : e.counters();
  }

  void forget(Call call) {
    calls.remove(call.id);
  }

  @Override
  public void onMessage(RdmaEndpoint from, ByteBuffer message) {
    // Before the call completes, so that its caller reads it (one call at a time when recording).
    RpcStages.stamp(RpcStages.Stamp.RESPONSE_RECEIVED);
    if (message.remaining() >= Integer.BYTES
      && message.getInt(message.position()) == HybridServerCall.TOO_LARGE_MARKER) {
      message = message.duplicate().position(message.position() + Integer.BYTES);
      if (resentOverSocket(message)) {
        return;
      }
    }
    try {
      connection.readResponse(new ByteBufInputStream(Unpooled.wrappedBuffer(message)), calls,
        null, remoteError -> failAll(remoteError));
    } catch (IOException e) {
      // The message was a whole frame: one bad response does not break the endpoint.
      LOG.warn("Failed to process a response from {}",
        address, e);
    }
  }

  @Override
  public void onClose(RdmaEndpoint from, IOException cause) {
    failAll(new ConnectionClosedException("RDMA endpoint to " + address + " closed"
      + (cause == null ? "" : ": " + cause.getMessage())));
    connection.endpointClosed(this, cause);
  }

  /**
   * Whether the message (one the server marked as replaced for its size) answers a read-only call
   * with {@link EndpointMessageTooLargeException}; such a call is sent again over the socket,
   * where its response has no size limit. The call keeps its id, its caller and its controller
   * (cancellation), and gets the socket's timeout.
   */
  private boolean resentOverSocket(ByteBuffer message) {
    ResponseHeader header;
    try (ByteBufInputStream in =
      new ByteBufInputStream(Unpooled.wrappedBuffer(message.duplicate()))) {
      in.readInt();
      header = ResponseHeader.parseDelimitedFrom(in);
    } catch (IOException | RuntimeException e) {
      return false; // readResponse reports it
    }
    HBaseRpcController hrc = repeatable.get(header.getCallId());
    if (hrc == null || !header.hasException() || !TOO_LARGE.equals(
      header.getException().getExceptionClassName())) {
      return false;
    }
    Call call = calls.remove(header.getCallId());
    if (call == null) {
      return true; // timed out or cancelled meanwhile
    }
    if (call.timeoutTask != null) {
      call.timeoutTask.cancel();
    }
    RdmaRpcMetrics.counter("client.resent.response.too.large").increment();
    LOG.debug("Response to {} too large for the RDMA endpoint to {}: re-sent over the socket",
      call.toShortString(), address);
    connection.sendOverSocket(call, hrc);
    return true;
  }

  private void failAll(IOException error) {
    for (Integer id : new ArrayList<>(calls.keySet())) {
      Call c = calls.remove(id);
      if (c != null) {
        RdmaRpcMetrics.counter("client.failed.after.send").increment();
        c.setException(error);
      }
    }
  }

  void close() {
    RdmaEndpoint e = endpoint;
    if (e != null) {
      e.close();
    }
  }
}
