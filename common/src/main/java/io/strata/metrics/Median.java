package io.strata.metrics;

import java.util.Arrays;

/**
 * The exact median of a few figures of repeated runs or rounds (a paired ratio per round, a
 * scan's time per repetition): the middle one, or the mean of the two middle ones. Not a latency
 * percentile ({@link Latencies}), whose 0.1 % buckets would blur a ratio's last digit. Stateless.
 */
public final class Median {
  private Median() {
  }

  /** The median; {@code NaN} when there is no figure. */
  public static double of(double... figures) {
    if (figures.length == 0) {
      return Double.NaN;
    }
    double[] sorted = figures.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }
}
