package io.strata.bench.ycsb;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.Test;

/** Reports captured from YCSB 0.17.0 runs of {@link HBaseClient26} on the embedded cluster. */
public class YcsbReportTest {

  private static List<String> lines(String resource) throws Exception {
    try (InputStream in = YcsbReportTest.class.getResourceAsStream("/ycsb/" + resource)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
    }
  }

  @Test
  public void workloadARun() throws Exception {
    YcsbReport r = YcsbReport.parse(lines("workloada-run.txt"));
    assertTrue(r.complete());
    assertEquals(2951, r.runTimeMs(), 0);
    assertEquals(677.7363605557438, r.throughputOpsPerSec(), 1e-9);
    assertEquals(List.of("READ", "CLEANUP", "UPDATE"), List.copyOf(r.operations().keySet()));

    YcsbReport.Operation read = r.operation("READ");
    assertEquals(977, read.count());
    assertEquals(1537.8976458546572, read.averageUs(), 1e-9);
    assertEquals(207, read.minUs(), 0);
    assertEquals(34143, read.maxUs(), 0);
    assertEquals(Map.of(50.0, 969.0, 99.0, 7071.0, 99.9, 17199.0, 99.99, 34143.0),
      read.percentilesUs());
    assertEquals(17199, read.percentileUs(99.9).getAsDouble(), 0);
    assertFalse(read.percentileUs(95).isPresent());
    assertEquals(Map.of("OK", 977L), read.returns());

    YcsbReport.Operation update = r.operation("UPDATE");
    assertEquals(1023, update.count());
    assertEquals(1023, update.returned("OK"));
    assertEquals(9167, update.percentileUs(99).getAsDouble(), 0);
    assertEquals(0, update.returned("ERROR"));
    assertEquals(2, r.operation("CLEANUP").count());
    assertEquals(0, r.failedOperations());
    assertEquals("7", r.sections().get("TOTAL_GCs").get("Count"));
  }

  @Test
  public void loadReport() throws Exception {
    YcsbReport r = YcsbReport.parse(lines("workloada-load.txt"));
    YcsbReport.Operation insert = r.operation("INSERT");
    assertEquals(1000, insert.count());
    assertEquals(1000, insert.returnedTotal());
    assertEquals(2569, insert.percentileUs(50).getAsDouble(), 0);
    assertEquals(81087, insert.percentileUs(99.9).getAsDouble(), 0);
    assertEquals(81983, insert.percentileUs(99.99).getAsDouble(), 0);
    assertEquals(279.9552071668533, r.throughputOpsPerSec(), 1e-9);
  }

  @Test
  public void notFoundReadsAreTimedApartAndCountedAsFailed() throws Exception {
    YcsbReport r = YcsbReport.parse(lines("workloadc-not-found-run.txt"));
    YcsbReport.Operation read = r.operation("READ");
    assertEquals(215, read.count());
    assertEquals(Map.of("OK", 215L, "NOT_FOUND", 185L), read.returns());
    assertEquals(400, read.returnedTotal());
    assertEquals(185, r.operation("READ-FAILED").count());
    assertTrue(r.operation("READ-FAILED").returns().isEmpty());
    assertEquals(185, r.failedOperations());
  }

  @Test
  public void statusAndLogLinesAreSkipped() throws Exception {
    List<String> mixed = new ArrayList<>(lines("workloada-run.err"));
    mixed.addAll(lines("workloada-run.txt"));
    mixed.add("07:31:25,301 INFO  [main] ConnectionImplementation: Closing master protocol");
    assertEquals(YcsbReport.parse(lines("workloada-run.txt")).sections(),
      YcsbReport.parse(mixed).sections());
  }

  @Test
  public void reportWithoutOverallIsIncomplete() throws Exception {
    YcsbReport r = YcsbReport.parse(lines("workloada-run.err"));
    assertFalse(r.complete());
    assertTrue(r.operations().isEmpty());
  }

  @Test(expected = IllegalArgumentException.class)
  public void missingOperationIsNamed() throws Exception {
    YcsbReport.parse(lines("workloada-run.txt")).operation("SCAN");
  }
}
