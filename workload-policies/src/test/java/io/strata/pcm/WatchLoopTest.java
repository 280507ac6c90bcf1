package io.strata.pcm;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.TableName;
import org.junit.Test;

/** The watch loop keeps going through failed rounds, retries a policy, and gives up loudly. */
public class WatchLoopTest {
  private static final TableName T = TableName.valueOf("t");

  /** A write-only load on an empty table, one second per sample; fails on the given reads. */
  private static MetricsSource source(int... failing) {
    int[] call = {0};
    long[] at = {0};
    return t -> {
      int n = call[0]++;
      for (int f : failing) {
        if (f == n) {
          throw new IOException("master not reachable (read " + n + ")");
        }
      }
      long sec = at[0]++;
      return new TableSample(sec * 1000, 0, 0, 1000 * sec, 1, 0, 0, 0, 1, 1L << 30, 0, -1, -1);
    };
  }

  private static WorkloadMonitor monitor(MetricsSource src) {
    return new WorkloadMonitor(T, src, 2, new WorkloadClassifier(1, 0.01), 2);
  }

  @Test
  public void failedReadsAreRetriedAndTheClassStillApplied() throws Exception {
    List<WorkloadClass> applied = new ArrayList<>();
    List<Long> slept = new ArrayList<>();
    WatchLoop loop = new WatchLoop(monitor(source(1, 2)), 500, 3,
      (c, now) -> applied.add(c), slept::add);
    WatchLoop.Result r = loop.run(8, o -> { });
    assertFalse(r.gaveUp());
    assertEquals(2, r.failures().size());
    assertTrue(r.failures().get(0), r.failures().get(0).contains("master not reachable"));
    assertEquals(List.of(WorkloadClass.BL), applied);
    assertEquals(List.of("BL"), r.applied());
    assertEquals(7, slept.size());
    assertTrue(slept.stream().allMatch(ms -> ms == 500));
  }

  @Test
  public void aPolicyThatFailsIsTriedAgainNextRound() throws Exception {
    int[] attempts = {0};
    WatchLoop loop = new WatchLoop(monitor(source()), 1, 3, (c, now) -> {
      if (attempts[0]++ == 0) {
        throw new IOException("table is being altered");
      }
    }, ms -> { });
    WatchLoop.Result r = loop.run(6, o -> { });
    assertEquals(2, attempts[0]);
    assertEquals(List.of("BL"), r.applied());
    assertEquals(1, r.failures().size());
    assertTrue(r.failures().get(0).contains("applying BL"));
  }

  @Test
  public void tooManyFailedRoundsInARowStopTheLoop() throws Exception {
    WatchLoop loop = new WatchLoop(monitor(source(0, 1, 2, 3, 4, 5, 6, 7, 8, 9)), 1, 4,
      (c, now) -> { }, ms -> { });
    WatchLoop.Result r = loop.run(100, o -> { });
    assertTrue(r.gaveUp());
    assertEquals(4, r.failures().size());
  }
}
