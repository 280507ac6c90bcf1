package io.strata.bench.rpc;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.strata.bench.monitor.BenchMonitor;
import io.strata.cli.CommandLines;
import io.strata.cli.JsonReports;
import io.strata.hbase.rdma.HybridRpcKeys;
import io.strata.hbase.rdma.RdmaRpcMetrics;
import io.strata.hbase.rdma.RpcStages;
import java.io.File;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.Option;
import org.apache.commons.cli.Options;
import org.apache.hadoop.hbase.client.AsyncTable;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;

/**
 * {@code strata bench rpc}: the RDMA HBase paper's micro-benchmarks (Huang et al., IPDPS 2012,
 * sections V-B and V-C) through the embedded tiered cluster, over HBase's Netty sockets and over
 * the hybrid RPC's endpoint on the loopback transport, against the same RegionServer in one run:
 * Get and Put latency per value size (Figures 5/6), where a 1 KiB call's time goes and its bytes
 * on the wire (Figure 7), 1–16 client threads on one record (Figure 8) with the process's CPU per
 * call, and {@code AsyncTable} Gets. Writes report.md, results.json and PNG plots to --out.
 */
public final class RpcBench {
  static final String NETTY = "netty";
  static final String RDMA = "rdma-loopback";
  static final String COMMAND = "strata bench rpc";
  private static final String HEADER = "Measures Gets and Puts through the embedded tiered "
    + "cluster (hybrid RPC server, loopback RDMA transport) with HBase's Netty client and with "
    + "the hybrid client, in one run: latency per value size, the stages of a 1 KiB call, 1-16 "
    + "client threads, AsyncTable Gets. Writes report.md, results.json and PNG plots to --out.\n\n";
  static final List<Integer> SIZES = List.of(1, 64, 1024, 4096, 16384, 65536);
  static final List<Integer> THREADS = List.of(1, 2, 4, 8, 16);

  private RpcBench() {
  }

  /** How long each part runs. */
  enum Scale {
    QUICK(300, 150, 500), FULL(3000, 1000, 5000);

    final long cellMs;
    final long warmupMs;
    final int stageCalls;

    Scale(long cellMs, long warmupMs, int stageCalls) {
      this.cellMs = cellMs;
      this.warmupMs = warmupMs;
      this.stageCalls = stageCalls;
    }

    String optionName() {
      return name().toLowerCase(Locale.ROOT);
    }

    static Scale parse(String s) {
      for (Scale v : values()) {
        if (v.optionName().equals(s)) {
          return v;
        }
      }
      throw new IllegalArgumentException("--scale is quick or full, not " + s);
    }
  }

  /** What a run does. */
  record Settings(Scale scale, List<Integer> sizes, List<Integer> threads, long cellMs,
    long warmupMs, int stageCalls, String delivery, long handlerPollUs, long clientPollUs,
    Map<String, String> hbase, long monitorMs) {
  }

  static Options options() {
    Options o = new Options();
    o.addOption(null, "scale", true, "quick (default, about a minute) or full (about 5 minutes)");
    o.addOption(null, "sizes", true, "value sizes in bytes, comma-separated (default "
      + join(SIZES) + "; 1024 is always measured)");
    o.addOption(null, "threads", true, "client thread counts, comma-separated (default "
      + join(THREADS) + ")");
    o.addOption(null, "cell-ms", true, "milliseconds each measurement runs (quick 300, full 3000)");
    o.addOption(null, "warmup-ms", true, "milliseconds of warm-up before each (quick 150, full "
      + "1000)");
    o.addOption(null, "stage-calls", true, "calls timed stage by stage per path and operation "
      + "(quick 500, full 5000)");
    BenchMonitor.addOption(o, true);
    o.addOption(null, "out", true, "report directory (default $STRATA_WORK/bench/rpc/report-SCALE)");
    o.addOption(null, "json", true, "also write the results JSON to this file");
    o.addOption(null, "report-from", true, "measure nothing: write report.md and the plots to "
      + "--out from this results.json of an earlier run");
    o.addOption(null, "loopback-delivery", true, "loopback transport delivery: inline (default, "
      + "completions on the sending thread) or poller (a completion thread per transport)");
    o.addOption(null, "handler-poll-us", true, "microseconds idle RegionServer handlers poll "
      + "their call queue (strata.rpc.handler.poll.us, default 50); 0: HBase's own scheduler");
    o.addOption(null, "client-poll-us", true, "microseconds the hybrid client polls for an "
      + "endpoint call's response (strata.rdma.client.poll.us, default 100); 0: it parks at once");
    o.addOption(Option.builder().longOpt("hbase").hasArg().argName("KEY=VALUE")
      .desc("an HBase or Strata key of the cluster and its clients (repeatable), e.g. "
        + "strata.rdma.client.pollers=2").build());
    o.addOption(null, "work-dir", true,
      "cluster data (default $STRATA_WORK/bench/rpc/work, STRATA_WORK defaulting to .strata-work)");
    o.addOption("h", "help", false, "this text");
    return o;
  }

