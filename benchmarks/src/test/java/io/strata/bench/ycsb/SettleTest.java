package io.strata.bench.ycsb;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.junit.Test;

/** The settle wait's decisions on scripted server activity (pure logic). */
public class SettleTest {
  private static ActivitySnapshot gauges(int flushQueue, int compactionQueue, int running,
    int storeFiles) {
    return new ActivitySnapshot(0, 0, 0, 0, 0, 0, flushQueue, compactionQueue, running,
      storeFiles, 4);
  }

  /** Returns the scripted snapshots one per call, then the last one forever. */
  private static ServerActivity script(List<ActivitySnapshot> snapshots) {
    Deque<ActivitySnapshot> q = new ArrayDeque<>(snapshots);
    return () -> q.size() > 1 ? q.poll() : q.peek();
  }

  @Test
  public void waitsForQueuesRunningCompactionsAndStoreFileChanges() throws Exception {
    ServerActivity servers = script(List.of(gauges(1, 0, 0, 8), gauges(1, 0, 0, 9),
      gauges(0, 2, 0, 9), gauges(0, 0, 1, 9), gauges(0, 0, 0, 6), gauges(3, 0, 0, 6)));
    Settle.Outcome o = Settle.untilQuiet(Duration.ofMillis(100), Duration.ofSeconds(30),
      Duration.ofMillis(10)).await(servers);
    assertTrue(o.settled());
    assertFalse(o.fallback());
    assertEquals(6, o.last().storeFiles());
    // a (delayed) flush in the queue alone does not hold the wait: it changes no store file
    assertEquals(3, o.last().flushQueue());
    // 5 polls busy or changing, then 100 ms quiet
    assertTrue(o.waited().toString(), o.waited().toMillis() >= 140);
  }

  @Test
  public void boundedWaitFallsBackToAFixedQuietPeriod() throws Exception {
    int[] files = {0};
    ServerActivity neverQuiet = () -> gauges(0, 0, 0, ++files[0]);
    long t0 = System.nanoTime();
    Settle.Outcome o = Settle.untilQuiet(Duration.ofMillis(200), Duration.ofMillis(300),
      Duration.ofMillis(10)).await(neverQuiet);
    long ms = (System.nanoTime() - t0) / 1_000_000;
    assertFalse(o.settled());
    assertTrue(o.fallback());
    assertTrue("bound then the quiet period: " + ms, ms >= 500 && ms < 5_000);
  }

  @Test
  public void fixedWaitIgnoresTheServers() throws Exception {
    Settle.Outcome o = Settle.fixed(Duration.ofMillis(50)).await(() -> gauges(3, 3, 3, 1));
    assertEquals("fixed", o.mode());
    assertFalse(o.settled());
    assertFalse(o.fallback());
    assertTrue(o.waited().toMillis() >= 50);
  }

  @Test
  public void activityCountersAreDifferencesAndGaugesAreCurrent() {
    ActivitySnapshot before = new ActivitySnapshot(5, 500, 2, 1, 1000, 900, 1, 1, 1, 10, 4);
    ActivitySnapshot after = new ActivitySnapshot(9, 900, 3, 1, 1500, 1300, 0, 0, 0, 7, 6);
    assertEquals(new ActivitySnapshot(4, 400, 1, 0, 500, 400, 0, 0, 0, 7, 6),
      after.since(before));
  }
}
