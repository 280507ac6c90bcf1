package io.strata.hbase.rdma;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Lets one log line of a kind through per interval and counts the ones it held back, so that a
 * flood of bad requests (a peer retrying a refused connection in a loop) cannot fill the log:
 * the next line that goes out says how many were suppressed. Thread-safe, lock-free.
 */
public final class RateLimitedLog {
  private final long intervalNanos;
  private final LongSupplier nanoClock;
  private final AtomicLong nextNanos;
  private final AtomicLong suppressed = new AtomicLong();

  public RateLimitedLog(long interval, TimeUnit unit) {
    this(interval, unit, System::nanoTime);
  }

  RateLimitedLog(long interval, TimeUnit unit, LongSupplier nanoClock) {
    this.intervalNanos = unit.toNanos(interval);
    this.nanoClock = nanoClock;
    this.nextNanos = new AtomicLong(nanoClock.getAsLong());
  }

  /**
   * -1 when this line is to be held back (counted), else the number held back since the last
   * line that went out (0 or more): the caller logs then.
   */
  public long tryLog() {
    long now = nanoClock.getAsLong();
    long next = nextNanos.get();
    if (now - next >= 0 && nextNanos.compareAndSet(next, now + intervalNanos)) {
      return suppressed.getAndSet(0);
    }
    suppressed.incrementAndGet();
    return -1;
  }
}
