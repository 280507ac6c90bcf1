package io.strata.bench.rpc;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A whole rpc Result with every part present, made up, for tests of the JSON and the report. */
final class RpcResults {
  private RpcResults() {
  }

  static RpcResult sample(int processors, String transport) {
    RpcResult.SizeFigures n = new RpcResult.SizeFigures(40.5, 90.1, 60.2, 120.3, 1000, 900, 0, 0);
    RpcResult.SizeFigures e = new RpcResult.SizeFigures(20.5, 50.1, 30.2, 70.3, 2000, 1800, 2000,
      1800);
    List<RpcResult.SizeRow> sizes = List.of(new RpcResult.SizeRow(1, n, e, 0.5, 0.5),
      new RpcResult.SizeRow(1024, n, e, 0.51, 0.52));
    RpcResult.OneKib netty = new RpcResult.OneKib(40.5, 90.1, 60.2, 120.3, 80.0, 95.0, 4000.0,
      5000.0, 1000, 900, null, null);
    RpcResult.OneKib rdma = new RpcResult.OneKib(20.5, 50.1, 30.2, 70.3, 40.0, 45.0, 2000.0,
      2500.0, 2000, 1800, null, null).overEndpoint(2000, 1800);
    RpcResult.PerPath<RpcResult.Stages> stages = new RpcResult.PerPath<>(stages(false),
      stages(true));
    RpcResult.PerPath<RpcResult.Wire> wire = new RpcResult.PerPath<>(
      new RpcResult.Wire(130, 1100, 1200, 90), new RpcResult.Wire(126, 1096, 1196, 86));
    RpcResult.PerPath<RpcResult.Instrumentation> cost = new RpcResult.PerPath<>(
      new RpcResult.Instrumentation(40.0, 41.0), new RpcResult.Instrumentation(20.0, 20.5));
    RpcResult.ThreadFigures tn = new RpcResult.ThreadFigures(20000.0, 50.5, 45.5, 150.5, 90.5,
      15000.5, 66.5, 200.5, 120.5, 0, null, null);
    RpcResult.ThreadFigures te = new RpcResult.ThreadFigures(30000.0, 33.5, 30.5, 100.5, 60.5,
      22000.5, 45.5, 150.5, 80.5, 30000, 0.25, 0.5);
    List<RpcResult.ThreadRow> threads = List.of(new RpcResult.ThreadRow(1, tn, te, 1.5, 0.67, 1.47),
      new RpcResult.ThreadRow(8, tn, te, 1.5, 0.67, 1.47));
    RpcResult.AsyncFigures an = new RpcResult.AsyncFigures(45.5, 100.5, 90.5, 1000, 0);
    RpcResult.AsyncFigures ae = new RpcResult.AsyncFigures(22.5, 60.5, 50.5, 2000, 2000);
    RpcResult.Async async = new RpcResult.Async(an, ae, ae, 0.49);
    RpcResult r = RpcResult.measured(sizes, netty, rdma, 0.51, 0.5, stages, stages, wire, cost,
      threads, async);
    RpcResult.Run run = new RpcResult.Run("quick", 300, 150, 500, transport, "inline", 50, 100,
      processors, Map.of(), 61.5, "strata bench rpc --scale quick");
    return r.finished(null, JsonNodeFactory.instance.objectNode().put("interval_ms", 1000), run,
      RpcGoals.evaluate(r));
  }

  /** A breakdown as RpcStageBreakdown makes it: split stages only on the endpoint path. */
  static RpcResult.Stages stages(boolean split) {
    Map<String, Double> m = new LinkedHashMap<>();
    if (split) {
      m.put("client_serialization_us", 2.5);
      m.put("send_and_transport_to_server_us", 3.5);
    }
    m.put("server_decode_us", 1.5);
    m.put("queue_wait_us", 4.5);
    m.put("handler_us", 9.5);
    m.put("response_serialization_us", 1.5);
    if (split) {
      m.put("transport_back_us", 2.5);
      m.put("client_processing_us", 1.5);
    }
    m.put("client_to_server_us", 6.0);
    m.put("server_to_client_us", 4.0);
    m.put("total_us", 27.0);
    m.put("total_us_p50", 26.0);
    m.put("total_us_mean_all", 29.0);
    return RpcResult.Stages.of(new RpcStageBreakdown.Breakdown(m, 450, 3, 126, 1096));
  }
}
