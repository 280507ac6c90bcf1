package io.strata.pcm;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import org.apache.hadoop.hbase.TableName;
import org.junit.Test;

/** The sliding window's rates and the monitor loop over a scripted metrics source. */
public class WorkloadMonitorTest {

  private static TableSample at(long sec, long reads, long writes, long bytes) {
    return new TableSample(sec * 1000, reads, 0, writes, 1, bytes > 0 ? 1 : 0, bytes, 0, 1,
      1L << 30, 0, -1, -1);
  }

  @Test
  public void ratesSpanTheWindow() {
    WorkloadWindow w = new WorkloadWindow(3);
    w.add(at(0, 0, 0, 0));
    w.add(at(10, 100, 1000, 0));
    assertFalse(w.ready());
    w.add(at(20, 200, 2000, 0));
    assertTrue(w.ready());
    w.add(at(30, 300, 5000, 0)); // the first sample leaves the window
    WorkloadRates r = w.rates();
    assertEquals(20, r.seconds(), 1e-9);
    assertEquals(10, r.readsPerSec(), 1e-9);
    assertEquals(200, r.writesPerSec(), 1e-9);
    assertTrue(r.emptyAtStart());
  }

  @Test
  public void readsAreOperationsWhenTheGetScanSplitIsKnown() {
    WorkloadWindow w = new WorkloadWindow(2);
    // 95 scans returning 50 rows each and 5 inserts: by rows nearly read-only, by requests RM.
    w.add(new TableSample(0, 0, 0, 0, 1, 1, 1, 0, 1, 1L << 30, 0, 0, 0));
    w.add(new TableSample(1000, 95 * 50, 0, 5, 1, 1, 1, 0, 1, 1L << 30, 0, 0, 95));
    assertEquals(95, w.rates().readsPerSec(), 1e-9);
    assertEquals(Optional.of(WorkloadClass.RM),
      new WorkloadClassifier(1, 0.01).classify(w.rates()));
  }

  @Test
  public void sampledPutsTellUpdatesFromInserts() {
    // A loaded table (data at the start), write-only: 1000 Puts, 31 of them sampled.
    WorkloadWindow w = new WorkloadWindow(2, 20);
    w.add(new TableSample(0, 0, 0, 0, 1, 1, 1, 0, 1, 1L << 30, 0, 0, 0, 100, 90));
    w.add(new TableSample(1000, 0, 0, 1000, 1, 1, 1, 0, 1, 1L << 30, 0, 0, 0, 131, 92));
    assertEquals(2.0 / 31, w.rates().insertShare(), 1e-9);
    assertEquals(Optional.of(WorkloadClass.WO_UPDATE),
      new WorkloadClassifier(1, 0.01).classify(w.rates()));
    w.add(new TableSample(2000, 0, 0, 2000, 1, 1, 1, 0, 1, 1L << 30, 0, 0, 0, 162, 122));
    assertEquals(Optional.of(WorkloadClass.WO_INSERT),
      new WorkloadClassifier(1, 0.01).classify(w.rates()));
  }

  @Test
  public void aCounterResetRestartsTheWindow() {
    WorkloadWindow w = new WorkloadWindow(2);
    w.add(at(0, 0, 0, 5));
    w.add(at(10, 500, 500, 5));
    assertTrue(w.ready());
    w.add(at(20, 10, 10, 5)); // a region reopened: its counts start again
    assertFalse(w.ready());
    w.add(at(30, 20, 110, 5));
    assertEquals(1, w.rates().readsPerSec(), 1e-9);
    assertFalse(w.rates().emptyAtStart());
  }

  @Test
  public void theMonitorReportsAChangeOnceTheClassHolds() throws Exception {
    Deque<TableSample> script = new ArrayDeque<>();
    for (int i = 0; i < 6; i++) {
      script.add(at(i, 0, 1000L * i, 0));
    }
    WorkloadMonitor m = new WorkloadMonitor(TableName.valueOf("t"), t -> script.removeFirst(), 3,
      new WorkloadClassifier(1, 0.01), 3);
    assertFalse(m.observe().observed().isPresent()); // the window fills first
    assertFalse(m.observe().observed().isPresent());
    WorkloadMonitor.Observation o = m.observe();
    assertEquals(Optional.of(WorkloadClass.BL), o.observed());
    assertEquals(Optional.empty(), o.changed());
    assertEquals(Optional.empty(), m.observe().changed());
    o = m.observe();
    assertEquals(Optional.of(WorkloadClass.BL), o.changed());
    assertEquals(3, o.run());
    assertEquals(Optional.empty(), m.observe().changed());
  }
}