  public static void main(String[] args) {
    CommandLines.runAndHalt(COMMAND, () -> run(args, System.out));
  }

  static int run(String[] args, PrintStream out) throws Exception {
    CommandLine cl;
    Settings settings;
    try {
      cl = CommandLines.parse(COMMAND, COMMAND + " [options]", HEADER, options(), args);
      Scale scale = Scale.parse(cl.getOptionValue("scale", "quick"));
      List<Integer> sizes = CommandLines.wholeNumbers(cl, "sizes", SIZES, 1, 1 << 20);
      if (!sizes.contains(RpcBenchCluster.VALUE_BYTES)) {
        sizes = new ArrayList<>(new TreeSet<>(concat(sizes, RpcBenchCluster.VALUE_BYTES)));
      }
      String delivery = cl.getOptionValue("loopback-delivery", "inline");
      if (!delivery.equals("inline") && !delivery.equals("poller")) {
        throw new IllegalArgumentException("--loopback-delivery is inline or poller, not "
          + delivery);
      }
      settings = new Settings(scale, sizes,
        CommandLines.wholeNumbers(cl, "threads", THREADS, 1, 256),
        CommandLines.wholeNumber(cl, "cell-ms", scale.cellMs, 10),
        CommandLines.wholeNumber(cl, "warmup-ms", scale.warmupMs, 0),
        (int) CommandLines.wholeNumber(cl, "stage-calls", scale.stageCalls, 10), delivery,
        CommandLines.wholeNumber(cl, "handler-poll-us", HybridRpcKeys.Handler.POLL_US_DEFAULT, 0),
        CommandLines.wholeNumber(cl, "client-poll-us", HybridRpcKeys.Client.POLL_US_DEFAULT, 0),
        keyValues(cl.getOptionValues("hbase")), BenchMonitor.intervalMs(cl));
    } catch (CommandLines.Exit e) {
      return e.code();
    } catch (IllegalArgumentException e) {
      System.err.println(COMMAND + ": " + e.getMessage());
      return 2;
    }
    File base = CommandLines.workDir("bench/rpc");
    File outDir = new File(cl.getOptionValue("out",
      new File(base, "report-" + settings.scale.optionName()).getPath()));
    if (cl.hasOption("report-from")) {
      File from = new File(cl.getOptionValue("report-from"));
      if (!from.isFile()) {
        System.err.println(COMMAND + ": --report-from " + from + ": no such file");
        return 2;
      }
      ObjectNode earlier = (ObjectNode) new ObjectMapper().readTree(from);
      RpcReport.write(earlier, outDir);
      out.println("Report and plots of " + from + " in " + outDir);
      return 0;
    }
    RpcBenchCluster.delivery(settings.delivery);
    RpcBenchCluster.handlerPollUs(settings.handlerPollUs);
    RpcBenchCluster.clientPollUs(settings.clientPollUs);
    // The monitor's keys, unless --hbase sets them.
    Map<String, String> clusterKeys = new java.util.LinkedHashMap<>(
      BenchMonitor.hbaseKeys(settings.monitorMs));
    clusterKeys.putAll(settings.hbase);
    RpcBenchCluster.hbase(clusterKeys);
    RpcBenchCluster.workDir(new File(cl.getOptionValue("work-dir",
      new File(base, "work").getPath())));
    long started = System.nanoTime();
    ObjectNode doc;
    try (BenchMonitor monitor = BenchMonitor.start(settings.monitorMs, true)) {
      try {
        monitor.phase("start cluster");
        RpcBenchCluster cluster = RpcBenchCluster.start(settings.sizes);
        monitor.follow(cluster.connection(NETTY));
        doc = measure(cluster, settings, monitor, out);
      } finally {
        monitor.follow(null);
        RpcBenchCluster.shutdown();
      }
      monitor.writeIn(doc, outDir, COMMAND, out);
    }
    ObjectNode run = doc.putObject("run");
    run.put("scale", settings.scale.optionName());
    run.put("cell_ms", settings.cellMs);
    run.put("warmup_ms", settings.warmupMs);
    run.put("stage_calls", settings.stageCalls);
    run.put("transport", RpcBenchCluster.TRANSPORT);
    run.put("loopback_delivery", settings.delivery);
    run.put("handler_poll_us", settings.handlerPollUs);
    run.put("client_poll_us", settings.clientPollUs);
    run.put("processors", Runtime.getRuntime().availableProcessors());
    ObjectNode keys = run.putObject("hbase");
    settings.hbase.forEach(keys::put);
    run.put("seconds", (System.nanoTime() - started) / 1e9);
    run.put("command", COMMAND + " " + String.join(" ", args));
    RpcGoals.evaluate(doc);
    RpcReport.write(doc, outDir);
    JsonReports.write(new File(outDir, "results.json"), doc);
    out.println();
    out.print(RpcReport.summary(doc));
    out.println("Report, results.json and plots in " + outDir);
    if (cl.hasOption("json")) {
      File file = new File(cl.getOptionValue("json"));
      JsonReports.write(file, doc);
      out.println("JSON written to " + file);
    }
    return 0;
  }

