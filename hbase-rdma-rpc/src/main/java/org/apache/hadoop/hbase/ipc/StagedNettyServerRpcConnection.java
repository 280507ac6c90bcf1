package org.apache.hadoop.hbase.ipc;

import java.io.IOException;
import java.net.InetAddress;
import org.apache.hadoop.hbase.CellScanner;
import org.apache.hadoop.hbase.ipc.RpcServer.CallCleanup;
import org.apache.hadoop.hbase.util.EnvironmentEdgeManager;
import org.apache.hbase.thirdparty.com.google.protobuf.BlockingService;
import org.apache.hbase.thirdparty.com.google.protobuf.Descriptors.MethodDescriptor;
import org.apache.hbase.thirdparty.com.google.protobuf.Message;
import org.apache.hbase.thirdparty.io.netty.buffer.ByteBuf;
import org.apache.hbase.thirdparty.io.netty.channel.Channel;
import org.apache.hadoop.hbase.shaded.protobuf.generated.RPCProtos.RequestHeader;

/**
 * HBase's Netty server connection whose Get and Mutate calls take {@link CallStamps} while a
 * benchmark records ({@code strata.rpc.server.stages}): the socket path's counterpart of the
 * endpoint's stamps, so that both paths are measured at the same points. Used only with that key
 * on. Confined to the connection's event loop, as its superclass.
 */
final class StagedNettyServerRpcConnection extends NettyServerRpcConnection {
  private long receivedAt;
  private int frameBytes;

  StagedNettyServerRpcConnection(NettyRpcServer rpcServer, Channel channel) {
    super(rpcServer, channel);
  }

  @Override
  void process(ByteBuf buf) throws IOException, InterruptedException {
    receivedAt = CallStamps.receivedNow();
    // The frame decoder took the 4-byte length off: it was on the wire too.
    frameBytes = Integer.BYTES + buf.readableBytes();
    try {
      super.process(buf);
    } finally {
      receivedAt = 0;
    }
  }

  @Override
  public NettyServerCall createCall(int id, BlockingService service, MethodDescriptor md,
    RequestHeader header, Message param, CellScanner cellScanner, long size,
    InetAddress remoteAddress, int timeout, CallCleanup reqCleanup) {
    CallStamps stamps =
      md == null ? null : CallStamps.of(md.getName(), receivedAt, frameBytes);
    if (stamps == null) {
      return super.createCall(id, service, md, header, param, cellScanner, size, remoteAddress,
        timeout, reqCleanup);
    }
    return new StagedCall(id, service, md, header, param, cellScanner, this, size, remoteAddress,
      EnvironmentEdgeManager.currentTime(), timeout, rpcServer.bbAllocator,
      rpcServer.cellBlockBuilder, reqCleanup, stamps);
  }

  /** A socket call that carries stamps. */
  private static final class StagedCall extends NettyServerCall implements CallStamps.Staged {
    private final CallStamps stamps;

    StagedCall(int id, BlockingService service, MethodDescriptor md, RequestHeader header,
      Message param, CellScanner cellScanner, NettyServerRpcConnection connection, long size,
      InetAddress remoteAddress, long receiveTime, int timeout,
      org.apache.hadoop.hbase.io.ByteBuffAllocator bbAllocator,
      CellBlockBuilder cellBlockBuilder, CallCleanup reqCleanup, CallStamps stamps) {
      super(id, service, md, header, param, cellScanner, connection, size, remoteAddress,
        receiveTime, timeout, bbAllocator, cellBlockBuilder, reqCleanup);
      this.stamps = stamps;
    }

    @Override
    public CallStamps stamps() {
      return stamps;
    }

    @Override
    public synchronized void sendResponseIfReady() throws IOException {
      stamps.publish(response);
      super.sendResponseIfReady();
    }
  }
}
