package io.strata.bench.ycsb;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.strata.bench.common.BenchJson;
import io.strata.bench.monitor.BenchMonitor;
import io.strata.bench.monitor.Monitor;
import io.strata.cli.CommandLines;
import io.strata.local.EmbeddedHBase;
import io.strata.local.LocalClusterConfig;
import io.strata.local.StrataLocal;
import io.strata.local.TieredDfsCluster;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.Option;
import org.apache.commons.cli.Options;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;

/**
 * {@code strata bench ycsb}: YCSB++'s experiments on the embedded tiered cluster — a multi-phase
 * run (load, flush, settle, workloads) with per-phase figures and server activity, the pre-split
 * comparison, the read-after-write lag with and without client-side buffering, several
 * YCSB client processes started together through a ZooKeeper barrier ({@code --clients}), and
 * YCSB over the hybrid RPC's RDMA endpoint against YCSB over Netty ({@code --rpc-compare},
 * {@link RpcCompare}) and YCSB++'s four server-side filters against the same predicate applied
 * in the client ({@code --filter-compare}, {@link FilterComparison}), and the cost of HBase's
 * access control with table and cell ACLs ({@code --acl-compare}, {@link AclComparison}). Not
 * thread-safe: one run per JVM.
 */
public final class YcsbBench {
  private static final String COMMAND = "strata bench ycsb";
  private static final String HEADER = "Starts the embedded tiered cluster (as strata local does) "
    + "and runs YCSB++'s experiments: the phases of --phases (default unless --presplit-compare "
    + "or --raw-lag or --rpc-compare or --filter-compare alone), the pre-split comparison and the read-after-write "
    + "lag; YCSB runs in --clients processes of --threads threads, started together through a "
    + "ZooKeeper barrier when more than one. --rpc-compare starts the cluster with the hybrid "
    + "RPC server on the loopback transport and runs YCSB's read, write and read-write "
    + "workloads in this JVM (with --rpc-transport verbs: on an RDMA device, YCSB in client "
    + "JVMs of their own), over HBase's Netty client and over the RDMA endpoint in turn. "
    + "--acl-compare starts two HBase on the same HDFS, without and with the AccessController."
    + "\n\n";
  static final String DEFAULT_PHASES = "load,flush,settle,a";
  /**
   * Cluster defaults of this bench (over HBase's), so that a load of a few hundred MiB flushes,
   * compacts and splits: 32 MiB memstores, regions split at 128 MiB.
   */
  static final Map<String, String> HBASE_DEFAULTS = Map.of(
    HConstants.HREGION_MEMSTORE_FLUSH_SIZE, Long.toString(32L << 20),
    HConstants.HREGION_MAX_FILESIZE, Long.toString(128L << 20));

  /** Records loaded by --rpc-compare unless --records says otherwise. */
  static final long RPC_RECORDS_DEFAULT = 20_000;
  /** Most operations of an --rpc-compare run unless --operations says otherwise. */
  static final long RPC_OPERATIONS_DEFAULT = 1_000_000;
  /** Records loaded by --filter-compare unless --records says otherwise. */
  static final long FILTER_RECORDS_DEFAULT = 20_000;
  /** Fields of a --filter-compare row unless --ycsb fieldcount says otherwise: the paper's. */
  static final int FILTER_FIELDS_DEFAULT = 100;
  /** YCSB properties --rpc-compare sets itself. */
  static final List<String> RPC_OWNED = List.of(HBaseClient26.TABLE, HBaseClient26.CONNECTION,
    HBaseClient26.CLIENT_BUFFERING);

  private YcsbBench() {
  }

  /**
   * What a run does; {@code rpcCompare} null unless --rpc-compare, {@code out} where its report
   * goes.
   */
  record Settings(List<MultiPhaseRun.Step> phases, boolean presplitCompare, boolean rawLag,
    int clients, int threads, long records, long operations, int regions, int rounds,
    Settle settle, int rawRecords, List<Long> rawBuffers, int rawTarget, int rawSample,
    long staggerMs, Map<String, String> ycsb, File workDir, RpcCompare.Settings rpcCompare,
    File out, boolean bulkloadCompare, long monitorMs,
    FilterComparison.Settings filters, AclComparison.Settings acl) {
  }

