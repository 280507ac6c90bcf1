package io.strata.bench.rpc;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.strata.cli.CommandLines;
import io.strata.cli.JsonReports;
import io.strata.hbase.rdma.HybridRpcKeys;
import io.strata.hbase.rdma.RdmaRpcMetrics;
import java.io.File;
import java.io.PrintStream;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.Options;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * {@code strata bench rpc}: 1 KiB Get and Put latency (p50, p99), process CPU and allocation per
 * call through the embedded tiered cluster, over HBase's Netty sockets and over the hybrid RPC's
 * RDMA path on the loopback transport, one client thread, in one run against the same
 * RegionServer. JMH does the timing; it runs in this JVM (no fork) so that both modes share the
 * cluster.
 */
public final class RpcBench {
  static final String NETTY = "netty";
  static final String RDMA = "rdma-loopback";
  private static final String HEADER = "Times 1 KiB Gets and Puts of one client thread through "
    + "the embedded tiered cluster (hybrid RPC server, loopback RDMA transport), with HBase's "
    + "Netty client and with the hybrid client, in one run (JMH, sample-time mode).\n\n";

  private RpcBench() {
  }

  static Options options() {
    Options o = new Options();
    o.addOption(null, "json", true, "also write the results as JSON to this file");
    o.addOption(null, "warmup", true, "warm-up iterations per benchmark (default 3)");
    o.addOption(null, "iterations", true, "measured iterations per benchmark (default 5)");
    o.addOption(null, "seconds", true, "seconds per iteration (default 2)");
    o.addOption(null, "loopback-delivery", true, "loopback transport delivery: inline (default, "
      + "completions on the sending thread: a completion thread always polling on its own core) "
      + "or poller (a completion thread per transport sharing the cores)");
    o.addOption(null, "handler-poll-us", true, "microseconds idle RegionServer handlers poll "
      + "their call queue (strata.rpc.handler.poll.us, default 50); 0: HBase's own scheduler");
    o.addOption(null, "client-poll-us", true, "microseconds the hybrid client polls for an "
      + "endpoint call's response (strata.rdma.client.poll.us, default 100); 0: it parks at once");
    o.addOption(null, "work-dir", true,
      "cluster data (default $STRATA_WORK/bench/rpc, STRATA_WORK defaulting to .strata-work)");
    o.addOption("h", "help", false, "this text");
    return o;
  }

  public static void main(String[] args) {
    CommandLines.runAndHalt("strata bench rpc", () -> run(args, System.out));
  }

  /** One mode's figures. */
  record Figures(double getP50, double getP99, double putP50, double putP99, double getCpuUs,
    double putCpuUs, double getAllocBytes, double putAllocBytes, long getCalls, long putCalls) {
  }

  static int run(String[] args, PrintStream out) throws Exception {
    CommandLine cl;
    int warmup;
    int iterations;
    int seconds;
    long handlerPollUs;
    long clientPollUs;
    try {
      cl = CommandLines.parse("strata bench rpc", "strata bench rpc [options]", HEADER, options(),
        args);
      warmup = (int) CommandLines.wholeNumber(cl, "warmup", 3, 1);
      iterations = (int) CommandLines.wholeNumber(cl, "iterations", 5, 1);
      seconds = (int) CommandLines.wholeNumber(cl, "seconds", 2, 1);
      handlerPollUs = CommandLines.wholeNumber(cl, "handler-poll-us",
        HybridRpcKeys.Handler.POLL_US_DEFAULT, 0);
      clientPollUs = CommandLines.wholeNumber(cl, "client-poll-us",
        HybridRpcKeys.Client.POLL_US_DEFAULT, 0);
    } catch (CommandLines.Exit e) {
      return e.code();
    } catch (IllegalArgumentException e) {
      System.err.println("strata bench rpc: " + e.getMessage());
      return 2;
    }
    String delivery = cl.getOptionValue("loopback-delivery", "inline");
    if (!delivery.equals("inline") && !delivery.equals("poller")) {
      System.err.println("strata bench rpc: --loopback-delivery is inline or poller, not "
        + delivery);
      return 2;
    }
    RpcBenchCluster.delivery(delivery);
    RpcBenchCluster.handlerPollUs(handlerPollUs);
    RpcBenchCluster.clientPollUs(clientPollUs);
    RpcBenchCluster.workDir(new File(cl.getOptionValue("work-dir", defaultWorkDir())));
    long rdmaGets = RdmaRpcMetrics.count("client.Get.rdma");
    long rdmaMutates = RdmaRpcMetrics.count("client.Mutate.rdma");
    Collection<RunResult> results;
    try {
      RpcBenchCluster.get();
      results = new Runner(new OptionsBuilder().include(RpcBenchmarks.class.getName() + ".*")
        .forks(0).threads(1).warmupIterations(warmup).warmupTime(TimeValue.seconds(1))
        .measurementIterations(iterations).measurementTime(TimeValue.seconds(seconds))
        .timeUnit(TimeUnit.MICROSECONDS).addProfiler(GCProfiler.class)
        .addProfiler(ProcessCpuProfiler.class).verbosity(VerboseMode.NORMAL).build()).run();
    } finally {
      RpcBenchCluster.shutdown();
    }
    Map<String, Figures> figures = new LinkedHashMap<>();
    for (String mode : new String[] { NETTY, RDMA }) {
      RunResult get = find(results, "get", mode);
      RunResult put = find(results, "put", mode);
      figures.put(mode, new Figures(p(get, 50), p(get, 99), p(put, 50), p(put, 99),
        secondary(get, ProcessCpuProfiler.CPU_US_PER_OP), secondary(put,
          ProcessCpuProfiler.CPU_US_PER_OP), secondary(get, "gc.alloc.rate.norm"),
        secondary(put, "gc.alloc.rate.norm"), get.getPrimaryResult().getSampleCount(),
        put.getPrimaryResult().getSampleCount()));
    }
    long overRdmaGets = RdmaRpcMetrics.count("client.Get.rdma") - rdmaGets;
    long overRdmaMutates = RdmaRpcMetrics.count("client.Mutate.rdma") - rdmaMutates;
    out.println();
    out.print(table(figures, overRdmaGets, overRdmaMutates));
    if (cl.hasOption("json")) {
      File file = new File(cl.getOptionValue("json"));
      ObjectNode doc = json(figures, overRdmaGets, overRdmaMutates, iterations, seconds);
      ObjectNode run = (ObjectNode) doc.get("run");
      run.put("loopback_delivery", delivery);
      run.put("handler_poll_us", handlerPollUs);
      run.put("client_poll_us", clientPollUs);
      JsonReports.write(file, doc);
      out.println("JSON written to " + file);
    }
    return 0;
  }

