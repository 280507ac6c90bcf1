package io.strata.bench.rpc;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The goals {@code strata bench rpc} is held to, checked against a run's results: Get p50 over
 * the endpoint at most 0.25× Netty's up to 16 KiB and 0.5× above, Put p50 at most 0.5× at 1 KiB,
 * with 8 client threads at least 2× Netty's Gets per second at no more than 0.5× its CPU per Get,
 * and {@code AsyncTable} Get p50 at most 0.25×. A goal not met names the stage of the endpoint
 * path that takes the most time (the stage breakdown's) for a latency goal, and for a many-thread
 * goal the share of endpoint calls whose caller parked or which woke a handler. Stateless.
 */
final class RpcGoals {
  private RpcGoals() {
  }

  /** The goals of a run's result: each {goal, value, target, met, held_back_by}. */
  static List<RpcResult.Goal> evaluate(RpcResult r) {
    List<RpcResult.Goal> goals = new ArrayList<>();
    String getStage = r.stages() == null ? null : largestStage(r.stages().rdma());
    String putStage = r.stagesPut() == null ? null : largestStage(r.stagesPut().rdma());
    for (RpcResult.SizeRow row : r.sizes()) {
      int bytes = row.bytes();
      double target = bytes <= 16384 ? 0.25 : 0.5;
      goals.add(goal("Get p50 endpoint/netty at " + bytes + " B", row.getP50Ratio(), target,
        true, getStage));
      if (bytes == RpcBenchCluster.VALUE_BYTES) {
        goals.add(goal("Put p50 endpoint/netty at 1024 B", row.putP50Ratio(), 0.5, true,
          putStage));
      }
    }
    for (RpcResult.ThreadRow row : r.threads()) {
      if (row.threads() == 8) {
        // Beyond one thread the calls' own stages are not what limits: the threads that cannot
        // poll (pollers are capped to leave cores to the work) park and are woken per call.
        RpcResult.ThreadFigures e = row.rdma();
        String wakeUps = String.format(Locale.ROOT, "wake-ups: %.0f %% of endpoint Gets' callers "
          + "parked for their answer, %.0f %% of their calls woke a handler",
          100 * orZero(e.callersParkedShare()), 100 * orZero(e.handlersWokenShare()));
        goals.add(goal("Gets/s endpoint/netty, 8 threads", row.getOpsRatio(), 2.0, false,
          wakeUps));
        goals.add(goal("CPU per Get endpoint/netty, 8 threads", row.cpuPerGetRatio(), 0.5, true,
          wakeUps));
      }
    }
    if (r.async() != null) {
      goals.add(goal("AsyncTable Get p50 endpoint/netty", r.async().getP50Ratio(), 0.25, true,
        getStage));
    }
    return goals;
  }

  private static RpcResult.Goal goal(String name, double v, double target, boolean atMost,
    String stage) {
    boolean met = atMost ? v <= target : v >= target;
    return new RpcResult.Goal(name, v, (atMost ? "<= " : ">= ") + target, met,
      met ? null : stage);
  }

  private static double orZero(Double d) {
    return d == null ? 0 : d;
  }

  /** The endpoint path's largest stage, with its share of the call, e.g. "handler_us (41 %)". */
  static String largestStage(RpcResult.Stages stages) {
    if (stages == null || stages.totalUs() == null) {
      return null;
    }
    double total = stages.totalUs();
    String best = null;
    double most = -1;
    for (Map.Entry<String, Double> e : stages.byName().entrySet()) {
      String k = e.getKey();
      if (!k.endsWith("_us") || k.startsWith("total_us") || k.equals("client_to_server_us")
        || k.equals("server_to_client_us")) {
        continue;
      }
      if (e.getValue() > most) {
        most = e.getValue();
        best = k;
      }
    }
    if (best == null || total <= 0) {
      return null;
    }
    return String.format(Locale.ROOT, "%s (%.1f of %.1f us)", best, most, total);
  }
}
