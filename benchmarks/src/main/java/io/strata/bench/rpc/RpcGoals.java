package io.strata.bench.rpc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
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

  /** Adds {@code goals}: a list of {goal, value, target, met, held_back_by}. */
  static void evaluate(ObjectNode doc) {
    ArrayNode goals = doc.putArray("goals");
    String getStage = largestStage(doc.path("stages").path("rdma"));
    String putStage = largestStage(doc.path("stages_put").path("rdma"));
    for (JsonNode row : doc.path("sizes")) {
      int bytes = row.path("bytes").asInt();
      double target = bytes <= 16384 ? 0.25 : 0.5;
      add(goals, "Get p50 endpoint/netty at " + bytes + " B", row.path("get_p50_ratio"), target,
        true, getStage);
      if (bytes == RpcBenchCluster.VALUE_BYTES) {
        add(goals, "Put p50 endpoint/netty at 1024 B", row.path("put_p50_ratio"), 0.5, true,
          putStage);
      }
    }
    for (JsonNode row : doc.path("threads")) {
      if (row.path("threads").asInt() == 8) {
        // Beyond one thread the calls' own stages are not what limits: the threads that cannot
        // poll (pollers are capped to leave cores to the work) park and are woken per call.
        JsonNode r = row.path("rdma");
        String wakeUps = String.format(Locale.ROOT, "wake-ups: %.0f %% of endpoint Gets' callers "
          + "parked for their answer, %.0f %% of their calls woke a handler",
          100 * r.path("callers_parked_share").asDouble(),
          100 * r.path("handlers_woken_share").asDouble());
        add(goals, "Gets/s endpoint/netty, 8 threads", row.path("get_ops_ratio"), 2.0, false,
          wakeUps);
        add(goals, "CPU per Get endpoint/netty, 8 threads", row.path("cpu_per_get_ratio"), 0.5,
          true, wakeUps);
      }
    }
    add(goals, "AsyncTable Get p50 endpoint/netty", doc.path("async").path("get_p50_ratio"), 0.25,
      true, getStage);
  }

  private static void add(ArrayNode goals, String name, JsonNode value, double target,
    boolean atMost, String stage) {
    if (value.isMissingNode()) {
      return;
    }
    ObjectNode g = goals.addObject();
    double v = value.asDouble();
    boolean met = atMost ? v <= target : v >= target;
    g.put("goal", name);
    g.put("value", v);
    g.put("target", (atMost ? "<= " : ">= ") + target);
    g.put("met", met);
    if (!met && stage != null) {
      g.put("held_back_by", stage);
    }
  }

  /** The endpoint path's largest stage, with its share of the call, e.g. "handler_us (41 %)". */
  static String largestStage(JsonNode stages) {
    double total = stages.path("total_us").asDouble();
    String best = null;
    double most = -1;
    for (Iterator<Map.Entry<String, JsonNode>> it = stages.fields(); it.hasNext();) {
      Map.Entry<String, JsonNode> e = it.next();
      String k = e.getKey();
      if (!k.endsWith("_us") || k.startsWith("total_us") || k.equals("client_to_server_us")
        || k.equals("server_to_client_us")) {
        continue;
      }
      if (e.getValue().asDouble() > most) {
        most = e.getValue().asDouble();
        best = k;
      }
    }
    if (best == null || total <= 0) {
      return null;
    }
    return String.format(Locale.ROOT, "%s (%.1f of %.1f us)", best, most, total);
  }
}
