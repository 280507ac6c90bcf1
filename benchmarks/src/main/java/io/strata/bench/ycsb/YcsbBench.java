package io.strata.bench.ycsb;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.strata.bench.common.BenchCommand;
import io.strata.bench.common.BenchJson;
import io.strata.bench.common.BenchOptions;
import io.strata.bench.common.RunLabels;
import io.strata.bench.monitor.BenchMonitor;
import io.strata.bench.monitor.Monitor;
import io.strata.cli.CommandLines;
import io.strata.local.EmbeddedHBase;
import io.strata.local.LocalClusterConfig;
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
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
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
    + "--acl-compare starts two HBase on the same HDFS, without and with the AccessController.";
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

  /** The command line: picocli's options, turned into a {@link Run}. */
  @Command(name = COMMAND, sortOptions = false, description = HEADER)
  static final class Cli extends BenchCommand<Run> {
    @Option(names = "--phases", paramLabel = "STEPS", description = "steps of the multi-phase "
      + "run, comma-separated: load, flush, settle, or a workload (a, b, c, f, update-only) "
      + "(default " + DEFAULT_PHASES + ")")
    String phases;
    @Option(names = "--presplit-compare",
      description = "load into a table pre-split into --regions regions and into a 1-region table")
    boolean presplit;
    @Option(names = "--bulkload-compare", description = "the pre-split comparison's YCSB loads, "
      + "then the same records bulk-loaded (HFiles per region + BulkLoadHFiles) into the same two "
      + "tables: rows/s of each")
    boolean bulk;
    @Option(names = "--acl-compare", description = "inserts and scans of YCSB's records by the "
      + "non-superuser '" + AclComparison.USER + "' without HBase's AccessController and with "
      + "it, ACLs of --acl-entries entries at table level (grants) and cell level (Put#setACL); "
      + "two HBase side by side on one HDFS, each protected run next to a baseline run, which "
      + "goes first every other pair; --rounds of them (default 2); "
      + "inserts/s, scan rows/s and their ratio to no AccessController, a plot in --out")
    boolean acl;
    @Option(names = "--acl-entries", paramLabel = "N,N",
      description = "--acl-compare: ACL entries, comma-separated (default 4,11)")
    String aclEntries;
    @Option(names = "--acl-scan-length", paramLabel = "N", description = "--acl-compare: rows "
      + "per scan, from a random record's key (default 1000)")
    Long aclScanLength;
    @Option(names = "--acl-scan-rows", paramLabel = "N", description = "--acl-compare: rows "
      + "scanned per variant and round (default: --records)")
    Long aclScanRows;
    @Option(names = "--acl-buffer-kb", paramLabel = "KB", description = "--acl-compare: client "
      + "write buffer per inserting thread in KiB (default 100, as YCSB++)")
    Long aclBufferKb;
    @Option(names = "--raw-lag",
      description = "measure read-after-write lag with the buffer sizes of --raw-buffers-kb")
    boolean raw;
    @Option(names = "--clients", paramLabel = "N",
      description = "YCSB client processes per phase (default 1)")
    Long clients;
    @Option(names = "--threads", paramLabel = "N",
      description = "YCSB threads per client process (default 4)")
    Long threads;
    @Option(names = "--records", paramLabel = "N",
      description = "records loaded (YCSB recordcount, default 100000)")
    Long records;
    @Option(names = "--operations", paramLabel = "N",
      description = "operations per workload phase (YCSB operationcount, default 100000)")
    Long operations;
    @Option(names = "--regions", paramLabel = "N", description = "regions of the pre-split "
      + "usertable (phases and --presplit-compare; default 8)")
    Long regions;
    @Option(names = "--rounds", paramLabel = "N", description = "--presplit-compare rounds, "
      + "alternating which variant goes first (default 1)")
    Long rounds;
    @Option(names = "--settle-quiet-s", paramLabel = "S", description = "settle: seconds "
      + "without flush or compaction queued or running and with no store file count change "
      + "(default 5)")
    Long settleQuietS;
    @Option(names = "--settle-max-s", paramLabel = "S", description = "settle: give up watching "
      + "after this many seconds and wait the quiet period (default 120)")
    Long settleMaxS;
    @Option(names = "--settle-fixed-s", paramLabel = "S",
      description = "settle: just wait this many seconds instead of watching the servers")
    Long settleFixedS;
    @Option(names = "--raw-records", paramLabel = "N",
      description = "--raw-lag: records written per buffer size (default 20000)")
    Long rawRecords;
    @Option(names = "--raw-buffers-kb", paramLabel = "KB,KB", description = "--raw-lag: client "
      + "write buffer sizes in KiB, 0 for no buffering (default 0,64,1024)")
    String rawBuffersKb;
    @Option(names = "--raw-target", paramLabel = "OPS", description = "--raw-lag: writes per "
      + "second to aim at, 0 for as fast as possible (default 2000)")
    Long rawTarget;
    @Option(names = "--raw-sample", paramLabel = "N", description = "--raw-lag: publish and "
      + "measure every n-th key (default: about 64 keys per buffer's worth of records)")
    Long rawSample;
    @Option(names = "--rpc-compare", description = "YCSB read (100%% Get), write (100%% Put) and "
      + "read-write (50/50) over HBase's Netty client and over the hybrid RPC's RDMA endpoint "
      + "(--rpc-transport), one run, the paths taking turns: ops/s, "
      + "mean, p50, p99 per workload, thread count and path, the endpoint's call counters as "
      + "proof; starts the cluster with the hybrid RPC server. Client buffering off; records of "
      + "10 x 100 bytes; --records defaults to " + RPC_RECORDS_DEFAULT + " and --operations "
      + "(most per run) to " + RPC_OPERATIONS_DEFAULT)
    boolean rpc;
    @Option(names = "--rpc-transport", paramLabel = "T", description = "--rpc-compare: the "
      + "endpoint's transport: loopback (YCSB's threads run in this JVM, the only place the "
      + "loopback endpoint reaches) or verbs (an RDMA device, e.g. SoftRoCE's rxe0: each path's "
      + "YCSB runs in a client JVM of its own, as in the RDMA HBase study) (default loopback)")
    String rpcTransport;
    @Option(names = "--rpc-threads", paramLabel = "N,N", description = "--rpc-compare: client "
      + "thread counts, comma-separated (default 1,2,4,8,16)")
    String rpcThreads;
    @Option(names = "--rpc-workloads", paramLabel = "W,W", description = "--rpc-compare: "
      + "workloads, comma-separated, of read, write, read-write (default all three)")
    String rpcWorkloads;
    @Option(names = "--rpc-seconds", paramLabel = "S", description = "--rpc-compare: longest "
      + "run (one round of a workload at a thread count over one path), in seconds (default 6)")
    Long rpcSeconds;
    @Option(names = "--rpc-rounds", paramLabel = "N", description = "--rpc-compare: runs per "
      + "workload, thread count and path, the paths' order reversed each round (default 2)")
    Long rpcRounds;
    @Option(names = "--rpc-warmup-ops", paramLabel = "N", description = "--rpc-compare: "
      + "read-write operations per path before the measured runs (default 10000)")
    Long rpcWarmupOps;
    @Option(names = "--filter-compare", description = "YCSB++'s four server-side filters "
      + "(RowFilter, QualifierFilter, ValueFilter with RegexStringComparator, "
      + "SingleColumnValueFilter) against the same scans unfiltered with the predicate applied "
      + "in the client, per scan length and selectivity: ms per scan, bytes returned, the "
      + "matches checked against the data on both sides; rows of --ycsb fieldcount (default "
      + FILTER_FIELDS_DEFAULT + ") x fieldlength (default 100) bytes, --records defaults to "
      + FILTER_RECORDS_DEFAULT)
    boolean filter;
    @Option(names = "--filter-lengths", paramLabel = "N,N", description = "--filter-compare: "
      + "rows per scan, comma-separated (default 1,10,100,1000)")
    String filterLengths;
    @Option(names = "--filter-selectivities", paramLabel = "P,P", description = "--filter-"
      + "compare: share of rows or cells each filter passes, whole percents, comma-separated "
      + "(default 1,10,50,100)")
    String filterSelectivities;
    @Option(names = "--filter-reps", paramLabel = "N", description = "--filter-compare: scans "
      + "per filter, length, selectivity and side (default 10)")
    Long filterReps;
    @Option(names = "--filter-seed", paramLabel = "N", description = "--filter-compare: seed of "
      + "the scans' random starts (default 1)")
    Long filterSeed;
    @Option(names = "--out", paramLabel = "DIR", description = "directory for the plots: the "
      + "monitoring timeline (monitor.png), --raw-lag's retried keys' lag, --filter-compare's "
      + "and --acl-compare's plots, --rpc-compare's report.md and throughput plot (default "
      + "$STRATA_WORK/bench/ycsb, with --rpc-compare $STRATA_WORK/bench/ycsb-rpc)")
    File out;
    @Mixin
    BenchOptions.Monitoring monitoring;
    @Option(names = "--stagger-ms", paramLabel = "MS",
      description = "start client process i i x this many ms after the first (default 0)")
    Long staggerMs;
    @Option(names = "--ycsb", paramLabel = "KEY=VALUE",
      description = "a YCSB property for every phase, e.g. fieldcount=10 (repeatable)")
    List<String> ycsb = new ArrayList<>();
    @Mixin
    BenchOptions.JsonFile json;
    @Option(names = "--work-dir", paramLabel = "DIR", description = "cluster data, wiped at "
      + "start (default $STRATA_WORK/bench/ycsb, STRATA_WORK defaulting to .strata-work)")
    File workDir;
    @Option(names = "--ram-mb", paramLabel = "MB",
      description = "RAM tier per DataNode in MiB (default 1024)")
    Long ramMb;
    @Option(names = "--datanodes", paramLabel = "N", description = "DataNodes (default 3)")
    Long dataNodes;
    @Option(names = "--regionservers", paramLabel = "N",
      description = "RegionServers (default 1)")
    Long regionServers;
    @Option(names = "--hbase", paramLabel = "KEY=VALUE", description = "an HBase key of the "
      + "cluster (repeatable); this bench's defaults: hbase.hregion.memstore.flush.size="
      + "33554432, hbase.hregion.max.filesize=134217728")
    List<String> hbase = new ArrayList<>();
    @Option(names = "--dfs", paramLabel = "KEY=VALUE",
      description = "an HDFS key of the cluster (repeatable)")
    List<String> dfs = new ArrayList<>();

    @Override
    protected Run settings() {
      Settings s = bench();
      LocalClusterConfig config = new LocalClusterConfig().workDir(s.workDir())
        .ramBytesPerDataNode(number("--ram-mb", ramMb, 1024, 1) << 20)
        .dataNodes((int) number("--datanodes", dataNodes, 3, 1))
        .regionServers((int) number("--regionservers", regionServers, 1, 1));
      for (String kv : hbase) {
        String[] p = keyValue("--hbase", kv);
        config.hbase(p[0], p[1]);
      }
      for (String kv : dfs) {
        String[] p = keyValue("--dfs", kv);
        config.dfs(p[0], p[1]);
      }
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
      return new Run(s, config, json.file());
    }

    /** What the experiments are given. */
    Settings bench() {
      List<MultiPhaseRun.Step> steps = phases != null ? MultiPhaseRun.parse(phases)
        : presplit || raw || rpc || bulk || filter || acl ? List.of()
          : MultiPhaseRun.parse(DEFAULT_PHASES);
      Map<String, String> props = new LinkedHashMap<>();
      for (String kv : ycsb) {
        String[] p = keyValue("--ycsb", kv);
        props.put(p[0], p[1]);
      }
      for (String owned : List.of("recordcount", "operationcount", "insertstart",
        "insertcount")) {
        if (props.containsKey(owned)) {
          throw new IllegalArgumentException("--ycsb " + owned + " is set by the bench: use "
            + "--records and --operations");
        }
      }
      if ((presplit || bulk || !steps.isEmpty()) && "ordered".equals(props.get("insertorder"))) {
        throw new IllegalArgumentException("The pre-split table is split for YCSB's hashed "
          + "keys; insertorder=ordered would load into one of its regions");
      }
      Settle settle = settleFixedS != null
        ? Settle.fixed(Duration.ofSeconds(number("--settle-fixed-s", settleFixedS, 0, 0)))
        : Settle.untilQuiet(Duration.ofSeconds(number("--settle-quiet-s", settleQuietS, 5, 0)),
          Duration.ofSeconds(number("--settle-max-s", settleMaxS, 120, 1)));
      List<Long> buffers = new ArrayList<>();
      for (String b : (rawBuffersKb != null ? rawBuffersKb : "0,64,1024").split(",")) {
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
      File work = workDir != null ? workDir : CommandLines.workDir("bench/ycsb");
      RpcCompare.Settings rpcSettings = rpcSettings(settle, props);
      long monitorMs = monitoring.intervalMs();
      FilterComparison.Settings filterSettings = filterSettings(props);
      File outDir = out != null ? out
        : CommandLines.workDir(rpc ? "bench/ycsb-rpc" : "bench/ycsb");
      return new Settings(steps, presplit, raw, (int) number("--clients", clients, 1, 1),
        (int) number("--threads", threads, 4, 1),
        number("--records", records, rpc ? RPC_RECORDS_DEFAULT
          : filter && steps.isEmpty() && !presplit && !bulk ? FILTER_RECORDS_DEFAULT : 100_000,
          1), number("--operations", operations, rpc ? RPC_OPERATIONS_DEFAULT : 100_000, 1),
        (int) number("--regions", regions, 8, 1), (int) number("--rounds", rounds, 1, 1),
        settle, (int) number("--raw-records", rawRecords, 20_000, 1), buffers,
        (int) number("--raw-target", rawTarget, 2000, 0),
        (int) number("--raw-sample", rawSample, 0, 0),
        number("--stagger-ms", staggerMs, 0, 0), props, work, rpcSettings, outDir, bulk,
        monitorMs, filterSettings, aclSettings(props));
    }

    /** --acl-compare's settings, null without it (then its options are refused). */
    private AclComparison.Settings aclSettings(Map<String, String> props) {
      if (!acl) {
        refuseWithout("--acl-compare", Map.of("--acl-entries", aclEntries != null,
          "--acl-scan-length", aclScanLength != null, "--acl-scan-rows", aclScanRows != null,
          "--acl-buffer-kb", aclBufferKb != null));
        return null;
      }
      long n = number("--records", records, 100_000, 1);
      return new AclComparison.Settings(n, (int) number("--threads", threads, 4, 1),
        List.copyOf(wholeNumbers("--acl-entries", aclEntries, AclComparison.DEFAULT_ENTRIES, 1,
          1000)), (int) number("--rounds", rounds, 2, 1),
        (int) number("--acl-scan-length", aclScanLength, 1000, 1),
        number("--acl-scan-rows", aclScanRows, n, 1), (int) number("--regions", regions, 8, 1),
        ycsbInt(props, "fieldcount", 10), ycsbInt(props, "fieldlength", 100),
        number("--acl-buffer-kb", aclBufferKb, 100, 0) << 10);
    }

    /** --filter-compare's settings, null without it (then its options are refused). */
    private FilterComparison.Settings filterSettings(Map<String, String> props) {
      if (!filter) {
        refuseWithout("--filter-compare", Map.of("--filter-lengths", filterLengths != null,
          "--filter-selectivities", filterSelectivities != null, "--filter-reps",
          filterReps != null, "--filter-seed", filterSeed != null));
        return null;
      }
      return new FilterComparison.Settings(
        number("--records", records, FILTER_RECORDS_DEFAULT, 1),
        ycsbInt(props, "fieldcount", FILTER_FIELDS_DEFAULT), ycsbInt(props, "fieldlength", 100),
        (int) number("--regions", regions, 8, 1),
        wholeNumbers("--filter-lengths", filterLengths, List.of(1, 10, 100, 1000), 1,
          Integer.MAX_VALUE),
        wholeNumbers("--filter-selectivities", filterSelectivities, List.of(1, 10, 50, 100), 1,
          100), (int) number("--filter-reps", filterReps, 10, 1),
        number("--filter-seed", filterSeed, 1, 0));
    }

    /** --rpc-compare's settings, null without it (then its options are refused). */
    private RpcCompare.Settings rpcSettings(Settle settle, Map<String, String> props) {
      if (!rpc) {
        refuseWithout("--rpc-compare", Map.of("--rpc-threads", rpcThreads != null,
          "--rpc-workloads", rpcWorkloads != null, "--rpc-seconds", rpcSeconds != null,
          "--rpc-rounds", rpcRounds != null, "--rpc-warmup-ops", rpcWarmupOps != null,
          "--rpc-transport", rpcTransport != null));
        return null;
      }
      for (String owned : RPC_OWNED) {
        if (props.containsKey(owned)) {
          throw new IllegalArgumentException("--ycsb " + owned + " is set by --rpc-compare");
        }
      }
      List<Integer> threadCounts = wholeNumbers("--rpc-threads", rpcThreads,
        RpcCompare.DEFAULT_THREADS, 1, 1024);
      List<String> workloads = new ArrayList<>();
      String workloadList = rpcWorkloads != null ? rpcWorkloads
        : String.join(",", RpcCompare.WORKLOADS.keySet());
      for (String w : workloadList.split(",", -1)) {
        if (!RpcCompare.WORKLOADS.containsKey(w.trim()) || workloads.contains(w.trim())) {
          throw new IllegalArgumentException("--rpc-workloads takes distinct workloads of "
            + String.join(", ", RpcCompare.WORKLOADS.keySet()) + ", not '" + workloadList + "'");
        }
        workloads.add(w.trim());
      }
      long ops = number("--operations", operations, RPC_OPERATIONS_DEFAULT, 1);
      if (ops > Integer.MAX_VALUE) {
        throw new IllegalArgumentException("--operations: YCSB counts at most "
          + Integer.MAX_VALUE + " per run");
      }
      return new RpcCompare.Settings(number("--records", records, RPC_RECORDS_DEFAULT, 1), ops,
        Duration.ofSeconds(number("--rpc-seconds", rpcSeconds, 6, 1)), List.copyOf(workloads),
        List.copyOf(threadCounts), (int) number("--rpc-rounds", rpcRounds, 2, 1),
        number("--rpc-warmup-ops", rpcWarmupOps, 10_000, 0),
        (int) number("--regions", regions, 8, 1), Map.copyOf(props), settle,
        (rpcTransport != null ? rpcTransport : RpcCompare.LOOPBACK).trim());
    }

    private static void refuseWithout(String experiment, Map<String, Boolean> given) {
      for (Map.Entry<String, Boolean> e : new java.util.TreeMap<>(given).entrySet()) {
        if (e.getValue()) {
          throw new IllegalArgumentException(e.getKey() + " goes with " + experiment);
        }
      }
    }
  }

  /** A parsed command line: the experiments' settings, the cluster, where the JSON goes. */
  record Run(Settings settings, LocalClusterConfig config, File json) {
  }

  /** A whole number option's value, {@code dflt} when not given, checked against its least. */
  private static long number(String option, Long value, long dflt, long min) {
    return value == null ? dflt : BenchCommand.atLeast(option, value, min);
  }

  /**
   * The comma-separated whole numbers of {@code option}, each from {@code min} to {@code max},
   * duplicates dropped, in order; {@code dflt} when not given.
   */
  private static List<Integer> wholeNumbers(String option, String raw, List<Integer> dflt,
    int min, int max) {
    if (raw == null) {
      return dflt;
    }
    List<Integer> list = new ArrayList<>();
    for (String p : raw.split(",", -1)) {
      int v;
      try {
        v = Integer.parseInt(p.trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(option + " takes whole numbers from " + min + " to "
          + max + ", comma-separated, not '" + raw + "'");
      }
      if (v < min || v > max) {
        throw new IllegalArgumentException(option + " values are from " + min + " to " + max
          + ", not " + v);
      }
      if (!list.contains(v)) {
        list.add(v);
      }
    }
    return list;
  }

  private static String[] keyValue(String option, String kv) {
    int eq = kv.indexOf('=');
    if (eq <= 0) {
      throw new IllegalArgumentException(option + " takes KEY=VALUE, not '" + kv + "'");
    }
    return new String[] { kv.substring(0, eq), kv.substring(eq + 1) };
  }

  /** The settings of a command line, as {@link #run} makes them; for tests. */
  static Settings settings(String... args) {
    Cli cli = new Cli();
    new picocli.CommandLine(cli).parseArgs(args);
    return cli.bench();
  }

  public static void main(String[] args) {
    CommandLines.runAndHalt(COMMAND, () -> run(args, System.out));
  }

  static int run(String[] args, PrintStream out) throws Exception {
    return BenchCommand.run(new Cli(), args, out, run -> run(run, args, out));
  }

  private static int run(Run run, String[] args, PrintStream out) throws Exception {
    Settings s = run.settings();
    LocalClusterConfig config = run.config();
    out.printf(Locale.ROOT, "[ycsb] starting the embedded cluster: %d DataNodes, %d "
      + "RegionServers, data in %s; HBase %s%n", config.dataNodes(), config.regionServers(),
      config.workDir(), config.hbaseOverrides());
    // Decided as the run starts: the tree may change while it runs. The transport: both sides
    // of --rpc-compare, otherwise the one the cluster's client configuration gives; no media
    // emulation (the volumes are this machine's disk and tmpfs).
    Parts json = new Parts(RunLabels.now(s.rpcCompare() != null
      ? RunLabels.versusNetty(s.rpcCompare().transport())
      : RunLabels.clientTransport(config.hbaseOverrides()::get), RunLabels.NO_EMULATION),
      YcsbResult.Settings.of(s));
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
    if (run.json() != null) {
      BenchJson.write(run.json(), json.result());
      out.println("JSON written to " + run.json());
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

  private static int ycsbInt(Map<String, String> ycsb, String key, int dflt) {
    String v = ycsb.get(key);
    try {
      return v == null ? dflt : Integer.parseInt(v.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--ycsb " + key + " takes a whole number, not '" + v
        + "'");
    }
  }

  /** The parts of the result as the experiments finish, in the order the JSON has them. */
  static final class Parts {
    /** What the result is labelled with; null: no labels. */
    final RunLabels labels;
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

    Parts(RunLabels labels, YcsbResult.Settings settings) {
      this.labels = labels;
      this.settings = settings;
    }

    YcsbResult result() {
      return new YcsbResult(labels == null ? null : labels.commit(),
        labels == null ? null : labels.date(), labels == null ? null : labels.transport(),
        labels == null ? null : labels.emulation(), settings, phases, presplit, bulkload, rawLag,
        rpcCompare, filters,
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
