package io.strata.bench.ycsb;

import java.io.File;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * A run of every part of {@code strata bench ycsb} made up from fixed figures, for the tests that
 * hold the JSON the bench writes: each part with the branches its JSON has (more than one client,
 * a settle step, a cell filter and a row filter, a filter that never pays, a baseline and a
 * protected ACL variant).
 */
final class YcsbSamples {
  private YcsbSamples() {
  }

  static LatencySummary latency(long n, long base) {
    return new LatencySummary(n, base * 1.2345, base, base * 3, base * 5, base * 7, base * 11);
  }

  static ActivitySnapshot activity(int k) {
    return new ActivitySnapshot(3L * k, 12_345_678L * k, 2L * k, k, 9_876_543L * k,
      8_765_432L * k, 0, k % 2, 0, 7 * k, 4 + k);
  }

  static PhaseFigures figures(int clients, String op, long n) {
    Map<String, LatencySummary> lat = new LinkedHashMap<>();
    lat.put(op, latency(n, 250));
    lat.put("CLEANUP", latency(clients, 900));
    return new PhaseFigures(clients, n, clients > 1 ? 3 : 0, 12.34567, n / 12.34567, lat,
      clients > 1 ? 1.234 : -1, clients > 1 ? 56.78 : -1, clients > 1 ? 345.67 : -1, List.of());
  }

  static List<MultiPhaseRun.StepResult> phases() {
    return List.of(
      new MultiPhaseRun.StepResult(new MultiPhaseRun.Step(MultiPhaseRun.Kind.LOAD, null),
        14.56789, figures(2, "INSERT", 20_000), activity(1), null),
      new MultiPhaseRun.StepResult(new MultiPhaseRun.Step(MultiPhaseRun.Kind.FLUSH, null),
        0.4321, null, activity(2), null),
      new MultiPhaseRun.StepResult(new MultiPhaseRun.Step(MultiPhaseRun.Kind.SETTLE, null),
        6.25, null, activity(3), new Settle.Outcome("quiet", true, false,
          Duration.ofMillis(6250), activity(3))),
      new MultiPhaseRun.StepResult(new MultiPhaseRun.Step(MultiPhaseRun.Kind.RUN, "workloada"),
        20.5, figures(1, "READ", 50_000), activity(4), null));
  }

  static PresplitComparison.Result presplit() {
    return new PresplitComparison.Result(8,
      List.of(new PresplitComparison.Variant("presplit", 8, figures(1, "INSERT", 20_000),
        activity(2)), new PresplitComparison.Variant("presplit", 8,
          figures(1, "INSERT", 21_000), activity(1))),
      List.of(new PresplitComparison.Variant("single", 1, figures(1, "INSERT", 15_000),
        activity(3)), new PresplitComparison.Variant("single", 1, figures(1, "INSERT", 16_000),
          activity(1))));
  }

  static BulkLoadComparison.Result bulkload() {
    return new BulkLoadComparison.Result(presplit(),
      List.of(new BulkLoadComparison.BulkLoad(8, 20_000, 1.2345, 0.3456, 8),
        new BulkLoadComparison.BulkLoad(8, 20_000, 1.1111, 0.2222, 8)),
      List.of(new BulkLoadComparison.BulkLoad(1, 20_000, 1.5, 0.25, 1),
        new BulkLoadComparison.BulkLoad(1, 20_000, 1.4, 0.2, 1)));
  }

  static List<ReadAfterWriteLag.Result> rawLag() {
    return List.of(lag(0, 0, List.of()), lag(64 << 10, 17,
      List.of(new double[] { 1.5, 0.25 }, new double[] { 12.25, 1.0 })));
  }

  private static ReadAfterWriteLag.Result lag(long buffer, int retried, List<double[]> cdf) {
    return new ReadAfterWriteLag.Result(new ReadAfterWriteLag.Settings(20_000, buffer, 2000,
      buffer == 0 ? 1 : 7, Duration.ofMillis(10), 10, 100, Duration.ofSeconds(60)), 300, 10.123,
      latency(300, 1234), 456, 1.2345, retried, latency(retried, 5678), cdf);
  }

  static RpcCompare.Settings rpcSettings() {
    return new RpcCompare.Settings(1000, 500, Duration.ofSeconds(5), List.of("read", "write"),
      List.of(1, 8), 2, 100, 2, Map.of(), null, "loopback");
  }

  /** Every operation took {@code meanUs}. */
  static InProcessYcsb.Figures rpcFigures(long reads, long updates, double meanUs) {
    Map<String, Histogram> byType = new TreeMap<>();
    Histogram all = new Histogram(3);
    long ns = Math.round(meanUs * 1000);
    if (reads > 0) {
      byType.computeIfAbsent(MeasuredDb.READ, x -> new Histogram(3)).recordValueWithCount(ns,
        reads);
    }
    if (updates > 0) {
      byType.computeIfAbsent(MeasuredDb.UPDATE, x -> new Histogram(3)).recordValueWithCount(ns,
        updates);
    }
    long ops = reads + updates;
    if (ops > 0) {
      all.recordValueWithCount(ns, ops);
    }
    return new InProcessYcsb.Figures(ops, 0, ops * meanUs / 1e6, all, byType);
  }

