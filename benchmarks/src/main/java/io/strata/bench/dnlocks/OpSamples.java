package io.strata.bench.dnlocks;

import io.strata.metrics.Percentiles;
import java.util.Arrays;

/**
 * Wait and exec times of one kind of dataset operation (e.g. createRbw on the fast volume), in
 * nanoseconds, from all the threads that run it.
 */
final class OpSamples {
  private long[] waits = new long[1024];
  private long[] execs = new long[1024];
  private int count;

  synchronized void add(long waitNanos, long execNanos) {
    if (count == waits.length) {
      waits = Arrays.copyOf(waits, count * 2);
      execs = Arrays.copyOf(execs, count * 2);
    }
    waits[count] = waitNanos;
    execs[count] = execNanos;
    count++;
  }

  synchronized int count() {
    return count;
  }

  synchronized long[] waits() {
    return Arrays.copyOf(waits, count);
  }

  synchronized Summary summary() {
    return new Summary(count, ms(Percentiles.nearestRank(waits, count, 50)),
      ms(Percentiles.nearestRank(waits, count, 99)), ms(max(waits, count)),
      ms(Percentiles.nearestRank(execs, count, 50)), ms(Percentiles.nearestRank(execs, count, 99)),
      ms(max(execs, count)));
  }

  /** Percentiles and maxima in milliseconds; all 0 when the operation never ran. */
  record Summary(int count, double waitP50Ms, double waitP99Ms, double waitMaxMs,
    double execP50Ms, double execP99Ms, double execMaxMs) {
  }

  static double ms(long nanos) {
    return nanos / 1e6;
  }

  static long max(long[] values, int count) {
    long m = 0;
    for (int i = 0; i < count; i++) {
      m = Math.max(m, values[i]);
    }
    return m;
  }
}