  static Options options() {
    Options o = new Options();
    o.addOption(null, "phases", true, "steps of the multi-phase run, comma-separated: load, "
      + "flush, settle, or a workload (a, b, c, f, update-only) (default " + DEFAULT_PHASES + ")");
    o.addOption(null, "presplit-compare", false,
      "load into a table pre-split into --regions regions and into a 1-region table");
    o.addOption(null, "bulkload-compare", false, "the pre-split comparison's YCSB loads, then "
      + "the same records bulk-loaded (HFiles per region + BulkLoadHFiles) into the same two "
      + "tables: rows/s of each");
    o.addOption(null, "acl-compare", false, "inserts and scans of YCSB's records by the "
      + "non-superuser '" + AclComparison.USER + "' without HBase's AccessController and with it, "
      + "ACLs of --acl-entries entries at table level (grants) and cell level (Put#setACL); "
      + "two HBase side by side on one HDFS, each protected run next to a baseline run, which "
      + "goes first every other pair; --rounds of them (default 2); "
      + "inserts/s, scan rows/s and their ratio to no AccessController, a plot in --out");
    o.addOption(null, "acl-entries", true, "--acl-compare: ACL entries, comma-separated "
      + "(default 4,11)");
    o.addOption(null, "acl-scan-length", true, "--acl-compare: rows per scan, from a random "
      + "record's key (default 1000)");
    o.addOption(null, "acl-scan-rows", true, "--acl-compare: rows scanned per variant and "
      + "round (default: --records)");
    o.addOption(null, "acl-buffer-kb", true, "--acl-compare: client write buffer per inserting "
      + "thread in KiB (default 100, as YCSB++)");
    o.addOption(null, "raw-lag", false,
      "measure read-after-write lag with the buffer sizes of --raw-buffers-kb");
    o.addOption(null, "clients", true, "YCSB client processes per phase (default 1)");
    o.addOption(null, "threads", true, "YCSB threads per client process (default 4)");
    o.addOption(null, "records", true, "records loaded (YCSB recordcount, default 100000)");
    o.addOption(null, "operations", true,
      "operations per workload phase (YCSB operationcount, default 100000)");
    o.addOption(null, "regions", true,
      "regions of the pre-split usertable (phases and --presplit-compare; default 8)");
    o.addOption(null, "rounds", true,
      "--presplit-compare rounds, alternating which variant goes first (default 1)");
    o.addOption(null, "settle-quiet-s", true, "settle: seconds without flush or compaction "
      + "queued or running and with no store file count change (default 5)");
    o.addOption(null, "settle-max-s", true,
      "settle: give up watching after this many seconds and wait the quiet period (default 120)");
    o.addOption(null, "settle-fixed-s", true,
      "settle: just wait this many seconds instead of watching the servers");
    o.addOption(null, "raw-records", true, "--raw-lag: records written per buffer size "
      + "(default 20000)");
    o.addOption(null, "raw-buffers-kb", true, "--raw-lag: client write buffer sizes in KiB, "
      + "0 for no buffering (default 0,64,1024)");
    o.addOption(null, "raw-target", true,
      "--raw-lag: writes per second to aim at, 0 for as fast as possible (default 2000)");
    o.addOption(null, "raw-sample", true, "--raw-lag: publish and measure every n-th key "
      + "(default: about 64 keys per buffer's worth of records)");
    o.addOption(null, "rpc-compare", false, "YCSB read (100% Get), write (100% Put) and "
      + "read-write (50/50) over HBase's Netty client and over the hybrid RPC's RDMA endpoint "
      + "(--rpc-transport), one run, the paths taking turns: ops/s, "
      + "mean, p50, p99 per workload, thread count and path, the endpoint's call counters as "
      + "proof; starts the cluster with the hybrid RPC server. Client buffering off; records of "
      + "10 x 100 bytes; --records defaults to " + RPC_RECORDS_DEFAULT + " and --operations "
      + "(most per run) to " + RPC_OPERATIONS_DEFAULT);
    o.addOption(null, "rpc-transport", true, "--rpc-compare: the endpoint's transport: loopback "
      + "(YCSB's threads run in this JVM, the only place the loopback endpoint reaches) or verbs "
      + "(an RDMA device, e.g. SoftRoCE's rxe0: each path's YCSB runs in a client JVM of its "
      + "own, as in the RDMA HBase study) (default loopback)");
    o.addOption(null, "rpc-threads", true, "--rpc-compare: client thread counts, comma-separated "
      + "(default 1,2,4,8,16)");
    o.addOption(null, "rpc-workloads", true, "--rpc-compare: workloads, comma-separated, of "
      + "read, write, read-write (default all three)");
    o.addOption(null, "rpc-seconds", true, "--rpc-compare: longest run (one round of a "
      + "workload at a thread count over one path), in seconds (default 6)");
    o.addOption(null, "rpc-rounds", true, "--rpc-compare: runs per workload, thread count and "
      + "path, the paths' order reversed each round (default 2)");
    o.addOption(null, "rpc-warmup-ops", true, "--rpc-compare: read-write operations per path "
      + "before the measured runs (default 10000)");
    o.addOption(null, "filter-compare", false, "YCSB++'s four server-side filters (RowFilter, "
      + "QualifierFilter, ValueFilter with RegexStringComparator, SingleColumnValueFilter) "
      + "against the same scans unfiltered with the predicate applied in the client, per scan "
      + "length and selectivity: ms per scan, bytes returned, the matches checked against the "
      + "data on both sides; rows of --ycsb fieldcount (default " + FILTER_FIELDS_DEFAULT
      + ") x fieldlength (default 100) bytes, --records defaults to " + FILTER_RECORDS_DEFAULT);
    o.addOption(null, "filter-lengths", true, "--filter-compare: rows per scan, comma-separated "
      + "(default 1,10,100,1000)");
    o.addOption(null, "filter-selectivities", true, "--filter-compare: share of rows or cells "
      + "each filter passes, whole percents, comma-separated (default 1,10,50,100)");
    o.addOption(null, "filter-reps", true, "--filter-compare: scans per filter, length, "
      + "selectivity and side (default 10)");
    o.addOption(null, "filter-seed", true, "--filter-compare: seed of the scans' random starts "
      + "(default 1)");
    o.addOption(null, "out", true, "directory for the plots: the monitoring timeline "
      + "(monitor.png), --raw-lag's retried keys' lag, --filter-compare's and --acl-compare's "
      + "plots, --rpc-compare's "
      + "report.md and throughput "
      + "plot (default $STRATA_WORK/bench/ycsb, with --rpc-compare $STRATA_WORK/bench/ycsb-rpc)");
    BenchMonitor.addOption(o, true);
    o.addOption(null, "stagger-ms", true,
      "start client process i i x this many ms after the first (default 0)");
    o.addOption(Option.builder().longOpt("ycsb").hasArg().argName("KEY=VALUE")
      .desc("a YCSB property for every phase, e.g. fieldcount=10 (repeatable)").build());
    o.addOption(null, "json", true, "also write the results as JSON to this file");
    o.addOption(null, "work-dir", true, "cluster data, wiped at start (default "
      + "$STRATA_WORK/bench/ycsb, STRATA_WORK defaulting to .strata-work)");
    o.addOption(null, "ram-mb", true, "RAM tier per DataNode in MiB (default 1024)");
    o.addOption(null, "datanodes", true, "DataNodes (default 3)");
    o.addOption(null, "regionservers", true, "RegionServers (default 1)");
    o.addOption(Option.builder().longOpt("hbase").hasArg().argName("KEY=VALUE")
      .desc("an HBase key of the cluster (repeatable); this bench's defaults: "
        + "hbase.hregion.memstore.flush.size=33554432, hbase.hregion.max.filesize=134217728")
      .build());
    o.addOption(Option.builder().longOpt("dfs").hasArg().argName("KEY=VALUE")
      .desc("an HDFS key of the cluster (repeatable)").build());
    o.addOption("h", "help", false, "this text");
    return o;
  }