  private static ObjectNode measure(RpcBenchCluster cluster, Settings s, BenchMonitor monitor,
    PrintStream out) throws Exception {
    ObjectNode doc = new ObjectMapper().createObjectNode();
    String[] modes = { NETTY, RDMA };
    monitor.phase("warm-up");
    warmUp(cluster, s);
    // Latency per size, one thread; the modes alternate which goes first.
    ArrayNode sizes = doc.putArray("sizes");
    int cell = 0;
    for (int bytes : s.sizes) {
      monitor.phase("size " + bytes + " B");
      ObjectNode row = sizes.addObject();
      row.put("bytes", bytes);
      RpcMeasure.Call get = getOf(bytes);
      RpcMeasure.Call put = putOf(bytes);
      for (String mode : order(modes, cell++)) {
        long gets0 = RdmaRpcMetrics.count("client.Get.rdma");
        long puts0 = RdmaRpcMetrics.count("client.Mutate.rdma");
        RpcMeasure.Figures g = timed(cluster, mode, 1, s, get);
        RpcMeasure.Figures p = timed(cluster, mode, 1, s, put);
        ObjectNode m = row.putObject(jsonMode(mode));
        m.put("get_us_p50", g.p50Us());
        m.put("get_us_p99", g.p99Us());
        m.put("put_us_p50", p.p50Us());
        m.put("put_us_p99", p.p99Us());
        m.put("get_calls", g.calls());
        m.put("put_calls", p.calls());
        m.put("gets_over_endpoint", RdmaRpcMetrics.count("client.Get.rdma") - gets0);
        m.put("puts_over_endpoint", RdmaRpcMetrics.count("client.Mutate.rdma") - puts0);
        if (bytes == RpcBenchCluster.VALUE_BYTES) {
          oneKib(doc.putObject(mode), g, p);
        }
      }
      row.put("get_p50_ratio", ratio(row, "get_us_p50"));
      row.put("put_p50_ratio", ratio(row, "put_us_p50"));
      out.printf(Locale.ROOT, "size %6d B: Get p50 netty %.1f us, endpoint %.1f us (%.2fx); Put "
        + "p50 netty %.1f us, endpoint %.1f us (%.2fx)%n", bytes,
        row.path("netty").path("get_us_p50").asDouble(),
        row.path("rdma").path("get_us_p50").asDouble(), row.path("get_p50_ratio").asDouble(),
        row.path("netty").path("put_us_p50").asDouble(),
        row.path("rdma").path("put_us_p50").asDouble(), row.path("put_p50_ratio").asDouble());
    }
    ((ObjectNode) doc.get(RDMA)).put("gets_over_endpoint",
      sizes.get(s.sizes.indexOf(RpcBenchCluster.VALUE_BYTES)).path("rdma")
        .path("gets_over_endpoint").asLong());
    ((ObjectNode) doc.get(RDMA)).put("mutates_over_endpoint",
      sizes.get(s.sizes.indexOf(RpcBenchCluster.VALUE_BYTES)).path("rdma")
        .path("puts_over_endpoint").asLong());
    doc.put("get_p50_ratio", doc.path(RDMA).path("get_us_p50").asDouble()
      / doc.path(NETTY).path("get_us_p50").asDouble());
    doc.put("put_p50_ratio", doc.path(RDMA).path("put_us_p50").asDouble()
      / doc.path(NETTY).path("put_us_p50").asDouble());
    monitor.phase("stages");
    stages(cluster, s, doc, out);
    monitor.phase("threads");
    threads(cluster, s, doc, out);
    monitor.phase("async");
    async(cluster, s, doc, out);
    monitor.phase("stop cluster");
    return doc;
  }

