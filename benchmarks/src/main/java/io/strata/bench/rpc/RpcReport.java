package io.strata.bench.rpc;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.strata.bench.common.Charts;
import io.strata.bench.monitor.BenchMonitor;
import java.awt.Color;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import org.knowm.xchart.XYChart;

/**
 * The report of {@code strata bench rpc}: report.md with the paper's figures beside this run's
 * (their InfiniBand QDR hardware against this machine's in-process loopback transport: the ratios
 * compare, the microseconds do not), and the plots latency-vs-size.png (Figures 5/6),
 * stages.png (Figure 7) and threads.png (Figure 8). Stateless.
 */
final class RpcReport {
  private static final Color NETTY = new Color(200, 90, 40);
  private static final Color RDMA = new Color(40, 100, 190);
  private static final Color NETTY_PUT = new Color(235, 160, 110);
  private static final Color RDMA_PUT = new Color(120, 170, 230);
  /** Stage names in the order of a call, with the colours of their bars. */
  private static final String[] STAGES = { "client_serialization_us",
    "send_and_transport_to_server_us", "client_to_server_us", "server_decode_us",
    "queue_wait_us", "handler_us", "response_serialization_us", "transport_back_us",
    "client_processing_us", "server_to_client_us" };
  private static final List<String> SERVER_STAGES = List.of("server_decode_us", "queue_wait_us",
    "handler_us", "response_serialization_us");
  private static final Color[] STAGE_COLORS = { new Color(110, 160, 220),
    new Color(60, 110, 180), new Color(150, 150, 150), new Color(250, 190, 90),
    new Color(230, 120, 60), new Color(90, 170, 90), new Color(170, 110, 190),
    new Color(120, 90, 60), new Color(200, 200, 80), new Color(190, 190, 190) };

  private RpcReport() {
  }

  /** The console summary: the 1 KiB figures and the goals. */
  static String summary(RpcResult r) {
    StringBuilder b = new StringBuilder();
    String endpoint = "endpoint (" + r.run().transportOrLoopback() + ")";
    b.append(String.format(Locale.ROOT, "1 KiB, one thread: Get p50 netty %.1f us, " + endpoint
      + " %.1f us (%.2fx); Put p50 netty %.1f us, " + endpoint + " %.1f us (%.2fx)%n",
      r.netty().getUsP50(), r.rdma().getUsP50(), r.getP50Ratio(), r.netty().putUsP50(),
      r.rdma().putUsP50(), r.putP50Ratio()));
    for (RpcResult.Goal g : r.goals()) {
      b.append(String.format(Locale.ROOT, "goal %-42s %6.2f (%s) %s%n", g.goal(), g.value(),
        g.target(), g.met() ? "met" : "NOT met, held back by " + orUnknown(g.heldBackBy())));
    }
    return b.toString();
  }

  static void write(RpcResult r, File dir) throws IOException {
    Files.createDirectories(dir.toPath());
    plotSizes(r, new File(dir, "latency-vs-size.png"));
    plotStages(r, new File(dir, "stages.png"));
    plotThreads(r, new File(dir, "threads.png"));
    Files.writeString(new File(dir, "report.md").toPath(), markdown(r),
      StandardCharsets.UTF_8);
  }

