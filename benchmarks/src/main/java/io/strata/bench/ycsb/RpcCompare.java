package io.strata.bench.ycsb;

import io.strata.hbase.rdma.HybridRpcKeys;
import io.strata.hbase.rdma.PollingRpcSchedulerFactory;
import io.strata.hbase.rdma.RdmaRpcMetrics;
import io.strata.local.EmbeddedHBase;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.ipc.HybridRpcClient;
import org.apache.hadoop.hbase.ipc.HybridRpcServer;
import org.apache.hadoop.hbase.ipc.NettyRpcClient;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * YCSB over the hybrid RPC's RDMA endpoint against YCSB over HBase's Netty client, in one run on
 * one cluster (the RDMA HBase study's YCSB read, write and read-write workloads): the embedded
 * cluster runs the hybrid RPC server on the loopback transport, which connects only within one
 * JVM, so YCSB runs in this JVM ({@link InProcessYcsb}) through two connections, one per RPC
 * client implementation. After one load of 1 KiB records, every workload runs at every thread
 * count once per path, the two paths taking turns at going first so that both see the same
 * background (flushes, compactions). Client-side buffering is off: every Put is its own call.
 *
 * <p>The proof that the paths are what they claim: {@link RdmaRpcMetrics}' counters, read
 * before and after each run; a run over the endpoint must count at least one Get (Mutate) sent
 * over an endpoint and received by the server per read (update) done, a run over Netty none.
 *
 * <p>Not thread-safe: one run at a time per JVM (the counters are process-wide).
 */
final class RpcCompare {
  static final String NETTY = "netty";
  static final String RDMA = "rdma";
  static final List<String> PATHS = List.of(NETTY, RDMA);
  /** This mode's workloads and YCSB's workload file for each. */
  static final Map<String, String> WORKLOADS = linked(
    "read", YcsbWorkloads.C, "write", YcsbWorkloads.UPDATE_ONLY, "read-write", YcsbWorkloads.A);
  static final List<Integer> DEFAULT_THREADS = List.of(1, 2, 4, 8, 16);
  static final TableName TABLE = TableName.valueOf("ycsb_rpc");
  /** The transports this comparison runs over: YCSB in this JVM over loopback, else apart. */
  static final String LOOPBACK = "loopback";
  static final String VERBS = "verbs";
  static final List<String> TRANSPORTS = List.of(LOOPBACK, VERBS);

  /** Counters read around each run. */
  static final List<String> COUNTERS = List.of("client.Get.rdma", "client.Mutate.rdma",
    "client.Get.sockets", "client.Mutate.sockets", "server.Get.calls", "server.Mutate.calls",
    "client.fallback.before.send", "client.failed.after.send", "client.endpoints.connected");
  private static final String CONNECTION_PREFIX = "rpc-compare-";
  private static final int LOAD_THREADS = 4;
  private static final int WARMUP_THREADS = 4;
  private static final Duration WARMUP_MAX = Duration.ofSeconds(60);
  /** The heap of a path's client JVM (YCSB's threads and one HBase connection). */
  private static final String CLIENT_HEAP = "384m";

  /**
   * What a comparison runs: each workload at each thread count {@code rounds} times per path
   * (the paths' order reversed from one round to the next), every run at most {@code
   * operations} or {@code runTime}; before each workload the table is flushed and {@code settle}
   * waits for its flushes and compactions to end (null: no wait); the hybrid RPC over {@code
   * transport} (one of {@link #TRANSPORTS}).
   */
  record Settings(long records, long operations, Duration runTime, List<String> workloads,
    List<Integer> threads, int rounds, long warmupOps, int regions, Map<String, String> ycsb,
    Settle settle, String transport) {
    Settings {
      if (!TRANSPORTS.contains(transport)) {
        throw new IllegalArgumentException("--rpc-transport takes one of " + TRANSPORTS
          + ", not '" + transport + "'");
      }
    }
  }

  /**
   * One path's runs of a cell: YCSB's figures over all its rounds, the endpoint counters'
   * increments during them, and each round's throughput.
   */
  record PathRun(InProcessYcsb.Figures figures, Map<String, Long> counters,
    List<Double> roundOpsPerSec) {
    PathRun(InProcessYcsb.Figures figures, Map<String, Long> counters) {
      this(figures, counters, List.of(figures.opsPerSec()));
    }

    long counter(String name) {
      return counters.getOrDefault(name, 0L);
    }

    static PathRun merge(List<PathRun> rounds) {
      Map<String, Long> sum = new LinkedHashMap<>();
      List<Double> perRound = new ArrayList<>();
      for (PathRun r : rounds) {
        r.counters().forEach((k, v) -> sum.merge(k, v, Long::sum));
        perRound.addAll(r.roundOpsPerSec());
      }
      return new PathRun(InProcessYcsb.Figures.merge(rounds.stream().map(PathRun::figures)
        .toList()), sum, perRound);
    }
  }

  /**
   * A workload at a thread count over both paths, the order the paths' runs took, and the
   * machine's 1-minute load average at the end (other processes' share of the cores).
   */
  record Cell(String workload, int threads, List<String> order, PathRun netty, PathRun rdma,
    double loadAverage) {
    double ratioOps() {
      return ratio(rdma.figures().opsPerSec(), netty.figures().opsPerSec());
    }

    double ratioMean() {
      return ratio(rdma.figures().all().meanUs(), netty.figures().all().meanUs());
    }

    /** Endpoint / Netty mean latency of one operation type, NaN if either has none. */
    double ratioMean(String type) {
      InProcessYcsb.Latency r = rdma.figures().byType().get(type);
      InProcessYcsb.Latency n = netty.figures().byType().get(type);
      return r == null || n == null ? Double.NaN : ratio(r.meanUs(), n.meanUs());
    }

    PathRun path(String name) {
      return NETTY.equals(name) ? netty : rdma;
    }
  }

  /** The whole comparison; {@link #violations} empty when every run went where it claimed. */
  record Result(Settings settings, String transport, boolean clientProcesses,
    InProcessYcsb.Figures load, int recordBytes, List<Cell> cells, List<String> violations) {
    Cell cell(String workload, int threads) {
      for (Cell c : cells) {
        if (c.workload().equals(workload) && c.threads() == threads) {
          return c;
        }
      }
      return null;
    }
  }

  private RpcCompare() {
  }

  /**
   * The cluster keys this comparison needs: the hybrid RPC server on {@code transport}, with the
   * polling scheduler (handlers poll their queue for a while after an endpoint call); over verbs
   * the endpoint listens on the RDMA device's address.
   */
  static Map<String, String> clusterKeys(String transport) {
    Map<String, String> keys = linked("hbase.rpc.server.impl", HybridRpcServer.class.getName(),
      HybridRpcKeys.TRANSPORT, transport,
      "hbase.region.server.rpc.scheduler.factory.class",
      PollingRpcSchedulerFactory.class.getName());
    if (!LOOPBACK.equals(transport)) {
      keys.put(HybridRpcKeys.Server.BIND_ADDRESS, HybridRpcKeys.Server.BIND_ADDRESS_AUTO);
    }
    return keys;
  }

  /** The name under which a path's connection is given to {@link HBaseClient26}. */
  static String connectionName(String path) {
    return CONNECTION_PREFIX + path;
  }

  /**
   * Runs the comparison on {@code hbase}, which must run with {@link #clusterKeys}: over the
   * loopback transport YCSB runs in this JVM; over verbs each path's YCSB runs in a client JVM
   * of its own ({@link RemoteYcsbClient}, configuration and logs in {@code clientDir}).
   */
  static Result run(EmbeddedHBase hbase, Settings s, Path clientDir, Consumer<String> progress)
    throws Exception {
    String transport = hbase.configuration().get(HybridRpcKeys.TRANSPORT);
    if (!s.transport().equals(transport)
      || !HybridRpcServer.class.getName().equals(hbase.configuration()
        .get("hbase.rpc.server.impl"))) {
      throw new IllegalStateException("The cluster runs without the hybrid RPC server on the "
        + s.transport() + " transport (" + HybridRpcKeys.TRANSPORT + "=" + transport + ")");
    }
    boolean inProcess = LOOPBACK.equals(transport);
    Configuration base = HBaseConfiguration.create(hbase.configuration());
    long endpointsBefore = RdmaRpcMetrics.count("client.endpoints.connected");
    Map<String, PathClient> clients = new LinkedHashMap<>();
    try (Connection netty = connect(base, NettyRpcClient.class.getName());
      Connection rdma = connect(base, HybridRpcClient.class.getName())) {
      HBaseClient26.provideConnection(connectionName(NETTY), netty);
      HBaseClient26.provideConnection(connectionName(RDMA), rdma);
      try (Admin admin = netty.getAdmin()) {
        YcsbTable.dropIfExists(admin, TABLE);
        YcsbTable.create(admin, TABLE, YcsbTable.DEFAULT_FAMILY, s.regions());
        Properties loadProps = properties(s, "read-write", NETTY, s.records());
        int recordBytes = Integer.parseInt(loadProps.getProperty("fieldcount", "10"))
          * Integer.parseInt(loadProps.getProperty("fieldlength", "100"));
        progress.accept(String.format(Locale.ROOT, "[rpc-compare] loading %d records of %d "
          + "bytes over Netty, %d threads", s.records(), recordBytes, LOAD_THREADS));
        InProcessYcsb.Figures load = InProcessYcsb.run(loadProps, false, LOAD_THREADS,
          s.records(), Duration.ofHours(2));
        if (load.operations() != s.records() || load.failed() > 0) {
          throw new IllegalStateException("The load inserted " + load.operations() + " of "
            + s.records() + " records, " + load.failed() + " failed");
        }
        progress.accept("[rpc-compare] load: " + load);
        if (inProcess) {
          awaitEndpoint(rdma, endpointsBefore, Duration.ofSeconds(30));
          PATHS.forEach(p -> clients.put(p, PathClient.IN_PROCESS));
        } else {
          for (String path : PATHS) {
            Configuration c = new Configuration(base);
            c.set("hbase.rpc.client.impl", NETTY.equals(path) ? NettyRpcClient.class.getName()
              : HybridRpcClient.class.getName());
            progress.accept("[rpc-compare] starting the " + path + " path's client JVM");
            clients.put(path, remote(RemoteYcsbClient.start(path, c, RDMA.equals(path),
              clientDir, CLIENT_HEAP, progress)));
          }
        }
        for (String path : PATHS) {
          if (s.warmupOps() > 0) {
            InProcessYcsb.Figures w = clients.get(path).run(properties(s, "read-write", path,
              s.warmupOps()), true, WARMUP_THREADS, s.warmupOps(), WARMUP_MAX).figures();
            progress.accept("[rpc-compare] warm-up " + path + ": " + w);
          }
        }
        List<Cell> cells = new ArrayList<>();
        List<String> violations = new ArrayList<>();
        for (String workload : s.workloads()) {
          admin.flush(TABLE);
          if (s.settle() != null) {
            Settle.Outcome o = s.settle().await(RegionServerActivity.of(hbase, TABLE));
            progress.accept(String.format(Locale.ROOT, "[rpc-compare] flushed, %s after %.1f s",
              o.settled() ? "settled" : "not settled (waited the quiet period)",
              o.waited().toMillis() / 1000.0));
          }
          for (int threads : s.threads()) {
            Map<String, List<PathRun>> runs = new LinkedHashMap<>();
            List<String> order = new ArrayList<>();
            for (int round = 0; round < s.rounds(); round++) {
              boolean rdmaFirst = (cells.size() + round) % 2 == 1;
              for (String path : rdmaFirst ? List.of(RDMA, NETTY) : PATHS) {
                runs.computeIfAbsent(path, x -> new ArrayList<>())
                  .add(clients.get(path).run(properties(s, workload, path, s.operations()),
                    true, threads, s.operations(), s.runTime()));
                order.add(path);
              }
            }
            Cell c = new Cell(workload, threads, List.copyOf(order),
              PathRun.merge(runs.get(NETTY)), PathRun.merge(runs.get(RDMA)),
              ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
            cells.add(c);
            List<String> v = violations(c);
            violations.addAll(v);
            progress.accept(line(c) + (v.isEmpty() ? "" : "\n  NOT VERIFIED: " + v));
          }
        }
        YcsbTable.dropIfExists(admin, TABLE);
        return new Result(s, transport, !inProcess, load, recordBytes, cells, violations);
      }
    } finally {
      for (PathClient c : clients.values()) {
        c.close();
      }
      HBaseClient26.withdrawConnection(connectionName(NETTY));
      HBaseClient26.withdrawConnection(connectionName(RDMA));
    }
  }

  /**
   * Where a path's YCSB runs, and how its endpoint counters' increments are taken: in this JVM
   * (every counter read here) or in a client JVM of its own (the client's counters read there,
   * the server's here).
   */
  private interface PathClient {
    PathClient IN_PROCESS = (props, transactions, threads, operations, maxTime) -> {
      Map<String, Long> before = counters();
      InProcessYcsb.Figures f = InProcessYcsb.run(props, transactions, threads, operations,
        maxTime);
      return new PathRun(f, delta(before, counters()));
    };

    PathRun run(Properties props, boolean transactions, int threads, long operations,
      Duration maxTime) throws Exception;

    default void close() throws InterruptedException {
    }
  }

  private static PathClient remote(RemoteYcsbClient client) {
    return new PathClient() {
      @Override
      public PathRun run(Properties props, boolean transactions, int threads, long operations,
        Duration maxTime) throws Exception {
        Map<String, Long> before = counters();
        PathRun r = client.run(props, transactions, threads, operations, maxTime, COUNTERS);
        Map<String, Long> server = delta(before, counters());
        Map<String, Long> merged = new LinkedHashMap<>(r.counters());
        server.forEach((k, v) -> {
          if (k.startsWith("server.")) {
            merged.put(k, v);
          }
        });
        return new PathRun(r.figures(), merged);
      }

      @Override
      public void close() throws InterruptedException {
        client.close();
      }
    };
  }

  private static Map<String, Long> delta(Map<String, Long> before, Map<String, Long> after) {
    Map<String, Long> delta = new LinkedHashMap<>();
    after.forEach((k, v) -> delta.put(k, v - before.get(k)));
    return delta;
  }

  private static Map<String, Long> counters() {
    Map<String, Long> m = new LinkedHashMap<>();
    for (String c : COUNTERS) {
      m.put(c, RdmaRpcMetrics.count(c));
    }
    return m;
  }

  /**
   * What contradicts the cell's paths: a path that ran nothing, an endpoint run with fewer Gets
   * (Mutates) counted over the endpoint, by the client and by the server, than reads (updates)
   * done, a Netty run with any.
   */
  static List<String> violations(Cell c) {
    List<String> v = new ArrayList<>();
    String where = c.workload() + " x" + c.threads() + " ";
    for (String path : PATHS) {
      if (c.path(path).figures().operations() == 0) {
        v.add(where + path + ": no operation");
      }
    }
    InProcessYcsb.Figures r = c.rdma().figures();
    long reads = r.count(MeasuredDb.READ);
    long writes = r.count(MeasuredDb.UPDATE) + r.count(MeasuredDb.INSERT)
      + r.count(MeasuredDb.DELETE);
    for (String side : List.of("client.Get.rdma", "server.Get.calls")) {
      if (c.rdma().counter(side) < reads) {
        v.add(where + "rdma: " + reads + " reads but " + side + " +" + c.rdma().counter(side));
      }
    }
    for (String side : List.of("client.Mutate.rdma", "server.Mutate.calls")) {
      if (c.rdma().counter(side) < writes) {
        v.add(where + "rdma: " + writes + " updates but " + side + " +"
          + c.rdma().counter(side));
      }
    }
    for (String side : List.of("client.Get.rdma", "client.Mutate.rdma", "server.Get.calls",
      "server.Mutate.calls")) {
      if (c.netty().counter(side) != 0) {
        v.add(where + "netty: " + side + " +" + c.netty().counter(side)
          + " (calls over the endpoint during the Netty run)");
      }
    }
    return v;
  }

  static String line(Cell c) {
    InProcessYcsb.Figures n = c.netty().figures();
    InProcessYcsb.Figures r = c.rdma().figures();
    return String.format(Locale.ROOT, "%-10s %2d threads  netty %8.0f ops/s mean %7.1f p50 %7.1f "
      + "p99 %8.1f us | rdma %8.0f ops/s mean %7.1f p50 %7.1f p99 %8.1f us | ops x%.2f | over "
      + "the endpoint: %d Gets, %d Mutates (netty run: %d, %d); load average %.1f", c.workload(),
      c.threads(),
      n.opsPerSec(), n.all().meanUs(), n.all().p50Us(), n.all().p99Us(), r.opsPerSec(),
      r.all().meanUs(), r.all().p50Us(), r.all().p99Us(), c.ratioOps(),
      c.rdma().counter("client.Get.rdma"), c.rdma().counter("client.Mutate.rdma"),
      c.netty().counter("client.Get.rdma"), c.netty().counter("client.Mutate.rdma"),
      c.loadAverage());
  }

  /** YCSB's properties for a run of {@code workload} over {@code path}. */
  static Properties properties(Settings s, String workload, String path, long operations)
    throws IOException {
    Properties p = new Properties();
    try (InputStream in = YcsbWorkloads.open(WORKLOADS.get(workload))) {
      p.load(in);
    }
    p.setProperty(HBaseClient26.TABLE, TABLE.getNameAsString());
    p.setProperty(HBaseClient26.COLUMN_FAMILY, YcsbTable.DEFAULT_FAMILY);
    p.setProperty("recordcount", Long.toString(s.records()));
    p.setProperty("operationcount", Long.toString(operations));
    // A record is 10 fields of 100 bytes; an update writes all of it, as the study's Put did.
    p.setProperty("fieldcount", "10");
    p.setProperty("fieldlength", "100");
    p.setProperty("readallfields", "true");
    p.setProperty("writeallfields", "true");
    s.ycsb().forEach(p::setProperty);
    p.setProperty(HBaseClient26.CLIENT_BUFFERING, "false");
    p.setProperty(HBaseClient26.CONNECTION, connectionName(path));
    return p;
  }

  private static Connection connect(Configuration base, String rpcClient) throws IOException {
    Configuration conf = new Configuration(base);
    conf.set("hbase.rpc.client.impl", rpcClient);
    return ConnectionFactory.createConnection(conf);
  }

  /**
   * The hybrid client sets its endpoint up at its first routed call: reads a row of {@link
   * #TABLE} until this JVM counts more connected endpoints than {@code before}, at most {@code
   * limit}. Returns how many reads that took.
   */
  static int awaitEndpoint(Connection rdma, long before, Duration limit) throws IOException,
    InterruptedException {
    long deadline = System.nanoTime() + limit.toNanos();
    int reads = 0;
    try (Table t = rdma.getTable(TABLE)) {
      while (RdmaRpcMetrics.count("client.endpoints.connected") <= before) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("The hybrid client connected no RDMA endpoint in "
            + limit.toSeconds() + " s (client.endpoints.failed "
            + RdmaRpcMetrics.count("client.endpoints.failed") + ", client.offers.refused "
            + RdmaRpcMetrics.count("client.offers.refused") + ")");
        }
        t.get(new Get(Bytes.toBytes("user0")));
        reads++;
        Thread.sleep(10);
      }
    }
    return reads;
  }

  static double ratio(double a, double b) {
    return b > 0 ? a / b : Double.NaN;
  }

  static double round2(double v) {
    return Double.isNaN(v) ? Double.NaN : Math.round(v * 100) / 100.0;
  }

  private static Map<String, String> linked(String... kv) {
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return m;
  }
}
