package io.strata.hdfs.tiermover;

import io.strata.metrics.Percentiles;

/** The most recent lags (ms), for percentiles that follow the current behaviour. */
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
  public static final class Snapshot {
    public final long count;
    public final long p50;
    public final long p99;
    public final long max;

    Snapshot(long count, long p50, long p99, long max) {
      this.count = count;
      this.p50 = p50;
      this.p99 = p99;
      this.max = max;
    }
  }
}
