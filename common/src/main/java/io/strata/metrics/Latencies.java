package io.strata.metrics;

import org.HdrHistogram.Histogram;

/**
 * Recorded latencies (any one unit: the caller's) and their percentiles, through an HdrHistogram
 * with {@value #SIGNIFICANT_DIGITS} significant digits: a percentile is the nearest-rank sample's
 * value to within 0.1 % (HdrHistogram reports the top of the sample's bucket), the precision of
 * every other latency the benches report (YCSB, write-tail, WAL sync). The maximum, the minimum
 * and the mean are exact, and no percentile is reported above the exact maximum. Memory does not
 * grow with the samples. Not thread-safe: one per thread, {@link #add}ed together, or guarded by
 * the caller.
 */
public final class Latencies {
  public static final int SIGNIFICANT_DIGITS = 3;

  private final Histogram histogram = new Histogram(SIGNIFICANT_DIGITS);
  private long max;
  private long min = Long.MAX_VALUE;
  private double sum;

  /** Records one latency; negative ones (a clock stepped back) count as 0. */
  public void record(long value) {
    long v = Math.max(0, value);
    histogram.recordValue(v);
    max = Math.max(max, v);
    min = Math.min(min, v);
    sum += v;
  }

  /** Adds another's latencies to these. */
  public void add(Latencies other) {
    histogram.add(other.histogram);
    max = Math.max(max, other.max);
    min = Math.min(min, other.min);
    sum += other.sum;
  }

  public long count() {
    return histogram.getTotalCount();
  }

  /**
   * The {@code p}-th percentile (0..100) by nearest rank, to within 0.1 %; 100 is the exact
   * maximum; 0 when nothing was recorded.
   */
  public long percentile(double p) {
    if (count() == 0) {
      return 0;
    }
    if (p >= 100) {
      return max;
    }
    return Math.max(min, Math.min(max, histogram.getValueAtPercentile(p)));
  }

  public long max() {
    return max;
  }

  /** The exact mean; 0 when nothing was recorded. */
  public double mean() {
    return count() == 0 ? 0 : sum / count();
  }
}
