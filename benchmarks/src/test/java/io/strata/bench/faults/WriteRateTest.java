package io.strata.bench.faults;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.Test;

/**
 * The load's bound on writes per second holds over all writer threads together, batches
 * counted by their rows, and 0 means no bound.
 */
public class WriteRateTest {
  /** Writes {@code threads} threads get through {@code rate} in {@code seconds}. */
  private static long writesIn(WriteRate rate, int threads, double seconds) throws Exception {
    AtomicLong writes = new AtomicLong();
    long until = System.nanoTime() + (long) (seconds * 1e9);
    List<Thread> all = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int id = t;
      Thread th = new Thread(() -> {
        try {
          while (System.nanoTime() < until) {
            // Every second thread writes batches of 10, as the load's batched Puts.
            int n = id % 2 == 0 ? 1 : 10;
            rate.acquire(n);
            writes.addAndGet(n);
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      th.start();
      all.add(th);
    }
    for (Thread th : all) {
      th.join(TimeUnit.SECONDS.toMillis(30));
    }
    return writes.get();
  }

  @Test
  public void theBoundHoldsOverAllThreadsTogether() throws Exception {
    // 8 threads, 500 writes/s between them, 2 s: about 1000, and never the thousands each
    // unbounded thread would do on its own.
    long n = writesIn(new WriteRate(500), 8, 2.0);
    // The last reservation of each thread may start up to one batch late.
    assertTrue("writes in 2 s at 500/s over 8 threads: " + n, n <= 1000 + 8 * 10);
    assertTrue("writes in 2 s at 500/s over 8 threads: " + n, n >= 800);
  }

  @Test
  public void zeroIsNoBound() throws Exception {
    long n = writesIn(new WriteRate(0), 2, 0.5);
    assertTrue("writes in 0.5 s without a bound: " + n, n > 10_000);
  }

  @Test
  public void aNegativeRateIsRefused() {
    try {
      new WriteRate(-1);
      throw new AssertionError("-1 accepted");
    } catch (IllegalArgumentException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("-1"));
    }
  }

  @Test
  public void theLogSaysWhatTheBoundMeans() {
    String d = new WriteRate(2000).describe(4, 512);
    assertTrue(d, d.contains("at most 2000 writes/s across 4 writer threads"));
    assertTrue(d, d.contains("0 = no bound"));
    assertEquals(0, new WriteRate(0).perS());
    assertTrue(new WriteRate(0).describe(4, 512).contains("no bound"));
  }
}