  private static RunResult find(Collection<RunResult> results, String method, String mode) {
    for (RunResult r : results) {
      if (r.getParams().getBenchmark().endsWith("." + method)
        && mode.equals(r.getParams().getParam("mode"))) {
        return r;
      }
    }
    throw new IllegalStateException("JMH returned no result for " + method + " " + mode);
  }

  private static double p(RunResult r, double percentile) {
    return r.getPrimaryResult().getStatistics().getPercentile(percentile);
  }

  private static double secondary(RunResult r, String name) {
    Result<?> res = r.getSecondaryResults().get(name);
    return res == null ? Double.NaN : res.getScore();
  }

  static String table(Map<String, Figures> figures, long rdmaGets, long rdmaMutates) {
    StringBuilder b = new StringBuilder();
    b.append(String.format(Locale.ROOT, "%-14s %9s %9s %9s %9s %11s %11s %12s %12s%n", "mode",
      "get p50", "get p99", "put p50", "put p99", "get cpu/op", "put cpu/op", "get alloc/op",
      "put alloc/op"));
    for (Map.Entry<String, Figures> e : figures.entrySet()) {
      Figures f = e.getValue();
      b.append(String.format(Locale.ROOT,
        "%-14s %7.1fus %7.1fus %7.1fus %7.1fus %9.1fus %9.1fus %11.0fB %11.0fB%n", e.getKey(),
        f.getP50(), f.getP99(), f.putP50(), f.putP99(), f.getCpuUs(), f.putCpuUs(),
        f.getAllocBytes(), f.putAllocBytes()));
    }
    Figures n = figures.get(NETTY);
    Figures r = figures.get(RDMA);
    b.append(String.format(Locale.ROOT,
      "rdma-loopback / netty: get p50 %.2fx, put p50 %.2fx; over the endpoint: %d Gets, %d "
        + "Mutates (cpu/op and alloc/op: whole process, client and servers, per call)%n",
      r.getP50() / n.getP50(), r.putP50() / n.putP50(), rdmaGets, rdmaMutates));
    return b.toString();
  }

  static ObjectNode json(Map<String, Figures> figures, long rdmaGets, long rdmaMutates,
    int iterations, int seconds) {
    ObjectMapper m = new ObjectMapper();
    ObjectNode root = m.createObjectNode();
    for (Map.Entry<String, Figures> e : figures.entrySet()) {
      Figures f = e.getValue();
      ObjectNode o = root.putObject(e.getKey());
      o.put("get_us_p50", f.getP50());
      o.put("get_us_p99", f.getP99());
      o.put("put_us_p50", f.putP50());
      o.put("put_us_p99", f.putP99());
      o.put("get_cpu_us_per_call", f.getCpuUs());
      o.put("put_cpu_us_per_call", f.putCpuUs());
      o.put("get_alloc_bytes_per_call", f.getAllocBytes());
      o.put("put_alloc_bytes_per_call", f.putAllocBytes());
      o.put("get_samples", f.getCalls());
      o.put("put_samples", f.putCalls());
    }
    ObjectNode rdma = (ObjectNode) root.get(RDMA);
    rdma.put("gets_over_endpoint", rdmaGets);
    rdma.put("mutates_over_endpoint", rdmaMutates);
    root.put("get_p50_ratio", figures.get(RDMA).getP50() / figures.get(NETTY).getP50());
    root.put("put_p50_ratio", figures.get(RDMA).putP50() / figures.get(NETTY).putP50());
    ObjectNode run = root.putObject("run");
    run.put("value_bytes", RpcBenchCluster.VALUE_BYTES);
    run.put("client_threads", 1);
    run.put("iterations", iterations);
    run.put("seconds_per_iteration", seconds);
    return root;
  }

  private static String defaultWorkDir() {
    return CommandLines.workDir("bench/rpc").getPath();
  }
}
