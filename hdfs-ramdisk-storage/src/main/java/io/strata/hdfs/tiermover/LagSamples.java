package io.strata.hdfs.tiermover;

import io.strata.metrics.Percentiles;

/**
 * The most recent lags (ms), for percentiles that follow the current behaviour. Thread-safe:
 * adding and taking a snapshot synchronize on the instance.
 */
public final class LagSamples {
  private static final int CAPACITY = 100_000;
  private final long[] ring = new long[CAPACITY];
  private long count;
  private long max;

  synchronized void add(long ms) {
    ring[(int) (count++ % CAPACITY)] = ms;
    max = Math.max(max, ms);
  }

  synchronized Snapshot snapshot() {
    int n = (int) Math.min(count, CAPACITY);
    return new Snapshot(count, Percentiles.nearestRank(ring, n, 50),
      Percentiles.nearestRank(ring, n, 99), max);
  }

  /** Count, p50 and p99 of the recent samples, and the maximum ever seen. */
  public record Snapshot(long count, long p50, long p99, long max) {
  }
}
