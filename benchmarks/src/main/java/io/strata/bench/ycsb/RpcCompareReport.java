package io.strata.bench.ycsb;

import io.strata.bench.common.Charts;
import java.awt.Color;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.knowm.xchart.XYChart;

/**
 * The report of {@link RpcCompare}: a markdown file with a table per workload (ops/s, mean, p50
 * and p99 latency per path, endpoint/Netty ratios, the endpoint counters), the figures of the
 * RDMA HBase study beside this machine's ratios, and one PNG plot of throughput against client
 * threads, per workload and path. Stateless; safe to use from any thread.
 */
final class RpcCompareReport {
  static final String MARKDOWN = "report.md";
  static final String PLOT = "ycsb-rpc-throughput.png";
  private static final Color[][] COLORS = {
    { new Color(140, 170, 220), new Color(20, 60, 160) },
    { new Color(240, 160, 120), new Color(190, 60, 10) },
    { new Color(150, 210, 150), new Color(20, 120, 40) } };

  private RpcCompareReport() {
  }

  /** Writes {@link #MARKDOWN} and {@link #PLOT} into {@code dir}. */
  static void write(RpcCompare.Result r, String command, File dir) throws IOException {
    Files.createDirectories(dir.toPath());
    plot(r, new File(dir, PLOT));
    Files.writeString(new File(dir, MARKDOWN).toPath(), markdown(r, command),
      StandardCharsets.UTF_8);
  }

  static void plot(RpcCompare.Result r, File png) throws IOException {
    XYChart chart = Charts.line("YCSB throughput, Netty vs RDMA endpoint (" + r.transport()
      + (r.clientProcesses() ? " transport, clients in their own JVMs)" : " transport, one JVM)"),
      "client threads", "ops/s");
    int w = 0;
    for (String workload : r.settings().workloads()) {
      List<RpcCompare.Cell> cells = cells(r, workload);
      double[] x = new double[cells.size()];
      double[] netty = new double[cells.size()];
      double[] rdma = new double[cells.size()];
      for (int i = 0; i < cells.size(); i++) {
        x[i] = cells.get(i).threads();
        netty[i] = cells.get(i).netty().figures().opsPerSec();
        rdma[i] = cells.get(i).rdma().figures().opsPerSec();
      }
      Color[] c = COLORS[w++ % COLORS.length];
      Charts.series(chart, workload + " netty", c[0], x, netty);
      Charts.series(chart, workload + " rdma (" + r.transport() + ")", c[1], x, rdma);
    }
    Charts.write(chart, png);
  }

  private static List<RpcCompare.Cell> cells(RpcCompare.Result r, String workload) {
    List<RpcCompare.Cell> out = new ArrayList<>();
    for (RpcCompare.Cell c : r.cells()) {
      if (c.workload().equals(workload)) {
        out.add(c);
      }
    }
    return out;
  }

  static String markdown(RpcCompare.Result r, String command) {
    StringBuilder b = new StringBuilder();
    RpcCompare.Settings s = r.settings();
    b.append("# YCSB over the RDMA endpoint vs Netty\n\n");
    b.append("Command:\n\n```\n").append(command).append("\n```\n\n");
    b.append(String.format(Locale.ROOT, "This machine: %d cores. " + where(r) + " %,d records of %d bytes "
      + "(loaded over Netty at %,.0f ops/s), table pre-split into %d regions; client-side "
      + "buffering off (every Put is its own call); warm-up %,d read-write operations per path. "
      + "Each workload starts after a flush and a wait for the table's flushes and compactions "
      + "to end; then, per thread count, %d round(s) per path of at most %,d operations or %d "
      + "s each, the paths' order reversed from one round to the next (netty, rdma, rdma, "
      + "netty, ...) so that both see the same background. A row is its path's rounds "
      + "together (operations over their summed time, latencies merged). Load avg: the "
      + "machine's 1-minute load average after the cell (above the core count: other processes "
      + "were competing).%n%n",
      Runtime.getRuntime().availableProcessors(), s.records(), r.recordBytes(),
      r.load().opsPerSec(), s.regions(), s.warmupOps(), s.rounds(), s.operations(),
      s.runTime().toSeconds()));
    b.append(r.violations().isEmpty()
      ? "Endpoint check: **passed** — every endpoint run counted at least one Get (Mutate) over "
        + "the endpoint, at the client and at the server, per read (update) done; every Netty "
        + "run counted none.\n\n"
      : "Endpoint check: **FAILED**:\n\n" + String.join("\n", r.violations().stream()
        .map(v -> "- " + v).toList()) + "\n\n");
    b.append("![throughput vs client threads](").append(PLOT).append(")\n\n");
    for (String workload : s.workloads()) {
      b.append("## ").append(workload).append(" (YCSB ")
        .append(RpcCompare.WORKLOADS.get(workload)).append(")\n\n");
      b.append("| threads | path | ops/s | ops/s per round | mean µs | p50 µs | p99 µs | ops "
        + "| failed | Gets / Mutates over the endpoint | load avg |\n"
        + "|---|---|---|---|---|---|---|---|---|---|---|\n");
      for (RpcCompare.Cell c : cells(r, workload)) {
        for (String path : RpcCompare.PATHS) {
          RpcCompare.PathRun p = c.path(path);
          InProcessYcsb.Figures f = p.figures();
          b.append(String.format(Locale.ROOT, "| %d | %s | %,.0f | %s | %.1f | %.1f | %.1f | "
            + "%,d | %d | %,d / %,d | |%n", c.threads(), path, f.opsPerSec(),
            String.join(", ", p.roundOpsPerSec().stream()
              .map(v -> String.format(Locale.ROOT, "%,.0f", v)).toList()),
            f.all().meanUs(), f.all().p50Us(), f.all().p99Us(), f.operations(), f.failed(),
            p.counter("client.Get.rdma"), p.counter("client.Mutate.rdma")));
        }
        b.append(String.format(Locale.ROOT, "| %d | **rdma / netty** | **%.2f** | | %.2f | %.2f "
          + "| %.2f | | | | %.1f |%n", c.threads(), c.ratioOps(), c.ratioMean(),
          RpcCompare.ratio(c.rdma().figures().all().p50Us(), c.netty().figures().all().p50Us()),
          RpcCompare.ratio(c.rdma().figures().all().p99Us(),
            c.netty().figures().all().p99Us()), c.loadAverage()));
      }
      b.append('\n');
    }
    b.append(paper(r));
    return b.toString();
  }

