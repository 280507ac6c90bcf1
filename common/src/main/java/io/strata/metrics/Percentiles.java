package io.strata.metrics;

import java.util.Arrays;

/**
 * Nearest-rank percentiles of recorded samples, shared by Strata's reports. Stateless: safe from
 * any thread.
 */
public final class Percentiles {
  private Percentiles() {
  }

  /** The {@code p}-th percentile (0..100) of the first {@code count} samples; 0 when empty. */
  public static long nearestRank(long[] samples, int count, double p) {
    if (count == 0) {
      return 0;
    }
    long[] sorted = Arrays.copyOf(samples, count);
    Arrays.sort(sorted);
    int rank = (int) Math.ceil(p / 100.0 * count);
    return sorted[Math.max(0, Math.min(count - 1, rank - 1))];
  }
}
