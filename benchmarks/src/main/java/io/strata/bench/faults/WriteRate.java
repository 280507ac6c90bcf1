package io.strata.bench.faults;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The load's bound on writes per second, shared by every writer thread: each write (a row of a
 * batch counts as one) reserves the next free slot of an even schedule, and its thread waits
 * for that slot. Without it the writers write as fast as the cluster takes it, and the cluster's
 * disk and the ledger in memory grow with the run until one of them is full. {@code 0}: no
 * bound. Thread-safe.
 */
final class WriteRate {
  private final int perS;
  /** Nanoseconds one write takes of the schedule, 0 without a bound. */
  private final long intervalNanos;
  /** When the next write may start, in {@link System#nanoTime()}. */
  private final AtomicLong next = new AtomicLong(System.nanoTime());

  WriteRate(int perS) {
    if (perS < 0) {
      throw new IllegalArgumentException("writes per second " + perS + " must be 0 (no bound) "
        + "or more");
    }
    this.perS = perS;
    this.intervalNanos = perS == 0 ? 0 : TimeUnit.SECONDS.toNanos(1) / perS;
  }

  int perS() {
    return perS;
  }

  /**
   * Waits until {@code writes} more writes fit the bound. A slot not used (the thread was slow)
   * is not saved up: no burst after a fault stalled the writers.
   */
  void acquire(int writes) throws InterruptedException {
    if (intervalNanos == 0) {
      return;
    }
    long cost = intervalNanos * writes;
    long now = System.nanoTime();
    long start = next.getAndAccumulate(now, (prev, t) -> Math.max(prev, t) + cost);
    long wait = start - now;
    if (wait > 0) {
      TimeUnit.NANOSECONDS.sleep(wait);
    }
  }

  /** What the bound means, for the log at start. */
  String describe(int threads, int valueBytes) {
    if (perS == 0) {
      return "no bound on writes (--max-writes-per-s 0): " + threads + " writer threads write "
        + "as fast as the cluster takes it; the cluster's disk and the ledger in memory grow "
        + "with the run";
    }
    double mbPerS = perS * (double) valueBytes / (1 << 20);
    return String.format(java.util.Locale.ROOT, "at most %d writes/s across %d writer threads "
      + "(--max-writes-per-s, default %d; 0 = no bound): %.1f MB/s of %d-byte values, about "
      + "%.1f GB an hour before replication, compactions and WALs", perS, threads,
      ChaosCommand.DEFAULT_MAX_WRITES_PER_S, mbPerS, valueBytes, mbPerS * 3600 / 1024);
  }
}