  static String markdown(RpcResult r) {
    StringBuilder b = new StringBuilder();
    RpcResult.Run run = r.run();
    b.append("# RDMA RPC: Strata's hybrid RPC (endpoint on the ")
      .append(run.transportOrLoopback()).append(" transport) against the paper\n\n");
    b.append("Produced by `").append(run.command()).append("` (scale ")
      .append(run.scale()).append(", ").append(run.cellMs())
      .append(" ms per measurement after ").append(run.warmupMs())
      .append(" ms of warm-up, ").append(run.processors())
      .append(" processors, ").append(String.format(Locale.ROOT, "%.0f", run.seconds()))
      .append(" s in all).\n\n");
    b.append("**What compares.** The paper (Huang et al., \"High-Performance Design of HBase "
      + "with RDMA over InfiniBand\", IPDPS 2012) measured UCR over InfiniBand QDR against "
      + "sockets over 1 GigE, 10 GigE and IPoIB, client and RegionServer on separate nodes. "
      + "Here client, RegionServer and HDFS share one JVM on a machine with "
      + run.processors() + " processors, and the endpoint (`rdma` in "
      + "results.json) " + endpoint(run) + ". The sockets are loopback TCP. "
      + "Microseconds do not compare across the two; the ratios endpoint/sockets do. CPU per "
      + "call is the whole process's (client, server, polling threads).\n\n");

    b.append("## Goals\n\n| goal | this run | target | met |\n|---|---|---|---|\n");
    for (RpcResult.Goal g : r.goals()) {
      b.append(String.format(Locale.ROOT, "| %s | %.2f | %s | %s |%n", g.goal(), g.value(),
        g.target(), g.met() ? "yes" : "no — largest endpoint stage: "
          + orUnknown(g.heldBackBy())));
    }

    b.append("\n## Latency per value size (paper Figures 5 and 6)\n\n");
    b.append("One record per size in the RegionServer's memstore, one client thread. Values "
      + "above the eager threshold (`strata.rdma.eager.threshold`, 8 KiB) go by rendezvous.\n\n");
    b.append("| value | Get p50 netty | Get p50 endpoint | ratio | Get p99 netty | Get p99 "
      + "endpoint | Put p50 netty | Put p50 endpoint | ratio | Put p99 netty | Put p99 endpoint "
      + "|\n|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (RpcResult.SizeRow row : r.sizes()) {
      RpcResult.SizeFigures n = row.netty();
      RpcResult.SizeFigures e = row.rdma();
      b.append(String.format(Locale.ROOT, "| %s | %.1f µs | %.1f µs | %.2f× | %.1f µs | %.1f µs "
        + "| %.1f µs | %.1f µs | %.2f× | %.1f µs | %.1f µs |%n", size(row.bytes()),
        n.getUsP50(), e.getUsP50(), row.getP50Ratio(), n.getUsP99(), e.getUsP99(), n.putUsP50(),
        e.putUsP50(), row.putP50Ratio(), n.putUsP99(), e.putUsP99()));
    }
    b.append("\nPaper, 1 KB: Get 43.7 µs over UCR-IB vs 185.8 µs IPoIB and 214.4 µs 1 GigE "
      + "(0.24× IPoIB, Cluster B); Put 86.8 µs vs 191.4 µs 10 GigE, 204.4 µs IPoIB, 269.1 µs "
      + "1 GigE (0.45× 10 GigE, Cluster A). Every endpoint call above went over the endpoint: "
      + "see `gets_over_endpoint` and `puts_over_endpoint` per size in results.json.\n\n"
      + "![latency vs size](latency-vs-size.png)\n\n");

    b.append("## Where a 1 KiB call's time goes (paper Figure 7)\n\n");
    b.append("Mean µs per stage over calls timed one at a time with the stamps on, the slowest "
      + "tenth left out (a GC pause or a preempted thread would otherwise stretch every stage's "
      + "mean; the median total and the mean total over all calls are the last rows) "
      + "(`io.strata.hbase.rdma.RpcStages`: client, endpoint receiver, server connection, "
      + "handler and response; one volatile read per point when off). HBase's Netty client "
      + "takes no stamps inside, so on sockets client serialization, send and transport to the "
      + "server are one stage (client→server), as are transport back and client processing "
      + "(server→client). With the loopback transport's inline delivery, \"transport\" is the "
      + "copy into the peer's receive buffer and the hand-over to its receiver.\n\n");
    b.append("| stage | Get netty | Get endpoint | Put netty | Put endpoint |\n"
      + "|---|---|---|---|---|\n");
    List<String> rows = new ArrayList<>(List.of(STAGES));
    rows.add("total_us");
    rows.add("total_us_p50");
    rows.add("total_us_mean_all");
    List<Map<String, Double>> paths = List.of(r.stages().netty().byName(),
      r.stages().rdma().byName(), r.stagesPut().netty().byName(), r.stagesPut().rdma().byName());
    for (String st : rows) {
      b.append("| ").append(st.replace("_us", "").replace('_', ' ')
        .replace("total p50", "total, median of all calls")
        .replace("total mean all", "total, mean of all calls"));
      for (Map<String, Double> path : paths) {
        b.append(" | ").append(us(path.get(st)));
      }
      b.append(" |\n");
    }
    RpcResult.PerPath<RpcResult.Wire> w = r.wireBytes();
    b.append(String.format(Locale.ROOT, "%nBytes on the wire per call (RPC framing: length, "
      + "header, param, cell block; without TCP/IP or transport headers): Get %d B request / %d "
      + "B response over sockets, %d / %d over the endpoint (which sends no length prefix); Put "
      + "%d / %d over sockets, %d / %d over the endpoint. Paper: Get 136 / 1091 B, Put 1296 / "
      + "85 B. Paper's communication time for a 1 KB Put: 8.9 µs over UCR vs 57.1 µs 10 GigE, "
      + "78.5 µs IPoIB, 168.3 µs 1 GigE.%n%n",
      w.netty().getRequest(), w.netty().getResponse(), w.rdma().getRequest(),
      w.rdma().getResponse(), w.netty().putRequest(), w.netty().putResponse(),
      w.rdma().putRequest(), w.rdma().putResponse()));
    RpcResult.PerPath<RpcResult.Instrumentation> c = r.instrumentation();
    b.append(String.format(Locale.ROOT, "Cost of taking the stamps (1 KiB Get p50, recording "
      + "off / on, alternating blocks): sockets %.1f / %.1f µs, endpoint %.1f / %.1f µs. Off, "
      + "each point is one volatile read; a RegionServer without `strata.rpc.server.stages` "
      + "runs HBase's own socket connection and call classes.%n%n![stages](stages.png)%n%n",
      c.netty().offUs(), c.netty().onUs(), c.rdma().offUs(), c.rdma().onUs()));

    b.append("## Many client threads on one record (paper Figure 8)\n\n");
    b.append("| threads | Gets/s netty | Gets/s endpoint | ratio | mean netty | mean endpoint "
      + "| p99 netty | p99 endpoint | CPU/Get netty | CPU/Get endpoint | ratio | Puts/s netty | "
      + "Puts/s endpoint | CPU/Put netty | CPU/Put endpoint | endpoint callers parked | "
      + "endpoint calls that woke a handler |\n"
      + "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (RpcResult.ThreadRow row : r.threads()) {
      RpcResult.ThreadFigures n = row.netty();
      RpcResult.ThreadFigures e = row.rdma();
      b.append(String.format(Locale.ROOT, "| %d | %.0f | %.0f | %.2f× | %.1f µs | %.1f µs | "
        + "%.1f µs | %.1f µs | %.1f µs | %.1f µs | %.2f× | %.0f | %.0f | %.1f µs | %.1f µs | "
        + "%.0f %% | %.0f %% |%n",
        row.threads(), n.getOpsPerS(), e.getOpsPerS(), row.getOpsRatio(), n.getUsMean(),
        e.getUsMean(), n.getUsP99(), e.getUsP99(), n.cpuUsPerGet(), e.cpuUsPerGet(),
        row.cpuPerGetRatio(), n.putOpsPerS(), e.putOpsPerS(), n.cpuUsPerPut(), e.cpuUsPerPut(),
        100 * orZero(e.callersParkedShare()), 100 * orZero(e.handlersWokenShare())));
    }
    b.append("\nPaper: 16 clients on one RegionServer, 53.4 K Gets/s over UCR, 27 % more than "
      + "10 GigE (1.27×); 8 clients' Get latency 26 % lower than 10 GigE. Threads beyond the "
      + "cores: at most `strata.rdma.client.pollers` client threads poll at once (half the "
      + "cores), the others park, and a poller yields every 8th empty look.\n\n"
      + "![threads](threads.png)\n\n");

    RpcResult.Async a = r.async();
    b.append("## AsyncTable\n\n");
    b.append(String.format(Locale.ROOT, "One thread, `AsyncTable.get(get).join()`, 1 KiB: p50 "
      + "%.1f µs over sockets, %.1f µs over the endpoint (%.2f×), %.1f µs over the endpoint with "
      + "`strata.rdma.client.async.poll=false` (the future completed on the delivering thread "
      + "and the joining thread woken up). p99: %.1f / %.1f / %.1f µs.%n",
      a.netty().getUsP50(), a.rdma().getUsP50(), a.getP50Ratio(), a.rdmaUnpolled().getUsP50(),
      a.netty().getUsP99(), a.rdma().getUsP99(), a.rdmaUnpolled().getUsP99()));
    if (r.monitoring() != null) {
      b.append(BenchMonitor.markdown(
        JsonNodeFactory.instance.objectNode().set(BenchMonitor.SECTION, r.monitoring())));
    }
    return b.toString();
  }

