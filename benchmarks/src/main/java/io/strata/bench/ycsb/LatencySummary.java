package io.strata.bench.ycsb;

import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * Count, mean, the percentiles Strata's YCSB reports quote (50, 99, 99.9, 99.99) and the maximum
 * of one latency distribution, in the unit it was recorded in.
 */
public record LatencySummary(long count, double mean, long p50, long p99, long p999, long p9999,
  long max) {

  public static LatencySummary of(Histogram h) {
    if (h.getTotalCount() == 0) {
      return new LatencySummary(0, 0, 0, 0, 0, 0, 0);
    }
    return new LatencySummary(h.getTotalCount(), h.getMean(), h.getValueAtPercentile(50),
      h.getValueAtPercentile(99), h.getValueAtPercentile(99.9), h.getValueAtPercentile(99.99),
      h.getMaxValue());
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "n=%d p50 %d p99 %d p99.9 %d p99.99 %d max %d", count, p50,
      p99, p999, p9999, max);
  }
}