  public static void main(String[] args) {
    CommandLines.runAndHalt(COMMAND, () -> run(args, System.out));
  }

  static int run(String[] args, PrintStream out) throws Exception {
    CommandLine cl;
    try {
      cl = CommandLines.parse(COMMAND, COMMAND + " [options]", HEADER, options(), args);
    } catch (CommandLines.Exit e) {
      return e.code();
    }
    Settings s;
    LocalClusterConfig config;
    try {
      s = settings(cl);
      config = StrataLocal.config(cl).workDir(s.workDir());
      Map<String, String> defaults = new LinkedHashMap<>(HBASE_DEFAULTS);
      if (s.rpcCompare() != null) {
        defaults.putAll(RpcCompare.clusterKeys(s.rpcCompare().transport()));
      }
      defaults.putAll(BenchMonitor.hbaseKeys(s.monitorMs()));
      for (Map.Entry<String, String> e : defaults.entrySet()) {
        if (!config.hbaseOverrides().containsKey(e.getKey())) {
          config.hbase(e.getKey(), e.getValue());
        }
      }
      if (s.acl() != null) {
        for (String key : EmbeddedHBase.ACCESS_CONTROL.keySet()) {
          if (config.hbaseOverrides().containsKey(key)) {
            throw new IllegalArgumentException("--hbase " + key + " is set by --acl-compare, "
              + "which starts HBase without and with the AccessController");
          }
        }
      }
    } catch (IllegalArgumentException e) {
      System.err.println(COMMAND + ": " + e.getMessage());
      return 2;
    }
    out.printf(Locale.ROOT, "[ycsb] starting the embedded cluster: %d DataNodes, %d "
      + "RegionServers, data in %s; HBase %s%n", config.dataNodes(), config.regionServers(),
      config.workDir(), config.hbaseOverrides());
    Parts json = new Parts(YcsbResult.Settings.of(s));
    List<String> violations = new ArrayList<>();
    try (TieredDfsCluster dfs = TieredDfsCluster.start(config);
      BenchMonitor monitor = BenchMonitor.start(s.monitorMs(), true)) {
      if (s.acl() == null || !s.phases().isEmpty() || s.presplitCompare() || s.bulkloadCompare()
        || s.rawLag() || s.rpcCompare() != null || s.filters() != null) {
        monitored(dfs, s, args, json, violations, out, monitor);
      }
      if (s.acl() != null) {
        AclComparison.Settings a = s.acl();
        out.printf("%n== access control: %d inserts and %d scanned rows per variant as %s, "
          + "without the AccessController and with ACLs of %s entries at table and cell level, "
          + "%d round(s)%n", a.records(), a.scanRows(), AclComparison.USER, a.entries(),
          a.rounds());
        AclComparison.Result r = acl(dfs, s, out::println, monitor);
        json.acl = YcsbResult.Acl.of(r);
        File png = new File(s.out(), YcsbPlots.ACL_PNG);
        YcsbPlots.acl(r, png);
        r.lines().forEach(out::println);
        out.println("YCSB++ (IcyTable, cell ACLs, 1 client): inserts -24 % at 4 entries, -47 % "
          + "at 11; scans -40 to -50 % with any ACL; plot: " + png);
      }
      ObjectNode monitored = JsonNodeFactory.instance.objectNode();
      monitor.writeIn(monitored, s.out(), COMMAND, out);
      json.monitoring = monitored.get(BenchMonitor.SECTION);
    }
    if (cl.hasOption("json")) {
      File file = new File(cl.getOptionValue("json"));
      BenchJson.write(file, json.result());
      out.println("JSON written to " + file);
    }
    if (!violations.isEmpty()) {
      System.err.println(COMMAND + ": " + violations);
      return 1;
    }
    return 0;
  }