  /** What the endpoint path was: the in-process loopback unless the run was on verbs. */
  static String endpoint(RpcResult.Run run) {
    String t = run.transportOrLoopback();
    return "loopback".equals(t) ? "is the in-process loopback transport, not RDMA hardware (no "
      + "NIC; the verbs transport's figures come from the SoftRoCE guest, "
      + "`benchmarks/results/rpc-verbs/`)" : "is the " + t + " transport";
  }

  private static String us(Double v) {
    return v == null ? "—" : String.format(Locale.ROOT, "%.1f", v);
  }

  private static String orUnknown(String s) {
    return s == null ? "?" : s;
  }

  private static double orZero(Double d) {
    return d == null ? 0 : d;
  }

  private static String size(int bytes) {
    return bytes >= 1024 && bytes % 1024 == 0 ? (bytes / 1024) + " KiB" : bytes + " B";
  }

  private static void plotSizes(RpcResult r, File png) throws IOException {
    Charts.write(fourSeries(Charts.line("Get and Put p50 latency per value size (one thread, 1 "
      + "record)", "value size, log2 bytes (0 = 1 B, 10 = 1 KiB, 16 = 64 KiB)", "µs"),
      r.sizes(), row -> Math.log(Math.max(1, row.bytes())) / Math.log(2),
      List.<Function<RpcResult.SizeRow, RpcResult.SizeFigures>>of(RpcResult.SizeRow::netty,
        RpcResult.SizeRow::rdma),
      List.<ToDoubleFunction<RpcResult.SizeFigures>>of(RpcResult.SizeFigures::getUsP50,
        RpcResult.SizeFigures::putUsP50),
      new String[] { "Get", "Put" }), png);
  }