  static Map<String, Long> counters(long gets, long mutates) {
    Map<String, Long> m = new LinkedHashMap<>();
    m.put("client.Get.rdma", gets);
    m.put("client.Mutate.rdma", mutates);
    m.put("server.Get.calls", gets);
    m.put("server.Mutate.calls", mutates);
    return m;
  }

  static RpcCompare.Result rpc() {
    List<RpcCompare.Cell> cells = new java.util.ArrayList<>();
    for (String w : rpcSettings().workloads()) {
      for (int t : rpcSettings().threads()) {
        long reads = w.equals("write") ? 0 : 400;
        long updates = w.equals("read") ? 0 : 400;
        cells.add(new RpcCompare.Cell(w, t, List.of("netty", "rdma"),
          new RpcCompare.PathRun(rpcFigures(reads, updates, 100), counters(0, 0),
            List.of(9876.4, 10123.6)),
          new RpcCompare.PathRun(rpcFigures(reads, updates, 40), counters(reads, updates),
            List.of(24_999.5, 25_000.4)), 1.5));
      }
    }
    return new RpcCompare.Result(rpcSettings(), "loopback", false, rpcFigures(0, 1000, 300),
      1000, cells, List.of("read x1 rdma: 400 reads but client.Get.rdma +0"));
  }

  static FilterComparison.Settings filterSettings() {
    return new FilterComparison.Settings(20_000, 100, 100, 8, List.of(1, 100), List.of(10, 100),
      3, 1);
  }

  static FilterComparison.Result filters() {
    List<FilterComparison.Cell> cells = new java.util.ArrayList<>();
    for (FilterComparison.Kind k : FilterComparison.Kind.values()) {
      for (int rows : filterSettings().scanRows()) {
        for (int sel : filterSettings().selectivities()) {
          long expected = (long) rows * sel / 10;
          // The server-side filter pays from 100 rows, except the value filter, never.
          long serverNs = k == FilterComparison.Kind.VALUE || rows == 1 ? 3_000_000 : 1_000_000;
          cells.add(new FilterComparison.Cell(k, rows, sel, 3, 3L * rows, expected,
            3L * rows * 10_100,
            new FilterComparison.Side(new long[] { serverNs, serverNs + 1000, serverNs + 7 },
              expected * 110, expected, Math.min(expected, 3L * rows)),
            new FilterComparison.Side(new long[] { 2_000_000, 2_000_500, 2_100_000 },
              3L * rows * 10_100, expected, Math.min(expected, 3L * rows))));
        }
      }
    }
    return new FilterComparison.Result(filterSettings(), 12.3456, 202_000_000L, cells);
  }

  static AclComparison.Settings aclSettings() {
    return new AclComparison.Settings(2000, 4, List.of(4), 2, 1000, 2000, 8, 10, 100, 100 << 10);
  }

  static AclComparison.Result acl() {
    AclComparison.Round b1 = new AclComparison.Round(1, 2000, 1.2345, 2000, 0.4567, null);
    AclComparison.Round b2 = new AclComparison.Round(2, 2000, 1.1345, 2000, 0.4067, null);
    AclComparison.Round t1 = new AclComparison.Round(1, 2000, 1.5, 2000, 0.6, b1);
    AclComparison.Round c1 = new AclComparison.Round(1, 2000, 2.25, 2100, 0.9, b2);
    return new AclComparison.Result(aclSettings(), List.of(
      new AclComparison.Variant("none", 0, List.of(b1, b2),
        new AclComparison.Proof(false, false, 2000, 0, -1)),
      new AclComparison.Variant("table", 4, List.of(t1),
        new AclComparison.Proof(true, true, 0, 4, -1)),
      new AclComparison.Variant("cell", 4, List.of(c1),
        new AclComparison.Proof(true, false, 0, 1, 10))));
  }

  /** The settings of a run with every experiment. */
  static YcsbBench.Settings settings() {
    Map<String, String> ycsb = new LinkedHashMap<>();
    ycsb.put("fieldcount", "10");
    ycsb.put("readproportion", "0.5");
    return new YcsbBench.Settings(MultiPhaseRun.parse(YcsbBench.DEFAULT_PHASES), true, true, 2, 4,
      20_000, 50_000, 8, 2, Settle.untilQuiet(Duration.ofSeconds(5), Duration.ofSeconds(120)),
      20_000, List.of(0L, 64L << 10), 2000, 0, 0, ycsb, new File("/tmp/ycsb-work"),
      rpcSettings(), new File("/tmp/ycsb-out"), true, 0, filterSettings(), aclSettings());
  }
}