  /**
   * Both paths' Gets and Puts at 1 KiB before anything is measured, so that the first size is
   * not measured on code the JIT has not compiled yet.
   */
  private static void warmUp(RpcBenchCluster cluster, Settings s) throws Exception {
    double seconds = Math.max(1.0, 4 * s.warmupMs / 1e3);
    for (String mode : new String[] { NETTY, RDMA }) {
      RpcMeasure.run(cluster.connection(mode), 1, seconds, getOf(RpcBenchCluster.VALUE_BYTES));
      RpcMeasure.run(cluster.connection(mode), 1, seconds / 2,
        putOf(RpcBenchCluster.VALUE_BYTES));
    }
  }

  /** The stage breakdown at 1 KiB, and what recording the stamps costs. */
  private static void stages(RpcBenchCluster cluster, Settings s, ObjectNode doc,
    PrintStream out) throws Exception {
    RpcMeasure.Call get = getOf(RpcBenchCluster.VALUE_BYTES);
    RpcMeasure.Call put = putOf(RpcBenchCluster.VALUE_BYTES);
    ObjectNode stages = doc.putObject("stages");
    ObjectNode stagesPut = doc.putObject("stages_put");
    ObjectNode wire = doc.putObject("wire_bytes");
    ObjectNode cost = doc.putObject("instrumentation");
    for (String mode : new String[] { NETTY, RDMA }) {
      boolean split = mode.equals(RDMA);
      try (Table t = cluster.connection(mode).getTable(RpcBenchCluster.TABLE)) {
        for (int i = 0; i < Math.min(200, s.stageCalls); i++) {
          get.run(t);
        }
        RpcStageBreakdown.Breakdown g = RpcStageBreakdown.measure(t, get, s.stageCalls, split);
        RpcStageBreakdown.Breakdown p = RpcStageBreakdown.measure(t, put, s.stageCalls, split);
        putStages(stages.putObject(jsonMode(mode)), g);
        putStages(stagesPut.putObject(jsonMode(mode)), p);
        ObjectNode w = wire.putObject(jsonMode(mode));
        w.put("get_request", g.requestBytes());
        w.put("get_response", g.responseBytes());
        w.put("put_request", p.requestBytes());
        w.put("put_response", p.responseBytes());
        out.printf(Locale.ROOT, "stages %s: Get %s%n", mode, g.stages());
      }
      // Recording off and on in alternating blocks: what the stamps cost when taken.
      long[] offOn = new long[2];
      double[] sums = new double[2];
      for (int block = 0; block < 4; block++) {
        boolean on = block % 2 == 1;
        RpcStages.record(on);
        try {
          RpcMeasure.Figures f = RpcMeasure.run(cluster.connection(mode), 1,
            Math.max(0.05, s.cellMs / 2e3), get);
          sums[on ? 1 : 0] += f.p50Us();
          offOn[on ? 1 : 0]++;
        } finally {
          RpcStages.record(false);
        }
      }
      ObjectNode c = cost.putObject(jsonMode(mode));
      c.put("get_us_p50_recording_off", sums[0] / offOn[0]);
      c.put("get_us_p50_recording_on", sums[1] / offOn[1]);
    }
  }

  private static void putStages(ObjectNode o, RpcStageBreakdown.Breakdown b) {
    for (Map.Entry<String, Double> e : b.stages().entrySet()) {
      o.put(e.getKey(), e.getValue());
    }
    o.put("calls", b.calls());
    o.put("calls_out_of_order", b.rejected());
  }

