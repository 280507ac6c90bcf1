package org.apache.hadoop.hbase.ipc;

import io.strata.hbase.rdma.EndpointCall;
import io.strata.hbase.rdma.EndpointMessageTooLargeException;
import io.strata.hbase.rdma.HybridRpcKeys;
import io.strata.hbase.rdma.RdmaRpcMetrics;
import io.strata.hbase.rdma.ReadOnlyCalls;
import io.strata.rdma.transport.RdmaTransportKeys;
import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellScanner;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.MultiActionResultTooLarge;
import org.apache.hadoop.hbase.ipc.RpcServer.CallCleanup;
import org.apache.hadoop.hbase.io.ByteBuffAllocator;
import org.apache.hbase.thirdparty.com.google.protobuf.BlockingService;
import org.apache.hbase.thirdparty.com.google.protobuf.Descriptors.MethodDescriptor;
import org.apache.hbase.thirdparty.com.google.protobuf.Message;
import org.apache.hadoop.hbase.shaded.protobuf.ResponseConverter;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.Action;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.MultiRequest;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.MultiResponse;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.RegionAction;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.RegionActionResult;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.ResultOrException;
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

  /** Whether it was refused before running for a response the endpoint might not carry. */
  private boolean refusedUnbounded;

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
   * A Multi that writes and gets rows ({@link ReadOnlyCalls#writesAndGets}) whose response does
   * not fit the endpoint: its writes are applied and must be reported so, so the response is
   * built again with each Get's result replaced by {@link MultiActionResultTooLarge} (HBase's own
   * answer for results over a size limit, which its client retries at once for those actions
   * alone: a Multi of Gets, which the client re-sends over its socket when it is too large for
   * the endpoint). Every other response is HBase's.
   */
  @Override
  public synchronized void setResponse(Message m, CellScanner cells, Throwable t,
    String errorMsg) {
    if (
      t != null || isError || md == null || !(m instanceof MultiResponse)
        || !ReadOnlyCalls.writesAndGets(md.getName(), param)
    ) {
      super.setResponse(m, cells, t, errorMsg);
      return;
    }
    List<Cell> all = new ArrayList<>();
    try {
      while (cells != null && cells.advance()) {
        all.add(cells.current());
      }
    } catch (IOException e) {
      super.setResponse(null, null, e, "reading the cells of a Multi response: " + e);
      return;
    }
    super.setResponse(m, CellUtil.createCellScanner(all), null, null);
    int limit = connection.maxMessageSize();
    if (response == null || response.size() <= limit) {
      return;
    }
    List<Cell> kept = new ArrayList<>();
    MultiResponse trimmed = withoutGetResults((MultiRequest) param, (MultiResponse) m, all, kept,
      "a Get's result in a Multi of " + response.size() + " bytes that exceeds the RDMA "
        + "endpoint's " + limit + "-byte message limit (" + RdmaTransportKeys.MAX_MESSAGE
        + "): fetched again; the Multi's writes were applied");
    if (cellBlockStream != null) {
      cellBlockStream.releaseResources();
      cellBlockStream = null;
    }
    RdmaRpcMetrics.counter("server.multi.get.results.deferred").increment();
    super.setResponse(trimmed, CellUtil.createCellScanner(kept), null, null);
  }

  /**
   * {@code response} with the results of {@code request}'s Get actions replaced by
   * {@link MultiActionResultTooLarge}; {@code kept} receives the cells of the other results, in
   * order. Results and cells pair up as HBase lays them out: region action by region action,
   * each result followed by its associated cells in the cell block.
   */
  static MultiResponse withoutGetResults(MultiRequest request, MultiResponse response,
    List<Cell> cells, List<Cell> kept, String why) {
    MultiResponse.Builder out = response.toBuilder().clearRegionActionResult();
    int next = 0;
    for (int i = 0; i < response.getRegionActionResultCount(); i++) {
      RegionActionResult rar = response.getRegionActionResult(i);
      Set<Integer> gets = new HashSet<>();
      if (i < request.getRegionActionCount()) {
        RegionAction ra = request.getRegionAction(i);
        for (Action a : ra.getActionList()) {
          if (a.hasGet()) {
            gets.add(a.getIndex());
          }
        }
      }
      RegionActionResult.Builder b = rar.toBuilder().clearResultOrException();
      for (ResultOrException roe : rar.getResultOrExceptionList()) {
        int count = roe.hasResult() ? roe.getResult().getAssociatedCellCount() : 0;
        boolean get = roe.hasIndex() && gets.contains(roe.getIndex()) && roe.hasResult();
        for (int c = 0; c < count && next < cells.size(); c++, next++) {
          if (!get) {
            kept.add(cells.get(next));
          }
        }
        if (get) {
          b.addResultOrException(ResultOrException.newBuilder().setIndex(roe.getIndex())
            .setException(ResponseConverter.buildException(new MultiActionResultTooLarge(why))));
        } else {
          b.addResultOrException(roe);
        }
      }
      out.addRegionActionResult(b);
    }
    return out.build();
  }

  /**
   * Refuses this call before anything of it runs: it writes, and its response may carry cells it
   * did not send ({@link ReadOnlyCalls#writesWithUnboundedResponse}), so it could turn out too
   * large for the endpoint only after its mutations were applied. The answer is the
   * {@link EndpointMessageTooLargeException} the client re-sends such a call over its socket for,
   * marked as a replaced response.
   */
  EndpointMessageTooLargeException refuseUnbounded() {
    refusedUnbounded = true;
    RdmaRpcMetrics.counter("server.calls.refused.unbounded").increment();
    return new EndpointMessageTooLargeException(md.getName() + " call " + id + " writes and its "
      + "response may exceed the RDMA endpoint's " + connection.maxMessageSize() + "-byte message "
      + "limit (" + RdmaTransportKeys.MAX_MESSAGE + "): refused before running; the client "
      + "re-sends it over its socket");
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
      // A call that writes and may answer with more than it sent was refused before running
      // (refuseUnbounded), so one that reaches here too large only reads.
      boolean readOnly = ReadOnlyCalls.onlyReads(md.getName(), param);
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
    if (refusedUnbounded && isError) {
      replacedTooLarge = response != null;
    }
    if (stamps != null) {
      stamps.publish(response);
    }
    this.param = null;
    connection.doRespond(this);
  }
}