  /**
   * --acl-compare on {@code dfs}: HBase without and with the AccessController, side by side; the
   * monitor follows the cluster each step runs on.
   */
  static AclComparison.Result acl(TieredDfsCluster dfs, Settings s, Consumer<Object> progress,
    BenchMonitor monitor) throws IOException, InterruptedException {
    return new AclComparison(clusters(dfs), TableName.valueOf("ycsb_acl"),
      YcsbTable.DEFAULT_FAMILY, s.acl()).steps((phase, cluster) -> {
        monitor.follow(cluster == null ? null : cluster.connection());
        monitor.phase(phase);
      }).run(progress);
  }

  /**
   * HBase started on {@code dfs} with or without the AccessController (the keys of
   * {@link LocalClusterConfig#accessControl(boolean)}), as {@code hbase-acl} or {@code hbase-plain}
   * beside any other HBase there, each on an empty root directory.
   */
  static AclComparison.Clusters clusters(TieredDfsCluster dfs) {
    return accessControl -> {
      String name = accessControl ? "acl" : "plain";
      dfs.fileSystem().delete(new org.apache.hadoop.fs.Path(EmbeddedHBase.ROOT_DIR + "-" + name),
        true);
      return EmbeddedHBase.start(dfs, name, accessControl);
    };
  }

  /**
   * Every experiment but --acl-compare, on one HBase, which {@code monitor} follows while it runs.
   */
  private static void monitored(TieredDfsCluster dfs, Settings s, String[] args,
    Parts json, List<String> violations, PrintStream out, BenchMonitor monitor)
    throws Exception {
    monitor.phase("start HBase");
    try (EmbeddedHBase hbase = EmbeddedHBase.start(dfs)) {
      out.printf("[ycsb] HBase up, ZooKeeper %s%n", hbase.zookeeperQuorum());
      Experiments x = new Experiments(hbase, s, s.workDir().toPath().resolve("ycsb"));
      monitor.follow(hbase.connection());
      x.monitored(monitor::phase);
      try {
        experiments(x, s, args, json, violations, out);
      } finally {
        monitor.follow(null);
        monitor.phase("stop HBase");
      }
    }
  }