  /** Where the cluster and the clients ran, and over what. */
  static String where(RpcCompare.Result r) {
    if (!r.clientProcesses()) {
      return "One JVM: embedded tiered cluster (1 RegionServer), hybrid RPC server on the "
        + "**" + r.transport() + "** transport, YCSB's client threads in the same JVM over two "
        + "connections (HBase's Netty client over localhost sockets; the hybrid client over the "
        + "endpoint).";
    }
    return "Embedded tiered cluster (1 RegionServer) in one JVM, hybrid RPC server on the **"
      + r.transport() + "** transport; each path's YCSB client threads in a **JVM of their own** "
      + "(HBase's Netty client over TCP sockets; the hybrid client over the RDMA device), one "
      + "connection per path held for all its runs. The Gets and Mutates counted over the "
      + "endpoint are the client JVM's own counters and the RegionServer's. On SoftRoCE (rxe, "
      + "e.g. in the emulated guest of dev-support/softroce-test) the RDMA device is software "
      + "over Ethernet: both sides' RDMA work is kernel work on the same cores, and an emulated "
      + "guest runs some hundred times slower than the host, so only the ratios compare.";
  }

  /** The study's figures beside this run's ratios. */
  static String paper(RpcCompare.Result r) {
    StringBuilder b = new StringBuilder();
    b.append("## Against the paper (ratios compare, absolute numbers do not)\n\n");
    b.append("*High-Performance Design of HBase with RDMA over InfiniBand*, section V-D "
      + "(Fig. 9–10): **their hardware** — HBase 0.90.3, 4 RegionServers, InfiniBand DDR "
      + "(ConnectX; the cluster that also has 10 GigE) with the UCR RDMA design against 10 GigE "
      + "and IPoIB sockets, 320,000 records of 1 KB cached in the servers' memory, one YCSB "
      + "thread per client node, client-side buffering off. **This run** — " + (r.clientProcesses()
      ? "1 RegionServer and the clients in separate JVMs on one machine, the " + r.transport()
      + " transport against Netty over TCP sockets on the same interface"
      : "1 RegionServer and the clients in one JVM on this machine, the loopback transport (no "
      + "wire: the endpoint path's cost without the network) against Netty over localhost "
      + "sockets") + ".\n\n");
    b.append("| workload, clients | paper: RDMA (UCR) vs sockets | this run: rdma / netty |\n"
      + "|---|---|---|\n");
    RpcCompare.Cell read8 = r.cell("read", 8);
    b.append("| read, 8 | latency 174.6 µs, 43 % below 10 GigE (ratio 0.57); throughput "
      + "≈ 2× | ").append(read8 == null ? "not run" : String.format(Locale.ROOT,
        "mean latency %.1f vs %.1f µs (ratio %.2f); throughput ratio %.2f",
        read8.rdma().figures().all().meanUs(), read8.netty().figures().all().meanUs(),
        read8.ratioMean(), read8.ratioOps())).append(" |\n");
    RpcCompare.Cell write16 = r.cell("write", 16);
    b.append("| write, 16 | 41.7 K ops/s, 20 % above IPoIB (ratio 1.20) | ")
      .append(write16 == null ? "not run" : String.format(Locale.ROOT,
        "%,.0f vs %,.0f ops/s (ratio %.2f); mean latency ratio %.2f",
        write16.rdma().figures().opsPerSec(), write16.netty().figures().opsPerSec(),
        write16.ratioOps(), write16.ratioMean())).append(" |\n");
    RpcCompare.Cell rw8 = r.cell("read-write", 8);
    b.append("| read-write, 8 | read latency −24 %, write −15 % vs 10 GigE (ratios 0.76, "
      + "0.85); throughput up to +23 % (1.23) | ").append(rw8 == null ? "not run"
        : String.format(Locale.ROOT, "read latency ratio %.2f, update %.2f; throughput ratio "
          + "%.2f", rw8.ratioMean(MeasuredDb.READ), rw8.ratioMean(MeasuredDb.UPDATE),
          rw8.ratioOps())).append(" |\n\n");
    return b.toString();
  }
}