  private static void plotStages(RpcResult r, File png) throws IOException {
    List<String> categories = List.of("Get netty", "Get endpoint", "Put netty", "Put endpoint");
    List<Map<String, Double>> paths = List.of(r.stages().netty().byName(),
      r.stages().rdma().byName(), r.stagesPut().netty().byName(), r.stagesPut().rdma().byName());
    List<Charts.BarSeries> series = new ArrayList<>();
    for (int i = 0; i < STAGES.length; i++) {
      String st = STAGES[i];
      double[] v = new double[paths.size()];
      for (int p = 0; p < paths.size(); p++) {
        // A split path shows its client-side parts, the other their combined stages; both show
        // the server's stages. Never a part and its combination together.
        boolean combined = st.equals("client_to_server_us") || st.equals("server_to_client_us");
        boolean split = paths.get(p).containsKey("client_serialization_us");
        boolean shown = split ? !combined : combined || SERVER_STAGES.contains(st);
        v[p] = shown ? Math.max(0, paths.get(p).getOrDefault(st, 0.0)) : 0;
      }
      series.add(new Charts.BarSeries(st.replace("_us", "").replace('_', ' '), STAGE_COLORS[i],
        v));
    }
    Charts.write(Charts.bars("Where a 1 KiB call's time goes (µs, mean)", "µs", categories,
      series, true, t -> String.format(Locale.ROOT, "%.1f µs", t)), png);
  }

  private static void plotThreads(RpcResult r, File png) throws IOException {
    Charts.write(fourSeries(Charts.line("Throughput vs client threads, one RegionServer, one 1 "
      + "KiB record", "client threads", "calls per second"), r.threads(),
      RpcResult.ThreadRow::threads,
      List.<Function<RpcResult.ThreadRow, RpcResult.ThreadFigures>>of(RpcResult.ThreadRow::netty,
        RpcResult.ThreadRow::rdma),
      List.<ToDoubleFunction<RpcResult.ThreadFigures>>of(RpcResult.ThreadFigures::getOpsPerS,
        RpcResult.ThreadFigures::putOpsPerS),
      new String[] { "Gets/s", "Puts/s" }), png);
  }

  /** Two figures of each row, over sockets and over the endpoint: four series on one chart. */
  private static <R, F> XYChart fourSeries(XYChart chart, List<R> rows, ToDoubleFunction<R> x,
    List<Function<R, F>> paths, List<ToDoubleFunction<F>> fields, String[] names) {
    int n = rows.size();
    double[] xs = new double[n];
    for (int i = 0; i < n; i++) {
      xs[i] = x.applyAsDouble(rows.get(i));
    }
    Color[][] colors = { { NETTY, RDMA }, { NETTY_PUT, RDMA_PUT } };
    for (int f = 0; f < fields.size(); f++) {
      for (int p = 0; p < paths.size(); p++) {
        double[] ys = new double[n];
        for (int i = 0; i < n; i++) {
          ys[i] = fields.get(f).applyAsDouble(paths.get(p).apply(rows.get(i)));
        }
        Charts.series(chart, names[f] + (p == 0 ? " netty" : " endpoint"), colors[f][p], xs,
          ys);
      }
    }
    return chart;
  }
}