  /** 1–16 client threads on the one 1 KiB record: Gets, then Puts. */
  private static void threads(RpcBenchCluster cluster, Settings s, ObjectNode doc,
    PrintStream out) throws Exception {
    RpcMeasure.Call get = getOf(RpcBenchCluster.VALUE_BYTES);
    RpcMeasure.Call put = putOf(RpcBenchCluster.VALUE_BYTES);
    ArrayNode rows = doc.putArray("threads");
    int cell = 0;
    for (int n : s.threads) {
      ObjectNode row = rows.addObject();
      row.put("threads", n);
      for (String mode : order(new String[] { NETTY, RDMA }, cell++)) {
        if (s.warmupMs > 0) {
          RpcMeasure.run(cluster.connection(mode), n, s.warmupMs / 1e3, get);
        }
        long gets0 = RdmaRpcMetrics.count("client.Get.rdma");
        long polled0 = RdmaRpcMetrics.count("client.responses.polled");
        long waited0 = RdmaRpcMetrics.count("client.responses.waited");
        long takenPolling0 = RdmaRpcMetrics.count("server.calls.polled");
        long takenWoken0 = RdmaRpcMetrics.count("server.calls.woken");
        RpcMeasure.Figures g = RpcMeasure.run(cluster.connection(mode), n, s.cellMs / 1e3, get);
        long overEndpoint = RdmaRpcMetrics.count("client.Get.rdma") - gets0;
        long polled = RdmaRpcMetrics.count("client.responses.polled") - polled0;
        long waited = RdmaRpcMetrics.count("client.responses.waited") - waited0;
        long takenPolling = RdmaRpcMetrics.count("server.calls.polled") - takenPolling0;
        long takenWoken = RdmaRpcMetrics.count("server.calls.woken") - takenWoken0;
        RpcMeasure.Figures p = timed(cluster, mode, n, s, put);
        ObjectNode m = row.putObject(jsonMode(mode));
        m.put("get_ops_per_s", g.opsPerSecond());
        m.put("get_us_mean", g.meanUs());
        m.put("get_us_p50", g.p50Us());
        m.put("get_us_p99", g.p99Us());
        m.put("cpu_us_per_get", g.cpuUsPerCall());
        m.put("put_ops_per_s", p.opsPerSecond());
        m.put("put_us_mean", p.meanUs());
        m.put("put_us_p99", p.p99Us());
        m.put("cpu_us_per_put", p.cpuUsPerCall());
        m.put("gets_over_endpoint", overEndpoint);
        if (mode.equals(RDMA)) {
          // Who was woken: callers that parked for their answer, handlers woken for a call.
          m.put("callers_parked_share", share(waited, polled + waited));
          m.put("handlers_woken_share", share(takenWoken, takenPolling + takenWoken));
        }
      }
      row.put("get_ops_ratio", row.path("rdma").path("get_ops_per_s").asDouble()
        / row.path("netty").path("get_ops_per_s").asDouble());
      row.put("cpu_per_get_ratio", ratio(row, "cpu_us_per_get"));
      row.put("put_ops_ratio", row.path("rdma").path("put_ops_per_s").asDouble()
        / row.path("netty").path("put_ops_per_s").asDouble());
      out.printf(Locale.ROOT, "%2d threads: Gets/s netty %.0f, endpoint %.0f (%.2fx), CPU/Get "
        + "%.1f vs %.1f us; Puts/s %.0f vs %.0f%n", n,
        row.path("netty").path("get_ops_per_s").asDouble(),
        row.path("rdma").path("get_ops_per_s").asDouble(), row.path("get_ops_ratio").asDouble(),
        row.path("netty").path("cpu_us_per_get").asDouble(),
        row.path("rdma").path("cpu_us_per_get").asDouble(),
        row.path("netty").path("put_ops_per_s").asDouble(),
        row.path("rdma").path("put_ops_per_s").asDouble());
    }
  }