  private static void experiments(Experiments x, Settings s, String[] args, Parts json,
    List<String> violations, PrintStream out) throws Exception {
    if (!s.phases().isEmpty()) {
      out.printf("%n== multi-phase run: %s (%d clients x %d threads, %d records, %d operations "
        + "per workload, usertable pre-split into %d regions)%n", names(s.phases()),
        s.clients(), s.threads(), s.records(), s.operations(), s.regions());
      json.phases = x.phases(out::println).stream().map(YcsbResult.Step::of).toList();
    }
    if (s.presplitCompare()) {
      out.printf("%n== pre-split comparison: load of %d records into %d regions vs 1 region, "
        + "%d round(s)%n", s.records(), s.regions(), s.rounds());
      PresplitComparison.Result r = x.presplit(out::println);
      out.printf(Locale.ROOT, "pre-split / single ingest throughput: %.0f / %.0f ops/s = %.2f%n",
        r.presplitOpsPerSec(), r.singleOpsPerSec(), r.ratio());
      json.presplit = YcsbResult.Presplit.of(r);
    }
    if (s.bulkloadCompare()) {
      out.printf("%n== bulk load: %d records by YCSB's inserts and by HFiles + BulkLoadHFiles, "
        + "into %d regions and into 1, %d round(s)%n", s.records(), s.regions(), s.rounds());
      BulkLoadComparison.Result r = x.bulkload(out::println);
      out.println(r);
      json.bulkload = YcsbResult.BulkLoad.of(r);
    }
    if (s.rawLag()) {
      out.printf("%n== read-after-write lag: %d records per variant at %s writes/s, writer and "
        + "reader on separate connections, keys published in ZooKeeper%n", s.rawRecords(),
        s.rawTarget() == 0 ? "as many" : Integer.toString(s.rawTarget()));
      List<ReadAfterWriteLag.Result> lags = x.rawLag(out::println);
      json.rawLag = lags.stream().map(YcsbResult.Lag::of).toList();
      File png = new File(s.out(), "raw-lag-retried-cdf.png");
      YcsbPlots.lag(lags, png);
      out.println("keys that needed a retry, per buffer: " + YcsbPlots.lagShares(lags)
        + " (YCSB++ on HBase: < 1 % at 10 KB, 7.4 % at 100 KB, 17 % at 1 MB, 23 % at 10 MB); "
        + "plot: " + png);
    }
    if (s.rpcCompare() != null) {
      RpcCompare.Settings rc = s.rpcCompare();
      out.printf("%n== RPC comparison: %s at %s threads over Netty and over the RDMA endpoint "
        + "(%s transport%s), %d records, %d round(s) per path of at most %d operations or "
        + "%d s%n", String.join(",", rc.workloads()), rc.threads(), rc.transport(),
        RpcCompare.LOOPBACK.equals(rc.transport()) ? ", YCSB in this JVM"
          : ", YCSB in a client JVM per path", rc.records(), rc.rounds(),
        rc.operations(), rc.runTime().toSeconds());
      x.mark("rpc-compare");
      RpcCompare.Result r = RpcCompare.run(x.hbase, rc, s.workDir().toPath(), out::println);
      json.rpcCompare = YcsbResult.Rpc.of(r);
      RpcCompareReport.write(r, "./strata bench ycsb " + String.join(" ", args), s.out());
      out.println("report: " + new File(s.out(), RpcCompareReport.MARKDOWN) + ", plot: "
        + new File(s.out(), RpcCompareReport.PLOT));
      r.violations().forEach(v -> violations.add("--rpc-compare: a run did not go over the "
        + "path it claims: " + v));
    }
    if (s.filters() != null) {
      FilterComparison.Settings f = s.filters();
      out.printf("%n== server-side filtering: %d records of %d x %d B, scans of %s rows, "
        + "selectivities %s %%, %d scans per side and cell%n", f.records(), f.fieldCount(),
        f.fieldLength(), f.scanRows(), f.selectivities(), f.repetitions());
      FilterComparison.Result r = x.filters(out::println);
      json.filters = YcsbResult.Filter.all(r);
      json.filtersSummary = YcsbResult.FiltersSummary.of(r);
      List<File> pngs = YcsbPlots.filters(r, s.out());
      r.summary().forEach(out::println);
      out.println(FilterComparison.PAPER + "; plots: " + pngs);
      for (FilterComparison.Cell c : r.disagreements()) {
        violations.add("--filter-compare: server and client disagree: " + c);
      }
    }
  }

  private static String names(List<MultiPhaseRun.Step> steps) {
    return String.join(",", steps.stream().map(MultiPhaseRun.Step::name).toList());
  }

