package io.strata.hdfs.tiermover;

import io.strata.metrics.Latencies;
import java.util.Objects;

/**
 * The most recent lags (ms), for percentiles that follow the current behaviour (through
 * {@link Latencies}, to within 0.1 %). Thread-safe:
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
    Latencies recent = new Latencies();
    for (int i = 0; i < n; i++) {
      recent.record(ring[i]);
    }
    return new Snapshot(count, recent.percentile(50), recent.percentile(99), max);
  }

  /** Count, p50 and p99 of the recent samples, and the maximum ever seen. */
  public static final class Snapshot {
    private final long count;
    private final long p50;
    private final long p99;
    private final long max;

    public Snapshot(long count, long p50, long p99, long max) {
      this.count = count;
      this.p50 = p50;
      this.p99 = p99;
      this.max = max;
    }

    public long count() {
      return count;
    }

    public long p50() {
      return p50;
    }

    public long p99() {
      return p99;
    }

    public long max() {
      return max;
    }

    @Override
    public boolean equals(Object other) {
      if (this == other) {
        return true;
      }
      if (!(other instanceof Snapshot)) {
        return false;
      }
      Snapshot o = (Snapshot) other;
      return count == o.count
        && p50 == o.p50
        && p99 == o.p99
        && max == o.max;
    }

    @Override
    public int hashCode() {
      return Objects.hash(count, p50, p99, max);
    }

    @Override
    public String toString() {
      return "Snapshot[count=" + count + ", p50=" + p50 + ", p99=" + p99 + ", max=" + max + "]";
    }
  }
}