  /** One thread's {@code AsyncTable.get(...).join()}, over each path and unpolled. */
  private static void async(RpcBenchCluster cluster, Settings s, ObjectNode doc, PrintStream out)
    throws Exception {
    byte[] key = RpcBenchCluster.row(RpcBenchCluster.VALUE_BYTES);
    RpcMeasure.AsyncCall get = t -> t.get(new Get(key)).join();
    ObjectNode async = doc.putObject("async");
    String[][] variants = { { NETTY, "netty" }, { RDMA, "rdma" }, { RDMA, "rdma_unpolled" } };
    for (String[] v : variants) {
      AsyncTable<?> table =
        cluster.asyncConnection(v[0], !v[1].equals("rdma_unpolled")).getTable(
          RpcBenchCluster.TABLE);
      RpcMeasure.runAsync(table, s.warmupMs / 1e3, get);
      long gets0 = RdmaRpcMetrics.count("client.Get.rdma");
      RpcMeasure.Figures f = RpcMeasure.runAsync(table, s.cellMs / 1e3, get);
      ObjectNode m = async.putObject(v[1]);
      m.put("get_us_p50", f.p50Us());
      m.put("get_us_p99", f.p99Us());
      m.put("cpu_us_per_get", f.cpuUsPerCall());
      m.put("get_calls", f.calls());
      m.put("gets_over_endpoint", RdmaRpcMetrics.count("client.Get.rdma") - gets0);
    }
    async.put("get_p50_ratio", async.path("rdma").path("get_us_p50").asDouble()
      / async.path("netty").path("get_us_p50").asDouble());
    out.printf(Locale.ROOT, "AsyncTable Get p50: netty %.1f us, endpoint %.1f us (%.2fx), "
      + "endpoint unpolled %.1f us%n", async.path("netty").path("get_us_p50").asDouble(),
      async.path("rdma").path("get_us_p50").asDouble(), async.path("get_p50_ratio").asDouble(),
      async.path("rdma_unpolled").path("get_us_p50").asDouble());
  }

  /** A Get of the record whose value has this many bytes. */
  private static RpcMeasure.Call getOf(int bytes) {
    byte[] key = RpcBenchCluster.row(bytes);
    return t -> t.get(new Get(key));
  }

  /** A Put of a value of this many bytes to that record. */
  private static RpcMeasure.Call putOf(int bytes) {
    byte[] key = RpcBenchCluster.row(bytes);
    byte[] value = RpcBenchCluster.value(bytes);
    return t -> t.put(new Put(key).addColumn(RpcBenchCluster.FAMILY, RpcBenchCluster.QUALIFIER,
      value));
  }

  private static RpcMeasure.Figures timed(RpcBenchCluster cluster, String mode, int threads,
    Settings s, RpcMeasure.Call call) throws Exception {
    if (s.warmupMs > 0) {
      RpcMeasure.run(cluster.connection(mode), threads, s.warmupMs / 1e3, call);
    }
    return RpcMeasure.run(cluster.connection(mode), threads, s.cellMs / 1e3, call);
  }

  private static void oneKib(ObjectNode o, RpcMeasure.Figures g, RpcMeasure.Figures p) {
    o.put("get_us_p50", g.p50Us());
    o.put("get_us_p99", g.p99Us());
    o.put("put_us_p50", p.p50Us());
    o.put("put_us_p99", p.p99Us());
    o.put("get_cpu_us_per_call", g.cpuUsPerCall());
    o.put("put_cpu_us_per_call", p.cpuUsPerCall());
    o.put("get_alloc_bytes_per_call", g.allocBytesPerCall());
    o.put("put_alloc_bytes_per_call", p.allocBytesPerCall());
    o.put("get_samples", g.calls());
    o.put("put_samples", p.calls());
  }

  /** The section name of a mode in the per-size, per-thread and stage sections. */
  static String jsonMode(String mode) {
    return mode.equals(RDMA) ? "rdma" : "netty";
  }

  private static double share(long part, long whole) {
    return whole == 0 ? 0 : (double) part / whole;
  }

  private static double ratio(ObjectNode row, String field) {
    return row.path("rdma").path(field).asDouble() / row.path("netty").path(field).asDouble();
  }

  private static String[] order(String[] modes, int cell) {
    return cell % 2 == 0 ? modes : new String[] { modes[1], modes[0] };
  }

  private static Map<String, String> keyValues(String[] pairs) {
    Map<String, String> m = new LinkedHashMap<>();
    if (pairs != null) {
      for (String kv : pairs) {
        int eq = kv.indexOf('=');
        if (eq <= 0) {
          throw new IllegalArgumentException("--hbase takes KEY=VALUE, not '" + kv + "'");
        }
        m.put(kv.substring(0, eq).trim(), kv.substring(eq + 1).trim());
      }
    }
    return m;
  }

  private static List<Integer> concat(List<Integer> l, int v) {
    List<Integer> c = new ArrayList<>(l);
    c.add(v);
    return c;
  }

  private static String join(List<Integer> l) {
    StringBuilder b = new StringBuilder();
    for (int v : l) {
      b.append(b.length() == 0 ? "" : ",").append(v);
    }
    return b.toString();
  }
}