  static Settings settings(CommandLine cl) {
    boolean presplit = cl.hasOption("presplit-compare");
    boolean raw = cl.hasOption("raw-lag");
    boolean rpc = cl.hasOption("rpc-compare");
    boolean bulk = cl.hasOption("bulkload-compare");
    boolean filter = cl.hasOption("filter-compare");
    boolean acl = cl.hasOption("acl-compare");
    List<MultiPhaseRun.Step> phases = cl.hasOption("phases")
      ? MultiPhaseRun.parse(cl.getOptionValue("phases"))
      : presplit || raw || rpc || bulk || filter || acl ? List.of()
        : MultiPhaseRun.parse(DEFAULT_PHASES);
    Map<String, String> ycsb = new LinkedHashMap<>();
    String[] kvs = cl.getOptionValues("ycsb");
    for (String kv : kvs == null ? new String[0] : kvs) {
      int eq = kv.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("--ycsb takes KEY=VALUE, not '" + kv + "'");
      }
      ycsb.put(kv.substring(0, eq), kv.substring(eq + 1));
    }
    for (String owned : List.of("recordcount", "operationcount", "insertstart", "insertcount")) {
      if (ycsb.containsKey(owned)) {
        throw new IllegalArgumentException("--ycsb " + owned + " is set by the bench: use "
          + "--records and --operations");
      }
    }
    if ((presplit || bulk || !phases.isEmpty()) && "ordered".equals(ycsb.get("insertorder"))) {
      throw new IllegalArgumentException("The pre-split table is split for YCSB's hashed keys; "
        + "insertorder=ordered would load into one of its regions");
    }
    Settle settle = cl.hasOption("settle-fixed-s")
      ? Settle.fixed(Duration.ofSeconds(CommandLines.wholeNumber(cl, "settle-fixed-s", 0, 0)))
      : Settle.untilQuiet(Duration.ofSeconds(CommandLines.wholeNumber(cl, "settle-quiet-s", 5, 0)),
        Duration.ofSeconds(CommandLines.wholeNumber(cl, "settle-max-s", 120, 1)));
    List<Long> buffers = new ArrayList<>();
    for (String b : cl.getOptionValue("raw-buffers-kb", "0,64,1024").split(",")) {
      try {
        long kb = Long.parseLong(b.trim());
        if (kb < 0) {
          throw new NumberFormatException();
        }
        buffers.add(kb << 10);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("--raw-buffers-kb takes sizes in KiB (0 or more), "
          + "comma-separated, not '" + b + "'");
      }
    }
    File workDir = new File(cl.getOptionValue("work-dir",
      CommandLines.workDir("bench/ycsb").getPath()));
    RpcCompare.Settings rpcSettings = rpcSettings(cl, rpc, ycsb, settle);
    long monitorMs = BenchMonitor.intervalMs(cl);
    FilterComparison.Settings filterSettings = filterSettings(cl, filter, ycsb);
    File out = new File(cl.getOptionValue("out",
      CommandLines.workDir(rpc ? "bench/ycsb-rpc" : "bench/ycsb").getPath()));
    return new Settings(phases, presplit, raw, (int) CommandLines.wholeNumber(cl, "clients", 1, 1),
      (int) CommandLines.wholeNumber(cl, "threads", 4, 1),
      CommandLines.wholeNumber(cl, "records", rpc ? RPC_RECORDS_DEFAULT
        : filter && phases.isEmpty() && !presplit && !bulk ? FILTER_RECORDS_DEFAULT : 100_000, 1),
      CommandLines.wholeNumber(cl, "operations", rpc ? RPC_OPERATIONS_DEFAULT : 100_000, 1), (int) CommandLines.wholeNumber(cl, "regions", 8, 1),
      (int) CommandLines.wholeNumber(cl, "rounds", 1, 1), settle, (int) CommandLines.wholeNumber(cl, "raw-records", 20_000, 1),
      buffers, (int) CommandLines.wholeNumber(cl, "raw-target", 2000, 0), (int) CommandLines.wholeNumber(cl, "raw-sample", 0, 0),
      CommandLines.wholeNumber(cl, "stagger-ms", 0, 0), ycsb, workDir, rpcSettings, out, bulk,
      monitorMs, filterSettings, aclSettings(cl, acl, ycsb));
  }

  /** --acl-compare's settings, null without it (then its options are refused). */
  static AclComparison.Settings aclSettings(CommandLine cl, boolean acl,
    Map<String, String> ycsb) {
    if (!acl) {
      for (String o : List.of("acl-entries", "acl-scan-length", "acl-scan-rows",
        "acl-buffer-kb")) {
        if (cl.hasOption(o)) {
          throw new IllegalArgumentException("--" + o + " goes with --acl-compare");
        }
      }
      return null;
    }
    long records = CommandLines.wholeNumber(cl, "records", 100_000, 1);
    return new AclComparison.Settings(records,
      (int) CommandLines.wholeNumber(cl, "threads", 4, 1),
      List.copyOf(CommandLines.wholeNumbers(cl, "acl-entries", AclComparison.DEFAULT_ENTRIES, 1,
        1000)),
      (int) CommandLines.wholeNumber(cl, "rounds", 2, 1),
      (int) CommandLines.wholeNumber(cl, "acl-scan-length", 1000, 1),
      CommandLines.wholeNumber(cl, "acl-scan-rows", records, 1),
      (int) CommandLines.wholeNumber(cl, "regions", 8, 1),
      ycsbInt(ycsb, "fieldcount", 10), ycsbInt(ycsb, "fieldlength", 100),
      CommandLines.wholeNumber(cl, "acl-buffer-kb", 100, 0) << 10);
  }

  /** --filter-compare's settings, null without it (then its options are refused). */
  static FilterComparison.Settings filterSettings(CommandLine cl, boolean filter,
    Map<String, String> ycsb) {
    if (!filter) {
      for (String o : List.of("filter-lengths", "filter-selectivities", "filter-reps",
        "filter-seed")) {
        if (cl.hasOption(o)) {
          throw new IllegalArgumentException("--" + o + " goes with --filter-compare");
        }
      }
      return null;
    }
    return new FilterComparison.Settings(
      CommandLines.wholeNumber(cl, "records", FILTER_RECORDS_DEFAULT, 1),
      ycsbInt(ycsb, "fieldcount", FILTER_FIELDS_DEFAULT), ycsbInt(ycsb, "fieldlength", 100),
      (int) CommandLines.wholeNumber(cl, "regions", 8, 1),
      CommandLines.wholeNumbers(cl, "filter-lengths", List.of(1, 10, 100, 1000), 1,
        Integer.MAX_VALUE),
      CommandLines.wholeNumbers(cl, "filter-selectivities", List.of(1, 10, 50, 100), 1, 100),
      (int) CommandLines.wholeNumber(cl, "filter-reps", 10, 1),
      CommandLines.wholeNumber(cl, "filter-seed", 1, 0));
  }

  private static int ycsbInt(Map<String, String> ycsb, String key, int dflt) {
    String v = ycsb.get(key);
    try {
      return v == null ? dflt : Integer.parseInt(v.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--ycsb " + key + " takes a whole number, not '" + v
        + "'");
    }
  }

  /** --rpc-compare's settings, null without it (then its options are refused). */
  static RpcCompare.Settings rpcSettings(CommandLine cl, boolean rpc, Map<String, String> ycsb,
    Settle settle) {
    if (!rpc) {
      for (String o : List.of("rpc-threads", "rpc-workloads", "rpc-seconds", "rpc-rounds",
        "rpc-warmup-ops", "rpc-transport")) {
        if (cl.hasOption(o)) {
          throw new IllegalArgumentException("--" + o + " goes with --rpc-compare");
        }
      }
      return null;
    }
    for (String owned : RPC_OWNED) {
      if (ycsb.containsKey(owned)) {
        throw new IllegalArgumentException("--ycsb " + owned + " is set by --rpc-compare");
      }
    }
    List<Integer> threads = CommandLines.wholeNumbers(cl, "rpc-threads",
      RpcCompare.DEFAULT_THREADS, 1, 1024);
    List<String> workloads = new ArrayList<>();
    String workloadList = cl.getOptionValue("rpc-workloads",
      String.join(",", RpcCompare.WORKLOADS.keySet()));
    for (String w : workloadList.split(",", -1)) {
      if (!RpcCompare.WORKLOADS.containsKey(w.trim()) || workloads.contains(w.trim())) {
        throw new IllegalArgumentException("--rpc-workloads takes distinct workloads of "
          + String.join(", ", RpcCompare.WORKLOADS.keySet()) + ", not '" + workloadList + "'");
      }
      workloads.add(w.trim());
    }
    long operations = CommandLines.wholeNumber(cl, "operations", RPC_OPERATIONS_DEFAULT, 1);
    if (operations > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("--operations: YCSB counts at most "
        + Integer.MAX_VALUE + " per run");
    }
    return new RpcCompare.Settings(CommandLines.wholeNumber(cl, "records", RPC_RECORDS_DEFAULT, 1),
      operations, Duration.ofSeconds(CommandLines.wholeNumber(cl, "rpc-seconds", 6, 1)),
      List.copyOf(workloads), List.copyOf(threads),
      (int) CommandLines.wholeNumber(cl, "rpc-rounds", 2, 1),
      CommandLines.wholeNumber(cl, "rpc-warmup-ops", 10_000, 0),
      (int) CommandLines.wholeNumber(cl, "regions", 8, 1), Map.copyOf(ycsb), settle,
      cl.getOptionValue("rpc-transport", RpcCompare.LOOPBACK).trim());
  }

  /** The parts of the result as the experiments finish, in the order the JSON has them. */
  static final class Parts {
    final YcsbResult.Settings settings;
    List<YcsbResult.Step> phases;
    YcsbResult.Presplit presplit;
    YcsbResult.BulkLoad bulkload;
    List<YcsbResult.Lag> rawLag;
    YcsbResult.Rpc rpcCompare;
    List<YcsbResult.Filter> filters;
    YcsbResult.FiltersSummary filtersSummary;
    YcsbResult.Acl acl;
    JsonNode monitoring;

    Parts(YcsbResult.Settings settings) {
      this.settings = settings;
    }

    YcsbResult result() {
      return new YcsbResult(settings, phases, presplit, bulkload, rawLag, rpcCompare, filters,
        filtersSummary, acl, monitoring);
    }
  }

  /** The experiments on one running cluster; also what the integration test drives. */
  static final class Experiments {
    private final EmbeddedHBase hbase;
    private final Settings s;
    private final Path dir;
    /** Marks each experiment's phases on the run's timeline; null when not monitoring. */
    private Consumer<String> marks;

    Experiments(EmbeddedHBase hbase, Settings s, Path dir) {
      this.hbase = hbase;
      this.s = s;
      this.dir = dir;
    }

    Experiments monitored(Monitor m) {
      return monitored(m::phase);
    }

    Experiments monitored(Consumer<String> phaseMarks) {
      this.marks = phaseMarks;
      return this;
    }

    void mark(String phase) {
      if (marks != null) {
        marks.accept(phase);
      }
    }

    /** What a YCSB process needs to find the cluster. */
    Map<String, String> clusterProperties() {
      return Map.of(HConstants.ZOOKEEPER_QUORUM, "localhost", HConstants.ZOOKEEPER_CLIENT_PORT,
        hbase.configuration().get(HConstants.ZOOKEEPER_CLIENT_PORT));
    }

    YcsbClients clients() {
      return new YcsbClients(s.clients(), s.threads(), hbase.zookeeperQuorum())
        .properties(clusterProperties()).property("recordcount", Long.toString(s.records()))
        .property("operationcount", Long.toString(s.operations())).properties(s.ycsb())
        .stagger(Duration.ofMillis(s.staggerMs())).jvmOption("-Xmx512m");
    }

    List<MultiPhaseRun.StepResult> phases(Consumer<Object> progress)
      throws Exception {
      TableName t = YcsbTable.DEFAULT_TABLE;
      try (Admin admin = hbase.connection().getAdmin()) {
        YcsbTable.dropIfExists(admin, t);
        YcsbTable.create(admin, t, YcsbTable.DEFAULT_FAMILY, s.regions());
        MultiPhaseRun run = new MultiPhaseRun(clients(), RegionServerActivity.of(hbase, t),
          s.settle(), () -> admin.flush(t), dir.resolve("phases"))
          .onStep(step -> mark(step.name()));
        return run.run(s.phases(), progress::accept);
      }
    }

    PresplitComparison.Result presplit(Consumer<Object> progress)
      throws Exception {
      TableName t = TableName.valueOf("ycsb_presplit");
      mark("presplit-compare");
      try (Admin admin = hbase.connection().getAdmin()) {
        PresplitComparison c = new PresplitComparison(admin, t, YcsbTable.DEFAULT_FAMILY,
          clients().property(HBaseClient26.TABLE, t.getNameAsString()),
          RegionServerActivity.of(hbase, t), s.settle(), dir.resolve("presplit"));
        try {
          return c.run(s.regions(), s.rounds(), progress::accept);
        } finally {
          YcsbTable.dropIfExists(admin, t);
        }
      }
    }

    BulkLoadComparison.Result bulkload(Consumer<Object> progress) throws Exception {
      TableName t = TableName.valueOf("ycsb_bulkload");
      mark("bulkload-compare");
      try (Admin admin = hbase.connection().getAdmin()) {
        PresplitComparison inserts = new PresplitComparison(admin, t, YcsbTable.DEFAULT_FAMILY,
          clients().property(HBaseClient26.TABLE, t.getNameAsString()),
          RegionServerActivity.of(hbase, t), s.settle(), dir.resolve("bulkload"));
        BulkLoadComparison c = new BulkLoadComparison(hbase.configuration(), hbase.connection(),
          t, YcsbTable.DEFAULT_FAMILY, inserts,
          Integer.parseInt(s.ycsb().getOrDefault("fieldcount", "10")),
          Integer.parseInt(s.ycsb().getOrDefault("fieldlength", "100")));
        try {
          return c.run(s.records(), s.regions(), s.rounds(), progress);
        } finally {
          YcsbTable.dropIfExists(admin, t);
        }
      }
    }

    FilterComparison.Result filters(Consumer<Object> progress) throws Exception {
      mark("filter-compare");
      return new FilterComparison(hbase.connection(), TableName.valueOf("ycsb_filter"),
        YcsbTable.DEFAULT_FAMILY, s.filters()).run(progress);
    }

    List<ReadAfterWriteLag.Result> rawLag(Consumer<Object> progress)
      throws Exception {
      TableName t = TableName.valueOf("ycsb_raw");
      mark("raw-lag");
      int fieldCount = Integer.parseInt(s.ycsb().getOrDefault("fieldcount", "10"));
      int fieldLength = Integer.parseInt(s.ycsb().getOrDefault("fieldlength", "100"));
      ReadAfterWriteLag raw = new ReadAfterWriteLag(hbase.configuration(),
        hbase.zookeeperQuorum(), clusterProperties());
      List<ReadAfterWriteLag.Result> results = new ArrayList<>();
      try (Admin admin = hbase.connection().getAdmin()) {
        for (long buffer : s.rawBuffers()) {
          YcsbTable.dropIfExists(admin, t);
          YcsbTable.create(admin, t, YcsbTable.DEFAULT_FAMILY, s.regions());
          int sample = s.rawSample() > 0 ? s.rawSample()
            : (int) Math.max(1, buffer / ((long) fieldCount * fieldLength) / 64);
          ReadAfterWriteLag.Result r = raw.measure(t, YcsbTable.DEFAULT_FAMILY,
            new ReadAfterWriteLag.Settings(s.rawRecords(), buffer, s.rawTarget(), sample,
              Duration.ofMillis(10), fieldCount, fieldLength, Duration.ofSeconds(60)));
          results.add(r);
          progress.accept(r);
        }
        YcsbTable.dropIfExists(admin, t);
      }
      return results;
    }
  }
}
