package io.strata.bench.dnlocks;

import io.strata.metrics.Latencies;

/**
 * Wait and exec times of one kind of dataset operation (e.g. createRbw on the fast volume), in
 * nanoseconds, from all the threads that run it.
 */
final class OpSamples {
  private final Latencies waits = new Latencies();
  private final Latencies execs = new Latencies();

  synchronized void add(long waitNanos, long execNanos) {
    waits.record(waitNanos);
    execs.record(execNanos);
  }

  synchronized long count() {
    return waits.count();
  }

  /** The wait times, merged into {@code into}. */
  synchronized void addWaitsTo(Latencies into) {
    into.add(waits);
  }

  /** Percentiles and maxima in milliseconds; all 0 when the operation never ran. */
  synchronized DnLocksResult.Op summary() {
    return new DnLocksResult.Op((int) waits.count(), ms(waits.percentile(50)),
      ms(waits.percentile(99)), ms(waits.max()), ms(execs.percentile(50)), ms(execs.percentile(99)), ms(execs.max()));
  }

  static double ms(long nanos) {
    return nanos / 1e6;
  }
}
