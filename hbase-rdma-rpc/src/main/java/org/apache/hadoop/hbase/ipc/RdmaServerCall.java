package org.apache.hadoop.hbase.ipc;

import java.net.InetAddress;
import org.apache.hadoop.hbase.CellScanner;
import org.apache.hadoop.hbase.ipc.RpcServer.CallCleanup;
import org.apache.hadoop.hbase.io.ByteBuffAllocator;
import org.apache.hbase.thirdparty.com.google.protobuf.BlockingService;
import org.apache.hbase.thirdparty.com.google.protobuf.Descriptors.MethodDescriptor;
import org.apache.hbase.thirdparty.com.google.protobuf.Message;
import org.apache.hadoop.hbase.shaded.protobuf.generated.RPCProtos.RequestHeader;

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

  /** Sends the response from the handler thread straight into the endpoint. */
  @Override
  public synchronized void sendResponseIfReady() {
    this.param = null;
    connection.doRespond(this);
  }
}
