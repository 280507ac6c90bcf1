package io.strata.bench.ycsb;

import com.fasterxml.jackson.databind.node.ObjectNode;
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

  /** Fields {@code count, mean, p50, p99, p99_9, p99_99, max}. */
  public void toJson(ObjectNode node) {
    node.put("count", count);
    node.put("mean", Math.round(mean * 10) / 10.0);
    node.put("p50", p50);
    node.put("p99", p99);
    node.put("p99_9", p999);
    node.put("p99_99", p9999);
    node.put("max", max);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "n=%d p50 %d p99 %d p99.9 %d p99.99 %d max %d", count, p50,
      p99, p999, p9999, max);
  }
}
