package org.apache.hadoop.hbase.ipc;

import io.strata.hbase.rdma.EndpointCall;
import io.strata.hbase.rdma.EndpointMessageTooLargeException;
import io.strata.hbase.rdma.HybridRpcKeys;
import io.strata.hbase.rdma.RdmaRpcMetrics;
import io.strata.hbase.rdma.ReadOnlyCalls;
import io.strata.rdma.transport.RdmaTransportKeys;
import java.io.IOException;
import java.net.InetAddress;
import org.apache.hadoop.hbase.CellScanner;
import org.apache.hadoop.hbase.ipc.RpcServer.CallCleanup;
import org.apache.hadoop.hbase.io.ByteBuffAllocator;
import org.apache.hbase.thirdparty.com.google.protobuf.BlockingService;
import org.apache.hbase.thirdparty.com.google.protobuf.Descriptors.MethodDescriptor;
import org.apache.hbase.thirdparty.com.google.protobuf.Message;
import org.apache.hadoop.hbase.shaded.protobuf.generated.RPCProtos.RequestHeader;
import org.apache.hadoop.hbase.shaded.protobuf.generated.RPCProtos.ResponseHeader;

/**
 * A call that arrived over an RDMA endpoint. A {@link ServerCall}, so that the WAL keeps its
 * request buffer (whose cells it appends) until the edit is written, as for socket calls.
 * Confined to the handler running it, as HBase's calls are; the response is built under the
 * call's lock.
 */
final class HybridServerCall extends ServerCall<HybridServerConnection>
  implements EndpointCall, CallStamps.Staged {
  /**
   * Sent before a response that replaced one too large for the endpoint, where a response's
   * total length (never negative) stands: the client looks into only these responses' headers.
   */
  static final int TOO_LARGE_MARKER = -1;

  /** Whether {@link #response} is the error that replaced a too-large response. */
  boolean replacedTooLarge;

  /** Whether it counts among its endpoint's calls in flight until its response leaves. */
  boolean inFlight;

  /** Where its time went, while a benchmark records; else null. */
  private final CallStamps stamps;

  HybridServerCall(int id, BlockingService service, MethodDescriptor md, RequestHeader header,
    Message param, CellScanner cellScanner, HybridServerConnection connection, long size,
    InetAddress remoteAddress, long receiveTime, int timeout, ByteBuffAllocator bbAllocator,
    CellBlockBuilder cellBlockBuilder, CallCleanup reqCleanup, CallStamps stamps) {
    super(id, service, md, header, param, cellScanner, connection, size, remoteAddress, receiveTime,
      timeout, bbAllocator, cellBlockBuilder, reqCleanup);
    this.stamps = stamps;
  }

  @Override
  public CallStamps stamps() {
    return stamps;
  }

  /**
   * Sends the response from the handler thread straight into the endpoint. One the endpoint
   * cannot carry is replaced by an {@link EndpointMessageTooLargeException} naming the limit: the
   * client re-sends a read-only call over its socket and fails any other with that error.
   */
  @Override
  public synchronized void sendResponseIfReady() {
    int limit = connection.maxMessageSize();
    if (response != null && response.size() > limit && md != null) {
      boolean readOnly = ReadOnlyCalls.isReadOnly(md.getName(), param);
      String msg = "Response of " + response.size() + " bytes to " + md.getName()
        + " exceeds the RDMA endpoint's " + limit + "-byte message limit ("
        + RdmaTransportKeys.MAX_MESSAGE + ")"
        + (readOnly ? ": the client re-sends it over its socket"
          : "; raise the limit, or leave " + md.getName() + " out of "
            + HybridRpcKeys.Client.ROUTED_METHODS);
      if (readOnly) {
        RpcServer.LOG.debug("{} to {}", msg, connection);
      } else {
        RpcServer.LOG.warn("{} to {}", msg, connection);
      }
      RdmaRpcMetrics.counter("server.responses.too.large").increment();
      if (cellBlockStream != null) {
        cellBlockStream.releaseResources();
        cellBlockStream = null;
      }
      ResponseHeader.Builder header = ResponseHeader.newBuilder().setCallId(id);
      setExceptionResponse(new EndpointMessageTooLargeException(msg), msg, header);
      try {
        response = new BufferChain(createHeaderAndMessageBytes(null, header.build(), 0, null));
      } catch (IOException e) {
        RpcServer.LOG.warn("Could not build the error response to {}", connection, e);
        response = null;
      }
      isError = true;
      replacedTooLarge = response != null;
    }
    if (stamps != null) {
      stamps.publish(response);
    }
    this.param = null;
    connection.doRespond(this);
  }
}
