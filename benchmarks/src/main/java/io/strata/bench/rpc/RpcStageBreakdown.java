package io.strata.bench.rpc;

import io.strata.metrics.Latencies;
import io.strata.hbase.rdma.RpcStages;
import io.strata.hbase.rdma.RpcStages.Stamp;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.hbase.client.Table;

/**
 * Where one call's time goes (the RDMA HBase paper's Figure 7), from the timestamps the real
 * path takes ({@link RpcStages}): one thread makes calls one at a time with recording on and
 * reads the stamps after each; the means of the stages over the calls whose stamps are all in
 * order, the slowest tenth of them left out (the typical call; the mean over all and the median
 * total are reported beside). The socket path has no client-side stamps inside HBase's Netty client, so its client
 * serialization, send and transport to the server are one stage ({@code client_to_server}), as
 * are its transport back and client processing ({@code server_to_client}); the endpoint path has
 * both split and their sums too. Not thread-safe: one measuring thread.
 */
final class RpcStageBreakdown {
  /** A stage: from one stamp to the next. */
  private record Stage(String name, Stamp from, Stamp to) {
  }

  private static final Stage[] SPLIT = {
    new Stage("client_serialization_us", Stamp.CALL_START, Stamp.REQUEST_ENCODED),
    new Stage("send_and_transport_to_server_us", Stamp.REQUEST_ENCODED, Stamp.SERVER_RECEIVED),
    new Stage("server_decode_us", Stamp.SERVER_RECEIVED, Stamp.SERVER_DECODED),
    new Stage("queue_wait_us", Stamp.SERVER_DECODED, Stamp.HANDLER_START),
    new Stage("handler_us", Stamp.HANDLER_START, Stamp.HANDLER_END),
    new Stage("response_serialization_us", Stamp.HANDLER_END, Stamp.RESPONSE_ENCODED),
    new Stage("transport_back_us", Stamp.RESPONSE_ENCODED, Stamp.RESPONSE_RECEIVED),
    new Stage("client_processing_us", Stamp.RESPONSE_RECEIVED, Stamp.CALL_END) };
  private static final Stage[] COMBINED = {
    new Stage("client_to_server_us", Stamp.CALL_START, Stamp.SERVER_RECEIVED),
    new Stage("server_to_client_us", Stamp.RESPONSE_ENCODED, Stamp.CALL_END),
    new Stage("total_us", Stamp.CALL_START, Stamp.CALL_END) };
  /** The stamps every path takes, in the order they must come. */
  private static final Stamp[] SERVER_PATH = { Stamp.CALL_START, Stamp.SERVER_RECEIVED,
    Stamp.SERVER_DECODED, Stamp.HANDLER_START, Stamp.HANDLER_END, Stamp.RESPONSE_ENCODED,
    Stamp.CALL_END };

  private RpcStageBreakdown() {
  }

  /** The stages' means (µs), the calls they are over and the last call's bytes on the wire. */
  record Breakdown(Map<String, Double> stages, int calls, int rejected, int requestBytes,
    int responseBytes) {
  }

  /**
   * Makes {@code calls} calls with recording on; {@code split}: the path stamps the client side
   * too (the endpoint), so its client stages are split.
   */
  static Breakdown measure(Table table, RpcMeasure.Call call, int calls, boolean split)
    throws Exception {
    // Per call: the split stages, then the combined ones (the last is the total).
    double[][] rows = new double[calls][SPLIT.length + COMBINED.length];
    int good = 0;
    int rejected = 0;
    int requestBytes = 0;
    int responseBytes = 0;
    RpcStages.record(true);
    try {
      for (int i = 0; i < calls; i++) {
        RpcStages.clear();
        RpcStages.stamp(Stamp.CALL_START);
        call.run(table);
        RpcStages.stamp(Stamp.CALL_END);
        long[] s = RpcStages.snapshot();
        if (!inOrder(s, split)) {
          rejected++; // a background call's stamps, or a path that fell back to sockets
          continue;
        }
        double[] row = rows[good++];
        for (int k = 0; k < SPLIT.length; k++) {
          if (split || serverSide(SPLIT[k])) {
            row[k] = s[SPLIT[k].to.ordinal()] - s[SPLIT[k].from.ordinal()];
          }
        }
        for (int k = 0; k < COMBINED.length; k++) {
          row[SPLIT.length + k] = s[COMBINED[k].to.ordinal()] - s[COMBINED[k].from.ordinal()];
        }
        requestBytes = RpcStages.requestBytes();
        responseBytes = RpcStages.responseBytes();
      }
    } finally {
      RpcStages.record(false);
    }
    Map<String, Double> stages = new LinkedHashMap<>();
    if (good > 0) {
      // The typical call: the slowest tenth (a GC pause, a preempted thread) left out, so that
      // the means add up to a call like most calls rather than to one stretched by outliers.
      int total = SPLIT.length + COMBINED.length - 1;
      double[][] kept = Arrays.copyOf(rows, good);
      Arrays.sort(kept, Comparator.comparingDouble(r -> r[total]));
      int n = Math.max(1, (int) Math.ceil(good * 0.9));
      double[] sums = new double[total + 1];
      for (int i = 0; i < n; i++) {
        for (int k = 0; k <= total; k++) {
          sums[k] += kept[i][k];
        }
      }
      for (int k = 0; k < SPLIT.length; k++) {
        if (split || serverSide(SPLIT[k])) {
          stages.put(SPLIT[k].name, sums[k] / n / 1e3);
        }
      }
      for (int k = 0; k < COMBINED.length; k++) {
        stages.put(COMBINED[k].name, sums[SPLIT.length + k] / n / 1e3);
      }
      Latencies totals = new Latencies();
      for (int i = 0; i < good; i++) {
        totals.record(Math.round(kept[i][total]));
      }
      stages.put("total_us_p50", totals.percentile(50) / 1e3);
      stages.put("total_us_mean_all", mean(kept, good, total) / 1e3);
    }
    return new Breakdown(stages, good, rejected, requestBytes, responseBytes);
  }

  private static double mean(double[][] rows, int n, int k) {
    double sum = 0;
    for (int i = 0; i < n; i++) {
      sum += rows[i][k];
    }
    return sum / n;
  }

  /** A stage between two server stamps, which every path takes. */
  private static boolean serverSide(Stage st) {
    return st.from != Stamp.CALL_START && st.to != Stamp.CALL_END
      && st.from != Stamp.REQUEST_ENCODED && st.to != Stamp.RESPONSE_RECEIVED;
  }

  private static boolean inOrder(long[] s, boolean split) {
    long last = 0;
    for (Stamp p : SERVER_PATH) {
      long v = s[p.ordinal()];
      if (v == 0 || v < last) {
        return false;
      }
      last = v;
    }
    if (split) {
      long enc = s[Stamp.REQUEST_ENCODED.ordinal()];
      long rec = s[Stamp.RESPONSE_RECEIVED.ordinal()];
      return enc >= s[Stamp.CALL_START.ordinal()] && enc <= s[Stamp.SERVER_RECEIVED.ordinal()]
        && rec >= s[Stamp.RESPONSE_ENCODED.ordinal()] && rec <= s[Stamp.CALL_END.ordinal()];
    }
    return true;
  }
}
