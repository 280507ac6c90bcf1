package io.strata.bench.rpc;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.strata.bench.common.BenchCommand;
import io.strata.bench.common.BenchJson;
import io.strata.bench.common.BenchOptions;
import io.strata.bench.common.RunLabels;
import io.strata.bench.monitor.BenchMonitor;
import io.strata.cli.CommandLines;
import io.strata.hbase.rdma.HybridRpcKeys;
import io.strata.hbase.rdma.RdmaRpcMetrics;
import io.strata.hbase.rdma.RpcStages;
import java.io.File;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import org.apache.hadoop.hbase.client.AsyncTable;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

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
    + "client threads, AsyncTable Gets. Writes report.md, results.json and PNG plots to --out.";
  static final List<Integer> SIZES = List.of(1, 64, 1024, 4096, 16384, 65536);
  static final List<Integer> THREADS = List.of(1, 2, 4, 8, 16);

  private RpcBench() {
  }

  /** What each scale runs, unless an option says otherwise. */
  record ScaleDefaults(long cellMs, long warmupMs, int stageCalls) {
    static ScaleDefaults of(BenchOptions.Scale scale) {
      return scale == BenchOptions.Scale.FULL ? new ScaleDefaults(3000, 1000, 5000)
        : new ScaleDefaults(300, 150, 500);
    }
  }

  /** The command line: picocli's options, turned into {@link Settings}. */
  @Command(name = COMMAND, sortOptions = false, description = HEADER)
  static final class Cli extends BenchCommand<Settings> {
    @Mixin
    BenchOptions.ScaleOption scale;
    @Option(names = "--sizes", paramLabel = "B", split = ",",
      description = "value sizes in bytes, comma-separated (default 1,64,1024,4096,16384,65536; "
        + "1024 is always measured)")
    List<Integer> sizes;
    @Option(names = "--threads", paramLabel = "N", split = ",",
      description = "client thread counts, comma-separated (default 1,2,4,8,16)")
    List<Integer> threads;
    @Option(names = "--cell-ms", paramLabel = "MS",
      description = "milliseconds each measurement runs (quick 300, full 3000)")
    Long cellMs;
    @Option(names = "--warmup-ms", paramLabel = "MS",
      description = "milliseconds of warm-up before each (quick 150, full 1000)")
    Long warmupMs;
    @Option(names = "--stage-calls", paramLabel = "N",
      description = "calls timed stage by stage per path and operation (quick 500, full 5000)")
    Integer stageCalls;
    @Mixin
    BenchOptions.Monitoring monitoring;
    @Option(names = "--out", paramLabel = "DIR",
      description = "report directory (default $STRATA_WORK/bench/rpc/report-SCALE)")
    File out;
    @Mixin
    BenchOptions.JsonFile json;
    @Option(names = "--report-from", paramLabel = "FILE",
      description = "measure nothing: write report.md and the plots to --out from this "
        + "results.json of an earlier run")
    File reportFrom;
    @Option(names = "--loopback-delivery", paramLabel = "inline|poller", defaultValue = "inline",
      description = "loopback transport delivery: inline (default, completions on the sending "
        + "thread) or poller (a completion thread per transport)")
    String delivery;
    @Option(names = "--handler-poll-us", paramLabel = "US",
      defaultValue = "" + HybridRpcKeys.Handler.POLL_US_DEFAULT,
      description = "microseconds idle RegionServer handlers poll their call queue "
        + "(strata.rpc.handler.poll.us, default ${DEFAULT-VALUE}); 0: HBase's own scheduler")
    long handlerPollUs;
    @Option(names = "--client-poll-us", paramLabel = "US",
      defaultValue = "" + HybridRpcKeys.Client.POLL_US_DEFAULT,
      description = "microseconds the hybrid client polls for an endpoint call's response "
        + "(strata.rdma.client.poll.us, default ${DEFAULT-VALUE}); 0: it parks at once")
    long clientPollUs;
    @Option(names = "--hbase", paramLabel = "KEY=VALUE", mapFallbackValue = "",
      description = "an HBase or Strata key of the cluster and its clients (repeatable), e.g. "
        + "strata.rdma.client.pollers=2")
    Map<String, String> hbase = new LinkedHashMap<>();
    @Option(names = "--work-dir", paramLabel = "DIR",
      description = "cluster data (default $STRATA_WORK/bench/rpc/work, STRATA_WORK defaulting "
        + "to .strata-work)")
    File workDir;

    @Override
    protected Settings settings() {
      ScaleDefaults d = ScaleDefaults.of(scale.scale());
      List<Integer> sz = within("--sizes", sizes, SIZES, 1, 1 << 20);
      if (!sz.contains(RpcBenchCluster.VALUE_BYTES)) {
        sz.add(RpcBenchCluster.VALUE_BYTES);
        sz = new ArrayList<>(new TreeSet<>(sz));
      }
      if (!delivery.equals("inline") && !delivery.equals("poller")) {
        throw new IllegalArgumentException("--loopback-delivery is inline or poller, not "
          + delivery);
      }
      for (Map.Entry<String, String> e : hbase.entrySet()) {
        if (e.getKey().isBlank() || e.getValue().isEmpty()) {
          throw new IllegalArgumentException("--hbase takes KEY=VALUE, not '" + e.getKey() + "'");
        }
      }
      File base = CommandLines.workDir("bench/rpc");
      return new Settings(scale.scale(), sz, within("--threads", threads, THREADS, 1, 256),
        atLeast("--cell-ms", cellMs != null ? cellMs : d.cellMs(), 10),
        atLeast("--warmup-ms", warmupMs != null ? warmupMs : d.warmupMs(), 0),
        atLeast("--stage-calls", stageCalls != null ? stageCalls : d.stageCalls(), 10), delivery,
        atLeast("--handler-poll-us", handlerPollUs, 0),
        atLeast("--client-poll-us", clientPollUs, 0), Map.copyOf(hbase), monitoring.intervalMs(),
        out != null ? out : new File(base, "report-" + scale.scale().optionName()), json.file(),
        reportFrom, workDir != null ? workDir : new File(base, "work"));
    }

    /** The values, each from min to max, duplicates dropped, in order; dflt when absent. */
    private static List<Integer> within(String option, List<Integer> values, List<Integer> dflt,
      int min, int max) {
      List<Integer> l = new ArrayList<>();
      for (int v : values != null ? values : dflt) {
        if (v < min || v > max) {
          throw new IllegalArgumentException(option + " values are from " + min + " to " + max
            + ", not " + v);
        }
        if (!l.contains(v)) {
          l.add(v);
        }
      }
      return l;
    }
  }

  /** What a run does. */
  record Settings(BenchOptions.Scale scale, List<Integer> sizes, List<Integer> threads,
    long cellMs, long warmupMs, int stageCalls, String delivery, long handlerPollUs,
    long clientPollUs, Map<String, String> hbase, long monitorMs, File out, File json,
    File reportFrom, File workDir) {
  }

  public static void main(String[] args) {
    CommandLines.runAndHalt(COMMAND, () -> run(args, System.out));
  }

  static int run(String[] args, PrintStream out) throws Exception {
    return BenchCommand.run(new Cli(), args, out, s -> run(s, String.join(" ", args), out));
  }

  static int run(Settings settings, String args, PrintStream out) throws Exception {
    File outDir = settings.out();
    if (settings.reportFrom() != null) {
      File from = settings.reportFrom();
      if (!from.isFile()) {
        System.err.println(COMMAND + ": --report-from " + from + ": no such file");
        return BenchCommand.BAD_INPUT;
      }
      RpcReport.write(BenchJson.read(from, RpcResult.class), outDir);
      out.println("Report and plots of " + from + " in " + outDir);
      return 0;
    }
    RpcBenchCluster.delivery(settings.delivery());
    RpcBenchCluster.handlerPollUs(settings.handlerPollUs());
    RpcBenchCluster.clientPollUs(settings.clientPollUs());
    // The monitor's keys, unless --hbase sets them.
    Map<String, String> clusterKeys = new LinkedHashMap<>(
      BenchMonitor.hbaseKeys(settings.monitorMs()));
    clusterKeys.putAll(settings.hbase());
    RpcBenchCluster.hbase(clusterKeys);
    RpcBenchCluster.workDir(settings.workDir());
    long started = System.nanoTime();
    // Decided as the run starts: the tree may change while it runs. Both paths, the endpoint's
    // on the cluster's transport; no media emulation.
    RunLabels labels = RunLabels.now(RunLabels.versusNetty(RpcBenchCluster.TRANSPORT),
      RunLabels.NO_EMULATION);
    RpcResult measured;
    ObjectNode monitoring = JsonNodeFactory.instance.objectNode();
    try (BenchMonitor monitor = BenchMonitor.start(settings.monitorMs(), true)) {
      try {
        monitor.phase("start cluster");
        RpcBenchCluster cluster = RpcBenchCluster.start(settings.sizes());
        monitor.follow(cluster.connection(NETTY));
        measured = measure(cluster, settings, monitor, out);
      } finally {
        monitor.follow(null);
        RpcBenchCluster.shutdown();
      }
      monitor.writeIn(monitoring, outDir, COMMAND, out);
    }
    RpcResult.Run run = new RpcResult.Run(settings.scale().optionName(), settings.cellMs(),
      settings.warmupMs(), settings.stageCalls(), RpcBenchCluster.TRANSPORT, settings.delivery(),
      settings.handlerPollUs(), settings.clientPollUs(),
      Runtime.getRuntime().availableProcessors(), settings.hbase(),
      (System.nanoTime() - started) / 1e9, COMMAND + " " + args);
    RpcResult result = measured.finished(labels, monitoring.get(BenchMonitor.SECTION), run,
      RpcGoals.evaluate(measured));
    RpcReport.write(result, outDir);
    BenchJson.write(new File(outDir, "results.json"), result);
    out.println();
    out.print(RpcReport.summary(result));
    out.println("Report, results.json and plots in " + outDir);
    if (settings.json() != null) {
      BenchJson.write(settings.json(), result);
      out.println("JSON written to " + settings.json());
    }
    return 0;
  }

  private static RpcResult measure(RpcBenchCluster cluster, Settings s, BenchMonitor monitor,
    PrintStream out) throws Exception {
    String[] modes = { NETTY, RDMA };
    monitor.phase("warm-up");
    warmUp(cluster, s);
    // Latency per size, one thread; the modes alternate which goes first.
    List<RpcResult.SizeRow> sizes = new ArrayList<>();
    Map<String, RpcResult.OneKib> oneKib = new HashMap<>();
    long kibGets = 0;
    long kibPuts = 0;
    int cell = 0;
    for (int bytes : s.sizes()) {
      monitor.phase("size " + bytes + " B");
      RpcMeasure.Call get = getOf(bytes);
      RpcMeasure.Call put = putOf(bytes);
      Map<String, RpcResult.SizeFigures> byMode = new HashMap<>();
      for (String mode : order(modes, cell++)) {
        long gets0 = RdmaRpcMetrics.count("client.Get.rdma");
        long puts0 = RdmaRpcMetrics.count("client.Mutate.rdma");
        RpcMeasure.Figures g = timed(cluster, mode, 1, s, get);
        RpcMeasure.Figures p = timed(cluster, mode, 1, s, put);
        RpcResult.SizeFigures f = new RpcResult.SizeFigures(g.p50Us(), g.p99Us(), p.p50Us(),
          p.p99Us(), g.calls(), p.calls(), RdmaRpcMetrics.count("client.Get.rdma") - gets0,
          RdmaRpcMetrics.count("client.Mutate.rdma") - puts0);
        byMode.put(mode, f);
        if (bytes == RpcBenchCluster.VALUE_BYTES) {
          oneKib.put(mode, oneKib(g, p));
          if (mode.equals(RDMA)) {
            kibGets = f.getsOverEndpoint();
            kibPuts = f.putsOverEndpoint();
          }
        }
      }
      RpcResult.SizeFigures n = byMode.get(NETTY);
      RpcResult.SizeFigures e = byMode.get(RDMA);
      RpcResult.SizeRow row = new RpcResult.SizeRow(bytes, n, e, e.getUsP50() / n.getUsP50(),
        e.putUsP50() / n.putUsP50());
      sizes.add(row);
      out.printf(Locale.ROOT, "size %6d B: Get p50 netty %.1f us, endpoint %.1f us (%.2fx); Put "
        + "p50 netty %.1f us, endpoint %.1f us (%.2fx)%n", bytes, n.getUsP50(), e.getUsP50(),
        row.getP50Ratio(), n.putUsP50(), e.putUsP50(), row.putP50Ratio());
    }
    RpcResult.OneKib netty = oneKib.get(NETTY);
    RpcResult.OneKib rdma = oneKib.get(RDMA).overEndpoint(kibGets, kibPuts);
    monitor.phase("stages");
    Stages st = stages(cluster, s, out);
    monitor.phase("threads");
    List<RpcResult.ThreadRow> threads = threads(cluster, s, out);
    monitor.phase("async");
    RpcResult.Async async = async(cluster, s, out);
    monitor.phase("stop cluster");
    return RpcResult.measured(sizes, netty, rdma, rdma.getUsP50() / netty.getUsP50(),
      rdma.putUsP50() / netty.putUsP50(), st.gets, st.puts, st.wire, st.cost, threads, async);
  }

  /** The stage sections of a run. */
  private record Stages(RpcResult.PerPath<RpcResult.Stages> gets,
    RpcResult.PerPath<RpcResult.Stages> puts, RpcResult.PerPath<RpcResult.Wire> wire,
    RpcResult.PerPath<RpcResult.Instrumentation> cost) {
  }

  /**
   * Both paths' Gets and Puts at 1 KiB before anything is measured, so that the first size is
   * not measured on code the JIT has not compiled yet.
   */
  private static void warmUp(RpcBenchCluster cluster, Settings s) throws Exception {
    double seconds = Math.max(1.0, 4 * s.warmupMs() / 1e3);
    for (String mode : new String[] { NETTY, RDMA }) {
      RpcMeasure.run(cluster.connection(mode), 1, seconds, getOf(RpcBenchCluster.VALUE_BYTES));
      RpcMeasure.run(cluster.connection(mode), 1, seconds / 2,
        putOf(RpcBenchCluster.VALUE_BYTES));
    }
  }

  /** The stage breakdown at 1 KiB, and what recording the stamps costs. */
  private static Stages stages(RpcBenchCluster cluster, Settings s, PrintStream out)
    throws Exception {
    RpcMeasure.Call get = getOf(RpcBenchCluster.VALUE_BYTES);
    RpcMeasure.Call put = putOf(RpcBenchCluster.VALUE_BYTES);
    Map<String, RpcResult.Stages> gets = new HashMap<>();
    Map<String, RpcResult.Stages> puts = new HashMap<>();
    Map<String, RpcResult.Wire> wire = new HashMap<>();
    Map<String, RpcResult.Instrumentation> cost = new HashMap<>();
    for (String mode : new String[] { NETTY, RDMA }) {
      boolean split = mode.equals(RDMA);
      try (Table t = cluster.connection(mode).getTable(RpcBenchCluster.TABLE)) {
        for (int i = 0; i < Math.min(200, s.stageCalls()); i++) {
          get.run(t);
        }
        RpcStageBreakdown.Breakdown g = RpcStageBreakdown.measure(t, get, s.stageCalls(), split);
        RpcStageBreakdown.Breakdown p = RpcStageBreakdown.measure(t, put, s.stageCalls(), split);
        gets.put(mode, RpcResult.Stages.of(g));
        puts.put(mode, RpcResult.Stages.of(p));
        wire.put(mode, new RpcResult.Wire(g.requestBytes(), g.responseBytes(), p.requestBytes(),
          p.responseBytes()));
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
            Math.max(0.05, s.cellMs() / 2e3), get);
          sums[on ? 1 : 0] += f.p50Us();
          offOn[on ? 1 : 0]++;
        } finally {
          RpcStages.record(false);
        }
      }
      cost.put(mode, new RpcResult.Instrumentation(sums[0] / offOn[0], sums[1] / offOn[1]));
    }
    return new Stages(perPath(gets), perPath(puts), perPath(wire), perPath(cost));
  }

  /** 1–16 client threads on the one 1 KiB record: Gets, then Puts. */
  private static List<RpcResult.ThreadRow> threads(RpcBenchCluster cluster, Settings s,
    PrintStream out) throws Exception {
    RpcMeasure.Call get = getOf(RpcBenchCluster.VALUE_BYTES);
    RpcMeasure.Call put = putOf(RpcBenchCluster.VALUE_BYTES);
    List<RpcResult.ThreadRow> rows = new ArrayList<>();
    int cell = 0;
    for (int n : s.threads()) {
      Map<String, RpcResult.ThreadFigures> byMode = new HashMap<>();
      for (String mode : order(new String[] { NETTY, RDMA }, cell++)) {
        if (s.warmupMs() > 0) {
          RpcMeasure.run(cluster.connection(mode), n, s.warmupMs() / 1e3, get);
        }
        long gets0 = RdmaRpcMetrics.count("client.Get.rdma");
        long polled0 = RdmaRpcMetrics.count("client.responses.polled");
        long waited0 = RdmaRpcMetrics.count("client.responses.waited");
        long takenPolling0 = RdmaRpcMetrics.count("server.calls.polled");
        long takenWoken0 = RdmaRpcMetrics.count("server.calls.woken");
        RpcMeasure.Figures g = RpcMeasure.run(cluster.connection(mode), n, s.cellMs() / 1e3,
          get);
        long overEndpoint = RdmaRpcMetrics.count("client.Get.rdma") - gets0;
        long polled = RdmaRpcMetrics.count("client.responses.polled") - polled0;
        long waited = RdmaRpcMetrics.count("client.responses.waited") - waited0;
        long takenPolling = RdmaRpcMetrics.count("server.calls.polled") - takenPolling0;
        long takenWoken = RdmaRpcMetrics.count("server.calls.woken") - takenWoken0;
        RpcMeasure.Figures p = timed(cluster, mode, n, s, put);
        boolean endpoint = mode.equals(RDMA);
        // Who was woken: callers that parked for their answer, handlers woken for a call.
        byMode.put(mode, new RpcResult.ThreadFigures(g.opsPerSecond(), g.meanUs(), g.p50Us(),
          g.p99Us(), g.cpuUsPerCall(), p.opsPerSecond(), p.meanUs(), p.p99Us(),
          p.cpuUsPerCall(), overEndpoint, endpoint ? share(waited, polled + waited) : null,
          endpoint ? share(takenWoken, takenPolling + takenWoken) : null));
      }
      RpcResult.ThreadFigures nf = byMode.get(NETTY);
      RpcResult.ThreadFigures ef = byMode.get(RDMA);
      RpcResult.ThreadRow row = new RpcResult.ThreadRow(n, nf, ef,
        ef.getOpsPerS() / nf.getOpsPerS(), ef.cpuUsPerGet() / nf.cpuUsPerGet(),
        ef.putOpsPerS() / nf.putOpsPerS());
      rows.add(row);
      out.printf(Locale.ROOT, "%2d threads: Gets/s netty %.0f, endpoint %.0f (%.2fx), CPU/Get "
        + "%.1f vs %.1f us; Puts/s %.0f vs %.0f%n", n, nf.getOpsPerS(), ef.getOpsPerS(),
        row.getOpsRatio(), nf.cpuUsPerGet(), ef.cpuUsPerGet(), nf.putOpsPerS(), ef.putOpsPerS());
    }
    return rows;
  }

  /** One thread's {@code AsyncTable.get(...).join()}, over each path and unpolled. */
  private static RpcResult.Async async(RpcBenchCluster cluster, Settings s, PrintStream out)
    throws Exception {
    byte[] key = RpcBenchCluster.row(RpcBenchCluster.VALUE_BYTES);
    RpcMeasure.AsyncCall get = t -> t.get(new Get(key)).join();
    RpcResult.AsyncFigures[] figures = new RpcResult.AsyncFigures[3];
    String[] modes = { NETTY, RDMA, RDMA };
    for (int i = 0; i < modes.length; i++) {
      boolean polled = i < 2;
      AsyncTable<?> table = cluster.asyncConnection(modes[i], polled).getTable(
        RpcBenchCluster.TABLE);
      RpcMeasure.runAsync(table, s.warmupMs() / 1e3, get);
      long gets0 = RdmaRpcMetrics.count("client.Get.rdma");
      RpcMeasure.Figures f = RpcMeasure.runAsync(table, s.cellMs() / 1e3, get);
      figures[i] = new RpcResult.AsyncFigures(f.p50Us(), f.p99Us(), f.cpuUsPerCall(), f.calls(),
        RdmaRpcMetrics.count("client.Get.rdma") - gets0);
    }
    RpcResult.Async async = new RpcResult.Async(figures[0], figures[1], figures[2],
      figures[1].getUsP50() / figures[0].getUsP50());
    out.printf(Locale.ROOT, "AsyncTable Get p50: netty %.1f us, endpoint %.1f us (%.2fx), "
      + "endpoint unpolled %.1f us%n", async.netty().getUsP50(), async.rdma().getUsP50(),
      async.getP50Ratio(), async.rdmaUnpolled().getUsP50());
    return async;
  }

  private static <T> RpcResult.PerPath<T> perPath(Map<String, T> byMode) {
    return new RpcResult.PerPath<>(byMode.get(NETTY), byMode.get(RDMA));
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
    if (s.warmupMs() > 0) {
      RpcMeasure.run(cluster.connection(mode), threads, s.warmupMs() / 1e3, call);
    }
    return RpcMeasure.run(cluster.connection(mode), threads, s.cellMs() / 1e3, call);
  }

  private static RpcResult.OneKib oneKib(RpcMeasure.Figures g, RpcMeasure.Figures p) {
    return new RpcResult.OneKib(g.p50Us(), g.p99Us(), p.p50Us(), p.p99Us(), g.cpuUsPerCall(),
      p.cpuUsPerCall(), g.allocBytesPerCall(), p.allocBytesPerCall(), g.calls(), p.calls(), null,
      null);
  }

  private static double share(long part, long whole) {
    return whole == 0 ? 0 : (double) part / whole;
  }

  private static String[] order(String[] modes, int cell) {
    return cell % 2 == 0 ? modes : new String[] { modes[1], modes[0] };
  }
}
