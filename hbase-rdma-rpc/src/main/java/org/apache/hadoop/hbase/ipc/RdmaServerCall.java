package org.apache.hadoop.hbase.ipc;

import io.strata.hbase.rdma.RdmaKeys;
import java.io.IOException;
import java.net.InetAddress;
import org.apache.hadoop.hbase.DoNotRetryIOException;
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
 */
final class RdmaServerCall extends ServerCall<RdmaServerRpcConnection> {

  RdmaServerCall(int id, BlockingService service, MethodDescriptor md, RequestHeader header,
    Message param, CellScanner cellScanner, RdmaServerRpcConnection connection, long size,
    InetAddress remoteAddress, long receiveTime, int timeout, ByteBuffAllocator bbAllocator,
    CellBlockBuilder cellBlockBuilder, CallCleanup reqCleanup) {
    super(id, service, md, header, param, cellScanner, connection, size, remoteAddress, receiveTime,
      timeout, bbAllocator, cellBlockBuilder, reqCleanup);
  }

  /**
   * Sends the response from the handler thread straight into the endpoint; one the endpoint
   * cannot carry is replaced by an error naming the limit.
   */
  @Override
  public synchronized void sendResponseIfReady() {
    this.param = null;
    int limit = connection.maxMessageSize();
    if (response != null && response.size() > limit) {
      String msg = "Response of " + response.size() + " bytes to " + md.getName()
        + " exceeds the RDMA endpoint's " + limit + "-byte message limit ("
        + RdmaKeys.MAX_MESSAGE + "); raise it, or leave " + md.getName() + " out of "
        + RdmaKeys.ROUTED_METHODS;
      RpcServer.LOG.warn("{} to {}", msg, connection);
      if (cellBlockStream != null) {
        cellBlockStream.releaseResources();
        cellBlockStream = null;
      }
      ResponseHeader.Builder header = ResponseHeader.newBuilder().setCallId(id);
      setExceptionResponse(new DoNotRetryIOException(msg), msg, header);
      try {
        response = new BufferChain(createHeaderAndMessageBytes(null, header.build(), 0, null));
      } catch (IOException e) {
        RpcServer.LOG.warn("Could not build the error response to {}", connection, e);
        response = null;
      }
      isError = true;
    }
    connection.doRespond(this);
  }
}
