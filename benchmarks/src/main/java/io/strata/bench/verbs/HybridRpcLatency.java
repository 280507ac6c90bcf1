package io.strata.bench.verbs;

import io.strata.bench.common.BenchJson;
import io.strata.bench.common.RunLabels;
import io.strata.hbase.rdma.HybridRpcKeys;
import io.strata.hbase.rdma.MiniHBase;
import io.strata.hbase.rdma.RdmaRpcMetrics;
import io.strata.hbase.rdma.RpcTestSupport;
import io.strata.metrics.Latencies;
import io.strata.rdma.transport.RdmaTransportKeys;
import io.strata.rdma.transport.TransportConf;
import io.strata.rdma.transport.TransportCounters;
import io.strata.rdma.transport.TransportUnavailableException;
import io.strata.rdma.verbs.VerbsTransport;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.ConnectionImplementation;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.ipc.HybridRpcClient;
import org.apache.hadoop.hbase.ipc.HybridRpcServer;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Get and Put latency and throughput through an HBase RegionServer in this JVM, over HBase's
 * Netty sockets and over the hybrid RPC's verbs endpoint, in one run against the same
 * RegionServer and the same single record (a measurement for dev-support/softroce-test --bench;
 * the RDMA counterpart of {@code strata bench rpc}, whose cluster is too heavy for the emulated
 * guest). Two sweeps:
 * <ul>
 * <li><b>per value size</b> (default 1 B to 64 KiB), one client thread: Get and Put p50/p99 of a
 * record holding a value of that size. Rounds alternate the two paths so that both see the same
 * background. For the endpoint it counts the calls the client sent over it and the mean bytes
 * per request and response message, set against the transport's eager threshold
 * ({@code strata.rdma.eager.threshold}): larger messages go by RDMA WRITE.</li>
 * <li><b>per client thread count</b> (default 1 to 16): all threads Get the same record (then all
 * Put it) for a fixed time; ops/s, mean and p99 latency, and the process's CPU time per
 * operation (client and server share the process, so it is the whole call's CPU, background
 * threads included).</li>
 * </ul>
 * Prints a table and, with {@code --json FILE}, writes the figures as JSON ({@link
 * HybridRpcResult}); the thread-count sweep is {@link ThreadSweep}. Exits 1 unless every
 * endpoint-path call was counted as sent over the endpoint, 2 on bad arguments.
 *
 * <p>Thread-safety: a program, not a library; {@link #main} runs the sweeps on its thread. The
 * worker threads of a thread-count cell share only the HBase {@link Connection} (thread-safe),
 * each with its own {@link Table} and sample arrays, which the main thread reads after joining
 * them.
 */
public final class HybridRpcLatency {
  static final TableName TABLE = TableName.valueOf("latency");
  static final byte[] RECORD = Bytes.toBytes("record");
  private static final String[] PATHS = { "netty", "rdma" };
  /** Unmeasured calls per path and operation before each size's, and 10x before the first. */
  private static final int WARM_UP_CALLS = 20;
  /** Endpoint message limit: values up to MAX_VALUE plus their call's framing. */
  private static final int MAX_MESSAGE = 1 << 20;
  private static final int MAX_VALUE = MAX_MESSAGE - (64 << 10);
  private static final String USAGE = "usage: HybridRpcLatency [--json FILE] [--calls N] "
    + "[--rounds N] [--sizes B,B,...] [--threads N,N,...] [--thread-bytes B] [--warmup-ms MS] "
    + "[--measure-ms MS] [--transport verbs|loopback]\n"
    + "  --json FILE       also write the figures as JSON to FILE (its directory is created)\n"
    + "  --calls N         per size: Gets and Puts per path and round (default 100)\n"
    + "  --rounds N        per size: rounds, the paths alternating (default 2)\n"
    + "  --sizes LIST      value sizes in bytes (default 1,64,1024,4096,16384,65536; at most "
    + MAX_VALUE + ")\n"
    + "  --threads LIST    client thread counts (default 1,2,4,8,16; at most 256)\n"
    + "  --thread-bytes B  value size of the thread-count sweep (default 1024)\n"
    + "  --warmup-ms MS    per thread-count cell, path and operation: unmeasured time (default "
    + "1000)\n"
    + "  --measure-ms MS   ... then measured time (default 3000)\n"
    + "  --transport T     the endpoint's transport: verbs (default; needs an RDMA device) or "
    + "loopback (in-process, for a dry run without one)";

  private HybridRpcLatency() {
  }

  /** The command line, validated. */
  static final class Options {
    String json;
    int calls = 100;
    int rounds = 2;
    int[] sizes = { 1, 64, 1024, 4096, 16384, 65536 };
    int[] threads = { 1, 2, 4, 8, 16 };
    int threadBytes = 1024;
    int warmupMs = 1000;
    int measureMs = 3000;
    String transport = "verbs";
    /** What the JSON is labelled with, decided as the run starts. */
    RunLabels labels;

    static Options parse(String[] args) {
      Options o = new Options();
      for (int i = 0; i < args.length; i++) {
        String a = args[i];
        if (!a.startsWith("--")) {
          throw new IllegalArgumentException("unexpected argument '" + a + "'");
        }
        if (i + 1 >= args.length) {
          throw new IllegalArgumentException(a + " needs a value");
        }
        String v = args[++i];
        switch (a) {
          case "--json":
            o.json = v;
            break;
          case "--calls":
            o.calls = integer(a, v, 1, 1_000_000);
            break;
          case "--rounds":
            o.rounds = integer(a, v, 1, 1000);
            break;
          case "--sizes":
            o.sizes = list(a, v, 1, MAX_VALUE);
            break;
          case "--threads":
            o.threads = list(a, v, 1, 256);
            break;
          case "--thread-bytes":
            o.threadBytes = integer(a, v, 1, MAX_VALUE);
            break;
          case "--warmup-ms":
            o.warmupMs = integer(a, v, 0, 600_000);
            break;
          case "--measure-ms":
            o.measureMs = integer(a, v, 10, 600_000);
            break;
          case "--transport":
            if (!v.equals("verbs") && !v.equals("loopback")) {
              throw new IllegalArgumentException(a + " " + v + ": not verbs or loopback");
            }
            o.transport = v;
            break;
          default:
            throw new IllegalArgumentException("unknown option " + a);
        }
      }
      return o;
    }

    private static int integer(String option, String v, int min, int max) {
      int n;
      try {
        n = Integer.parseInt(v.trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(option + " " + v + ": not an integer");
      }
      if (n < min || n > max) {
        throw new IllegalArgumentException(option + " " + v + ": outside [" + min + ", " + max
          + "]");
      }
      return n;
    }

    private static int[] list(String option, String v, int min, int max) {
      String[] parts = v.split(",");
      int[] out = new int[parts.length];
      for (int i = 0; i < parts.length; i++) {
        out[i] = integer(option, parts[i], min, max);
      }
      return out;
    }
  }

  public static void main(String[] args) throws Exception {
    Options o;
    try {
      o = Options.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("HybridRpcLatency: " + e.getMessage());
      System.err.println(USAGE);
      System.exit(2);
      return;
    }
    boolean loopback = o.transport.equals("loopback");
    // Decided as the run starts: the tree may change while it runs. Both paths, the endpoint's
    // on the chosen transport; no media emulation (no HDFS volumes are measured).
    o.labels = RunLabels.now(RunLabels.versusNetty(o.transport), RunLabels.NO_EMULATION);
    if (!loopback) {
      requireDevice();
    }
    Configuration serverConf = RpcTestSupport.verbsServer(MAX_MESSAGE);
    if (loopback) {
      serverConf.set(HybridRpcKeys.TRANSPORT, "loopback");
      serverConf.set(RdmaTransportKeys.LOOPBACK_DELIVERY,
        RdmaTransportKeys.LOOPBACK_DELIVERY_POLLER);
    }
    boolean allOverEndpoint;
    long started = System.nanoTime();
    try (MiniHBase cluster = MiniHBase.start("rpc-latency", serverConf);
      Connection netty = ConnectionFactory.createConnection(cluster.clientConf());
      Connection verbs = ConnectionFactory.createConnection(clientConf(cluster, loopback))) {
      HybridRpcServer rpc = (HybridRpcServer) cluster.regionServer().getRpcServer();
      int eager = verbs.getConfiguration().getInt(RdmaTransportKeys.EAGER_THRESHOLD,
        RdmaTransportKeys.EAGER_THRESHOLD_DEFAULT);
      System.out.printf(Locale.ROOT, "cluster up in %.0f s; RDMA endpoint on %s; eager threshold "
        + "%d B, message limit %d B%n", (System.nanoTime() - started) / 1e9, rpc.getRdmaAddress(),
        eager, MAX_MESSAGE);
      RpcTestSupport.createTable(netty, TABLE);
      Connection[] paths = { netty, verbs };
      try (Table t = netty.getTable(TABLE)) {
        t.put(put(value(o.sizes[0])));
      }
      try (Table t = verbs.getTable(TABLE)) {
        awaitEndpoint(t);
      }
      HybridRpcClient client = rpcClient(verbs);
      for (Connection c : paths) {
        try (Table t = c.getTable(TABLE)) {
          sequential(t, value(o.sizes[0]), 10 * WARM_UP_CALLS, null, 0, null);
        }
      }

      List<SizeRow> sizes = new ArrayList<>();
      List<ThreadSweep.ThreadRow> threads = new ArrayList<>();
      for (int size : o.sizes) {
        SizeRow row = sizeRow(paths, client, size, o);
        sizes.add(row);
        System.out.println(row.line(eager));
        writeJson(sizes, threads, eager, false, o);
      }
      for (int i = 0; i < o.threads.length; i++) {
        ThreadSweep.ThreadRow row = ThreadSweep.row(paths, o.threads[i], i, o);
        threads.add(row);
        System.out.println(row.line());
        writeJson(sizes, threads, eager, false, o);
      }

      printTables(sizes, threads, eager, o);
      allOverEndpoint = sizes.stream().allMatch(SizeRow::allOverEndpoint)
        && threads.stream().allMatch(ThreadSweep.ThreadRow::allOverEndpoint);
      if (o.json != null) {
        writeJson(sizes, threads, eager, true, o);
        System.out.println("JSON written to " + Paths.get(o.json).toAbsolutePath());
      }
    }
    if (!allOverEndpoint) {
      System.out.println("not every endpoint-path call went over the endpoint: the figures are "
        + "mixed");
      System.exit(1);
    }
  }

  private static Configuration clientConf(MiniHBase cluster, boolean loopback) {
    Configuration c = RpcTestSupport.verbsClient(cluster.clientConf(), MAX_MESSAGE);
    if (loopback) {
      c.set(HybridRpcKeys.TRANSPORT, "loopback");
    }
    return c;
  }

  /**
   * The hybrid RPC client of a blocking connection made with {@link RpcTestSupport#verbsClient}:
   * upstream keeps {@code ConnectionImplementation#getRpcClient} package-private (listed in
   * docs/upstream-internals.md as {@code refl.connection.getRpcClient}).
   */
  static HybridRpcClient rpcClient(Connection connection) throws IOException {
    try {
      Method m = ConnectionImplementation.class.getDeclaredMethod("getRpcClient");
      m.setAccessible(true);
      return (HybridRpcClient) m.invoke(connection);
    } catch (NoSuchMethodException | IllegalAccessException | InvocationTargetException
      | ClassCastException e) {
      throw new IOException("Cannot read the RPC client of " + connection + " (upstream's "
        + "ConnectionImplementation#getRpcClient): " + e, e);
    }
  }

  /** Exits 1, saying so, unless the verbs transport finds an RDMA device. */
  static void requireDevice() {
    try (VerbsTransport probe = new VerbsTransport(TransportConf.EMPTY)) {
      System.out.println("RDMA device found; starting HBase");
    } catch (TransportUnavailableException e) {
      System.out.println("no RDMA device: " + e.getMessage());
      System.exit(1);
    }
  }

  /** Routed calls until the table's connection has its endpoint up (the first go by sockets). */
  static void awaitEndpoint(Table t) throws Exception {
    long before = RdmaRpcMetrics.count("client.endpoints.connected");
    long deadline = System.currentTimeMillis() + 60_000;
    while (RdmaRpcMetrics.count("client.endpoints.connected") == before) {
      t.get(new Get(RECORD));
      if (System.currentTimeMillis() > deadline) {
        throw new IllegalStateException("no verbs endpoint connected within 60 s");
      }
      Thread.sleep(10);
    }
  }

  // ---------------------------------------------------------------------------------------
  // per value size, one client thread

  /** One value size: latencies per path, and what went over the endpoint. */
  static final class SizeRow {
    final int bytes;
    /** [path][0 get, 1 put] latencies, ns. */
    final long[][][] samples;
    final Counts counts;
    final Traffic traffic;
    final int calls;

    SizeRow(int bytes, long[][][] samples, Counts counts, Traffic traffic, int calls) {
      this.bytes = bytes;
      this.samples = samples;
      this.counts = counts;
      this.traffic = traffic;
      this.calls = calls;
    }

    double us(int path, int op, double percentile) {
      return HybridRpcLatency.us(samples[path][op], calls, percentile);
    }

    /** Mean bytes of a Get's response over the endpoint. */
    long getResponseBytes() {
      return perMessage(traffic.getResponseBytes, traffic.getResponses);
    }

    /** Mean bytes of a Put's request over the endpoint. */
    long putRequestBytes() {
      return perMessage(traffic.putRequestBytes, traffic.putRequests);
    }

    boolean allOverEndpoint() {
      return counts.allOver(calls, calls);
    }

    String line(int eager) {
      return String.format(Locale.ROOT, "size %7d B: get p50 netty %7.0f rdma %7.0f us, put p50 "
        + "netty %7.0f rdma %7.0f us; endpoint: Get response %d B (%s), Put request %d B (%s), "
        + "%d/%d Gets and %d/%d Puts over it", bytes, us(0, 0, 50), us(1, 0, 50), us(0, 1, 50),
        us(1, 1, 50), getResponseBytes(), path(getResponseBytes(), eager), putRequestBytes(),
        path(putRequestBytes(), eager), counts.gets(), calls, counts.puts(), calls);
    }
  }

  private static SizeRow sizeRow(Connection[] paths, HybridRpcClient client, int size,
    Options o) throws Exception {
    byte[] value = value(size);
    Table[] tables = new Table[paths.length];
    for (int p = 0; p < paths.length; p++) {
      tables[p] = paths[p].getTable(TABLE);
    }
    try {
      tables[0].put(put(value)); // the record now holds this size
      for (Table t : tables) {
        sequential(t, value, Math.min(WARM_UP_CALLS, o.calls), null, 0, null);
      }
      int n = o.calls * o.rounds;
      long[][][] samples = new long[paths.length][2][n];
      Traffic traffic = new Traffic(client);
      Counts before = Counts.now();
      for (int r = 0; r < o.rounds; r++) {
        for (int m = 0; m < paths.length; m++) {
          int p = (m + r) % paths.length;
          sequential(tables[p], value, o.calls, samples[p], r * o.calls, p == 1 ? traffic : null);
        }
      }
      return new SizeRow(size, samples, Counts.now().minus(before), traffic, n);
    } finally {
      for (Table t : tables) {
        t.close();
      }
    }
  }

  /**
   * {@code calls} Gets of the record (checking the value's size), then {@code calls} Puts of
   * {@code value}; latencies in ns into samples[0|1] at offset when samples is given. With
   * traffic (the endpoint path), the endpoint messages of the Gets and of the Puts are added to
   * it.
   */
  private static void sequential(Table t, byte[] value, int calls, long[][] samples, int offset,
    Traffic traffic) throws Exception {
    TransportCounters mark = traffic == null ? null : traffic.now();
    for (int i = 0; i < calls; i++) {
      long t0 = System.nanoTime();
      Result r = t.get(new Get(RECORD));
      long ns = System.nanoTime() - t0;
      checkValue(r, value.length);
      if (samples != null) {
        samples[0][offset + i] = ns;
      }
    }
    if (traffic != null) {
      mark = traffic.addGets(mark);
    }
    Put put = put(value);
    for (int i = 0; i < calls; i++) {
      long t0 = System.nanoTime();
      t.put(put);
      if (samples != null) {
        samples[1][offset + i] = System.nanoTime() - t0;
      }
    }
    if (traffic != null) {
      traffic.addPuts(mark);
    }
  }

  /**
   * The endpoint messages of a one-thread client's Gets (their responses) and Puts (their
   * requests), from its endpoints' own counters.
   */
  static final class Traffic {
    private final HybridRpcClient client;
    long getResponses;
    long getResponseBytes;
    long putRequests;
    long putRequestBytes;

    Traffic(HybridRpcClient client) {
      this.client = client;
    }

    /** The counters of all the client's endpoints together. */
    TransportCounters now() {
      TransportCounters sum = new TransportCounters();
      for (TransportCounters tc : client.endpointCounters()) {
        sum.add(tc);
      }
      return sum;
    }

    /** Adds the responses received since mark to the Gets'; returns the counters now. */
    TransportCounters addGets(TransportCounters mark) {
      TransportCounters now = now();
      getResponses += now.messagesReceived() - mark.messagesReceived();
      getResponseBytes += now.bytesReceived() - mark.bytesReceived();
      return now;
    }

    /** Adds the requests sent since mark to the Puts'. */
    void addPuts(TransportCounters mark) {
      TransportCounters now = now();
      putRequests += now.messagesSent() - mark.messagesSent();
      putRequestBytes += now.bytesSent() - mark.bytesSent();
    }
  }

  // ---------------------------------------------------------------------------------------
  // counting what went over the endpoint

  /** The client's counters of routed calls, and their differences. */
  static final class Counts {
    private static final String[] NAMES = { "client.Get.rdma", "client.Mutate.rdma",
      "client.Get.sockets", "client.Mutate.sockets", "client.fallback.before.send",
      "client.failed.after.send", "client.resent.response.too.large" };
    private final long[] v;

    private Counts(long[] v) {
      this.v = v;
    }

    static Counts now() {
      long[] v = new long[NAMES.length];
      for (int i = 0; i < v.length; i++) {
        v[i] = RdmaRpcMetrics.count(NAMES[i]);
      }
      return new Counts(v);
    }

    Counts minus(Counts o) {
      long[] d = new long[v.length];
      for (int i = 0; i < d.length; i++) {
        d[i] = v[i] - o.v[i];
      }
      return new Counts(d);
    }

    /** Gets sent over the endpoint and answered there (none re-sent over sockets). */
    long gets() {
      return v[0] - v[6];
    }

    long puts() {
      return v[1];
    }

    /** Exactly these calls over the endpoint, none over sockets, failed over or re-sent. */
    boolean allOver(long gets, long puts) {
      boolean over = gets() == gets && puts() == puts;
      for (int i = 2; i < v.length; i++) {
        over &= v[i] == 0;
      }
      return over;
    }
  }

  // ---------------------------------------------------------------------------------------
  // output

  private static void printTables(List<SizeRow> sizes, List<ThreadSweep.ThreadRow> threads,
    int eager, Options o) {
    System.out.printf(Locale.ROOT, "%nPer value size, one client thread, one record (%d Gets and "
      + "%d Puts per path and size, %d rounds; latency in us; eager threshold %d B)%n",
      o.calls * o.rounds, o.calls * o.rounds, o.rounds, eager);
    System.out.printf(Locale.ROOT, "%8s %-10s %9s %9s %9s %9s  %s%n", "bytes", "path", "get p50",
      "get p99", "put p50", "put p99", "endpoint");
    for (SizeRow r : sizes) {
      for (int p = 0; p < PATHS.length; p++) {
        String endpoint = p == 0 ? "" : String.format(Locale.ROOT,
          "%d/%d Gets, %d/%d Puts; Get response %d B %s, Put request %d B %s", r.counts.gets(),
          r.calls, r.counts.puts(), r.calls, r.getResponseBytes(),
          path(r.getResponseBytes(), eager), r.putRequestBytes(),
          path(r.putRequestBytes(), eager));
        System.out.printf(Locale.ROOT, "%8d %-10s %9.0f %9.0f %9.0f %9.0f  %s%n", r.bytes,
          PATHS[p], r.us(p, 0, 50), r.us(p, 0, 99), r.us(p, 1, 50), r.us(p, 1, 99), endpoint);
      }
      System.out.printf(Locale.ROOT, "%8d %-10s %9.2f %9.2f %9.2f %9.2f%n", r.bytes,
        "rdma/netty", r.us(1, 0, 50) / r.us(0, 0, 50), r.us(1, 0, 99) / r.us(0, 0, 99),
        r.us(1, 1, 50) / r.us(0, 1, 50), r.us(1, 1, 99) / r.us(0, 1, 99));
    }

    System.out.printf(Locale.ROOT, "%nPer client thread count, all on the same %d B record "
      + "(%d ms warm-up, %d ms measured per cell; latency in us; cpu: process CPU us per "
      + "operation, client and server)%n", o.threadBytes, o.warmupMs, o.measureMs);
    System.out.printf(Locale.ROOT, "%7s %-10s %9s %9s %9s %9s %9s %9s %9s %9s%n", "threads",
      "path", "get ops/s", "get mean", "get p99", "cpu/get", "put ops/s", "put mean", "put p99",
      "cpu/put");
    for (ThreadSweep.ThreadRow r : threads) {
      for (int p = 0; p < PATHS.length; p++) {
        ThreadSweep.Window g = r.windows[p][0];
        ThreadSweep.Window w = r.windows[p][1];
        System.out.printf(Locale.ROOT, "%7d %-10s %9.0f %9.0f %9.0f %9.0f %9.0f %9.0f %9.0f "
          + "%9.0f%n", r.threads, PATHS[p], g.opsPerS(), g.meanUs(), g.p99Us(), g.cpuUsPerOp(),
          w.opsPerS(), w.meanUs(), w.p99Us(), w.cpuUsPerOp());
      }
      ThreadSweep.Window[] n = { r.windows[0][0], r.windows[0][1] };
      ThreadSweep.Window[] v = { r.windows[1][0], r.windows[1][1] };
      System.out.printf(Locale.ROOT, "%7d %-10s %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f "
        + "%9.2f%n", r.threads, "rdma/netty", v[0].opsPerS() / n[0].opsPerS(),
        v[0].meanUs() / n[0].meanUs(), v[0].p99Us() / n[0].p99Us(),
        v[0].cpuUsPerOp() / n[0].cpuUsPerOp(), v[1].opsPerS() / n[1].opsPerS(),
        v[1].meanUs() / n[1].meanUs(), v[1].p99Us() / n[1].p99Us(),
        v[1].cpuUsPerOp() / n[1].cpuUsPerOp());
      System.out.printf(Locale.ROOT, "%7s %-10s over the endpoint: %d/%d Gets, %d/%d Puts%n",
        "", "", r.counts.gets(), r.windows[1][0].calls, r.counts.puts(), r.windows[1][1].calls);
    }
  }

  /**
   * Writes the rows so far to the --json file, if any: after each row with complete false (a run
   * cut short keeps what it measured), at the end with complete true.
   */
  private static void writeJson(List<SizeRow> sizes, List<ThreadSweep.ThreadRow> threads, int eager,
    boolean complete, Options o) throws IOException {
    if (o.json == null) {
      return;
    }
    boolean allOver = sizes.stream().allMatch(SizeRow::allOverEndpoint)
      && threads.stream().allMatch(ThreadSweep.ThreadRow::allOverEndpoint);
    Path file = Paths.get(o.json).toAbsolutePath();
    Files.createDirectories(file.getParent());
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    BenchJson.write(tmp.toFile(), result(sizes, threads, eager, allOver, complete, o));
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
  }

  private static HybridRpcResult result(List<SizeRow> sizes, List<ThreadSweep.ThreadRow> threads,
    int eager, boolean allOver, boolean complete, Options o) {
    List<HybridRpcResult.Size> sizeRows = new ArrayList<>();
    for (SizeRow r : sizes) {
      HybridRpcResult.SizePath[] paths = new HybridRpcResult.SizePath[PATHS.length];
      for (int p = 0; p < PATHS.length; p++) {
        boolean endpoint = p == 1;
        paths[p] = new HybridRpcResult.SizePath(HybridRpcResult.tenth(r.us(p, 0, 50)),
          HybridRpcResult.tenth(r.us(p, 0, 99)), HybridRpcResult.tenth(r.us(p, 1, 50)),
          HybridRpcResult.tenth(r.us(p, 1, 99)), r.calls, r.calls,
          endpoint ? r.counts.gets() : null, endpoint ? r.counts.puts() : null,
          endpoint ? r.getResponseBytes() : null,
          endpoint ? path(r.getResponseBytes(), eager) : null,
          endpoint ? r.putRequestBytes() : null,
          endpoint ? path(r.putRequestBytes(), eager) : null);
      }
      sizeRows.add(new HybridRpcResult.Size(r.bytes, paths[0], paths[1]));
    }
    List<HybridRpcResult.Threads> threadRows = new ArrayList<>();
    for (ThreadSweep.ThreadRow r : threads) {
      HybridRpcResult.ThreadPath[] paths = new HybridRpcResult.ThreadPath[PATHS.length];
      for (int p = 0; p < PATHS.length; p++) {
        boolean endpoint = p == 1;
        ThreadSweep.Window g = r.windows[p][0];
        ThreadSweep.Window w = r.windows[p][1];
        paths[p] = new HybridRpcResult.ThreadPath(HybridRpcResult.tenth(g.opsPerS()),
          HybridRpcResult.tenth(g.meanUs()), HybridRpcResult.tenth(g.p99Us()),
          HybridRpcResult.tenth(g.cpuUsPerOp()), HybridRpcResult.tenth(w.opsPerS()),
          HybridRpcResult.tenth(w.meanUs()), HybridRpcResult.tenth(w.p99Us()),
          HybridRpcResult.tenth(w.cpuUsPerOp()), g.latencies.length, w.latencies.length,
          endpoint ? g.calls : null, endpoint ? w.calls : null,
          endpoint ? r.counts.gets() : null, endpoint ? r.counts.puts() : null);
      }
      threadRows.add(new HybridRpcResult.Threads(r.threads, paths[0], paths[1]));
    }
    RunLabels labels = o.labels;
    return new HybridRpcResult(labels.commit(), labels.date(), labels.transport(),
      labels.emulation(), complete, eager, MAX_MESSAGE, o.calls * o.rounds,
      o.rounds, o.threadBytes, o.warmupMs, o.measureMs,
      Runtime.getRuntime().availableProcessors(), allOver, sizeRows, threadRows);
  }

  // ---------------------------------------------------------------------------------------
  // helpers

  /** Whether a message of this size goes eagerly (SEND) or by RDMA WRITE. */
  private static String path(long messageBytes, int eager) {
    return messageBytes > eager ? "rdma-write" : "eager";
  }

  private static long perMessage(long bytes, long messages) {
    return messages == 0 ? 0 : bytes / messages;
  }

  static void checkValue(Result r, int bytes) {
    byte[] v = r.getValue(RpcTestSupport.FAMILY, RpcTestSupport.QUALIFIER);
    if (v == null || v.length != bytes) {
      throw new IllegalStateException("the record's value has " + (v == null ? "no" : v.length)
        + " bytes, not " + bytes);
    }
  }

  static double us(long[] nanos, int n, double percentile) {
    Latencies l = new Latencies();
    for (int i = 0; i < n; i++) {
      l.record(nanos[i]);
    }
    return l.percentile(percentile) / 1000.0;
  }

  static Put put(byte[] value) {
    return new Put(RECORD).addColumn(RpcTestSupport.FAMILY, RpcTestSupport.QUALIFIER, value);
  }

  static byte[] value(int bytes) {
    byte[] v = new byte[bytes];
    Arrays.fill(v, (byte) 'v');
    return v;
  }
}
