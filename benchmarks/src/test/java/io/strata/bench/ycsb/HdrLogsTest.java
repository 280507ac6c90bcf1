package io.strata.bench.ycsb;

import static org.junit.Assert.assertEquals;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.Test;

/**
 * YCSB's HdrHistogram logs, reports and barrier times captured (with HdrHistogram 2.1.12, the
 * version YCSB runs with here) from a coordinated run of
 * workload A ({@code strata bench ycsb --clients 2 --threads 2 --records 20000 --operations 20000
 * --phases load,settle,a --stagger-ms 3000}) on the embedded cluster: the logs merged per client give exactly
 * the client's own reported percentiles, and merged over both clients all operations.
 */
public class HdrLogsTest {
  static Path captured() throws Exception {
    return Path.of(HdrLogsTest.class.getResource("/ycsb/coordinated-workloada").toURI());
  }

  @Test
  public void oneClientsLogsGiveItsReportedPercentiles() throws Exception {
    for (String client : List.of("client-0", "client-1")) {
      Path dir = captured().resolve(client);
      Map<String, Histogram> merged = HdrLogs.merge(List.of(dir.resolve("hdr")));
      assertEquals(List.of("CLEANUP", "READ", "UPDATE"), List.copyOf(merged.keySet()));
      YcsbReport report = YcsbReport.parse(dir.resolve("run.txt"));
      for (String op : List.of("READ", "UPDATE", "CLEANUP")) {
        YcsbReport.Operation reported = report.operation(op);
        LatencySummary s = LatencySummary.of(merged.get(op));
        assertEquals(op, reported.count(), s.count());
        assertEquals(op, reported.maxUs(), s.max(), 0);
        assertEquals(op, reported.averageUs(), s.mean(), 1e-6);
        assertEquals(op, reported.percentileUs(50).getAsDouble(), s.p50(), 0);
        assertEquals(op, reported.percentileUs(99).getAsDouble(), s.p99(), 0);
        assertEquals(op, reported.percentileUs(99.9).getAsDouble(), s.p999(), 0);
        assertEquals(op, reported.percentileUs(99.99).getAsDouble(), s.p9999(), 0);
      }
    }
  }

  @Test
  public void coordinatedFiguresCoverBothClients() throws Exception {
    List<Path> dirs = List.of(captured().resolve("client-0"), captured().resolve("client-1"));
    List<YcsbRun> runs = new ArrayList<>();
    long reads = 0;
    long ops = 0;
    for (Path d : dirs) {
      YcsbReport r = YcsbReport.parse(d.resolve("run.txt"));
      runs.add(new YcsbRun(List.of(), 0, Duration.ZERO, null, null, d.resolve("run.txt"), r));
      reads += r.operation("READ").count();
      ops += r.operation("READ").returnedTotal() + r.operation("UPDATE").returnedTotal();
    }
    PhaseFigures f = YcsbClients.figures(runs, dirs);
    assertEquals(2, f.clients());
    assertEquals(20_000, ops);
    assertEquals(ops, f.operations());
    assertEquals(0, f.failed());
    assertEquals(reads, f.latenciesUs().get("READ").count());
    // the captured barrier times: the processes started 3 s apart (--stagger-ms 3000) and reached
    // the barrier 3.0 s apart, yet started their operations within 4 ms of each other
    assertEquals(3051.0, f.jvmStartSpreadMs(), 0.001);
    assertEquals(3047.469, f.arrivalSpreadMs(), 0.001);
    assertEquals(3.525, f.startSpreadMs(), 0.001);
    assertEquals(12.686731, f.seconds(), 1e-6);
    assertEquals(ops / f.seconds(), f.opsPerSec(), 1e-9);
  }
}
