package io.strata.hbase.rdma;

import io.strata.metrics.Percentiles;
import io.strata.rdma.transport.TransportConf;
import io.strata.rdma.transport.TransportUnavailableException;
import io.strata.rdma.verbs.VerbsTransport;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.ipc.HybridRpcServer;

/**
 * 1 KiB Get and Put latency of one client thread through an HBase RegionServer in this JVM, over
 * HBase's Netty sockets and over the hybrid RPC's verbs endpoint, in one run against the same
 * RegionServer and rows (a measurement for dev-support/softroce-test --bench; the RDMA
 * counterpart of {@code strata bench rpc}, whose cluster is too heavy for the emulated guest).
 * Rounds alternate the two modes so that both see the same background; the table gives p50 and
 * p99 over all rounds and how many calls the client counted as sent over the endpoint.
 *
 * <p>usage: HybridRpcLatency [calls per operation, mode and round (default 500)] [rounds
 * (default 4)]
 */
public final class HybridRpcLatency {
  private static final int ROWS = 1000;
  private static final int VALUE_BYTES = 1024;
  private static final TableName TABLE = TableName.valueOf("latency");

  private HybridRpcLatency() {
  }

  public static void main(String[] args) throws Exception {
    int calls = args.length > 0 ? Integer.parseInt(args[0]) : 500;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 4;
    try (VerbsTransport probe = new VerbsTransport(TransportConf.EMPTY)) {
      System.out.println("RDMA device found; starting HBase");
    } catch (TransportUnavailableException e) {
      System.out.println("no RDMA device: " + e.getMessage());
      System.exit(1);
    }
    int maxMessage = 1 << 20;
    boolean allOverVerbs;
    long started = System.nanoTime();
    try (MiniHBase cluster = MiniHBase.start("rpc-latency",
      RpcTestSupport.verbsServer(maxMessage));
      Connection admin = ConnectionFactory.createConnection(cluster.clientConf());
      Connection verbs = ConnectionFactory.createConnection(
        RpcTestSupport.verbsClient(cluster.clientConf(), maxMessage))) {
      HybridRpcServer rpc = (HybridRpcServer) cluster.regionServer().getRpcServer();
      System.out.printf(Locale.ROOT, "cluster up in %.0f s; RDMA endpoint on %s%n",
        (System.nanoTime() - started) / 1e9, rpc.getRdmaAddress());
      RpcTestSupport.createTable(admin, TABLE);
      try (Table t = admin.getTable(TABLE)) {
        List<Put> puts = new ArrayList<>();
        for (int i = 0; i < ROWS; i++) {
          puts.add(new Put(row(i)).addColumn(RpcTestSupport.FAMILY, RpcTestSupport.QUALIFIER,
            value(i)));
        }
        t.put(puts);
      }
      Map<String, Table> tables = new LinkedHashMap<>();
      tables.put("netty", admin.getTable(TABLE));
      tables.put("verbs", verbs.getTable(TABLE));
      awaitEndpoint(tables.get("verbs"));

      Map<String, long[][]> samples = new LinkedHashMap<>();
      for (String mode : tables.keySet()) {
        samples.put(mode, new long[][] { new long[calls * rounds], new long[calls * rounds] });
        run(tables.get(mode), calls, null, 0); // warm-up
      }
      long gets = RdmaRpcMetrics.count("client.Get.rdma");
      long mutates = RdmaRpcMetrics.count("client.Mutate.rdma");
      List<String> modes = new ArrayList<>(tables.keySet());
      for (int r = 0; r < rounds; r++) {
        for (int m = 0; m < modes.size(); m++) {
          String mode = modes.get((m + r) % modes.size());
          run(tables.get(mode), calls, samples.get(mode), r * calls);
        }
      }
      long overGets = RdmaRpcMetrics.count("client.Get.rdma") - gets;
      long overMutates = RdmaRpcMetrics.count("client.Mutate.rdma") - mutates;
      for (Table t : tables.values()) {
        t.close();
      }

      int n = calls * rounds;
      System.out.printf(Locale.ROOT, "%n%-6s %10s %10s %10s %10s %8s%n", "mode", "get p50",
        "get p99", "put p50", "put p99", "calls");
      Map<String, double[]> p = new LinkedHashMap<>();
      for (Map.Entry<String, long[][]> e : samples.entrySet()) {
        long[][] s = e.getValue();
        double[] f = { us(s[0], n, 50), us(s[0], n, 99), us(s[1], n, 50), us(s[1], n, 99) };
        p.put(e.getKey(), f);
        System.out.printf(Locale.ROOT, "%-6s %8.0fus %8.0fus %8.0fus %8.0fus %8d%n", e.getKey(),
          f[0], f[1], f[2], f[3], 2 * n);
      }
      double[] netty = p.get("netty");
      double[] rdma = p.get("verbs");
      System.out.printf(Locale.ROOT, "verbs / netty: get p50 %.2fx, put p50 %.2fx, get p99 %.2fx, "
        + "put p99 %.2fx; over the verbs endpoint: %d Gets, %d Mutates (of %d each)%n",
        rdma[0] / netty[0], rdma[2] / netty[2], rdma[1] / netty[1], rdma[3] / netty[3], overGets,
        overMutates, n);
      allOverVerbs = overGets == n && overMutates == n;
    }
    if (!allOverVerbs) {
      System.out.println("not every verbs call went over the endpoint: the figures are mixed");
      System.exit(1);
    }
  }

  /** {@code calls} Gets then {@code calls} Puts; latencies in ns into samples[0|1] at offset. */
  private static void run(Table t, int calls, long[][] samples, int offset) throws Exception {
    int next = 0;
    byte[] value = value(7);
    for (int i = 0; i < calls; i++) {
      next = (next + 7919) % ROWS;
      long t0 = System.nanoTime();
      t.get(new Get(row(next)));
      if (samples != null) {
        samples[0][offset + i] = System.nanoTime() - t0;
      }
    }
    for (int i = 0; i < calls; i++) {
      next = (next + 7919) % ROWS;
      long t0 = System.nanoTime();
      t.put(new Put(row(next)).addColumn(RpcTestSupport.FAMILY, RpcTestSupport.QUALIFIER,
        value));
      if (samples != null) {
        samples[1][offset + i] = System.nanoTime() - t0;
      }
    }
  }

  private static void awaitEndpoint(Table t) throws Exception {
    long before = RdmaRpcMetrics.count("client.endpoints.connected");
    long deadline = System.currentTimeMillis() + 60_000;
    while (RdmaRpcMetrics.count("client.endpoints.connected") == before) {
      t.get(new Get(row(0)));
      if (System.currentTimeMillis() > deadline) {
        throw new IllegalStateException("no verbs endpoint connected within 60 s");
      }
      Thread.sleep(10);
    }
  }

  private static double us(long[] nanos, int n, double percentile) {
    return Percentiles.nearestRank(nanos, n, percentile) / 1000.0;
  }

  private static byte[] row(int i) {
    return RoutedCallChecks.row(i);
  }

  private static byte[] value(int i) {
    byte[] v = new byte[VALUE_BYTES];
    java.util.Arrays.fill(v, (byte) i);
    return v;
  }
}
