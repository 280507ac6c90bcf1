package io.strata.bench.compare;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The arithmetic of {@code strata bench compare}, apart from any cluster: the order the
 * configurations run in each repetition, the median and spread of repeated runs, and the ratios
 * of two configurations' medians.
 */
final class CompareStats {
  private CompareStats() {
  }

  /**
   * The configurations in repetition {@code rep}'s order (0-based): {@code configs} rotated left
   * by {@code rep}, so that over as many repetitions as there are configurations each runs once
   * first, once second and once last (whatever the machine does early or late in a run falls on
   * each alike).
   */
  static <T> List<T> order(List<T> configs, int rep) {
    if (rep < 0) {
      throw new IllegalArgumentException("A repetition is numbered from 0, not " + rep);
    }
    List<T> order = new ArrayList<>(configs);
    if (!order.isEmpty()) {
      Collections.rotate(order, -(rep % order.size()));
    }
    return order;
  }

  /**
   * The median of {@code values}: the middle value of an odd count, the mean of the two middle
   * ones of an even count.
   *
   * @throws IllegalArgumentException when there is no value
   */
  static double median(List<? extends Number> values) {
    if (values.isEmpty()) {
      throw new IllegalArgumentException("The median of no runs is undefined");
    }
    List<Double> sorted = sorted(values);
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  /**
   * The spread of {@code values} about their median, {@code (max - min) / median}: 0 when every
   * run gave the same figure; 0 for a median of 0 (nothing to compare with).
   */
  static double spread(List<? extends Number> values) {
    double median = median(values);
    List<Double> sorted = sorted(values);
    double range = sorted.get(sorted.size() - 1) - sorted.get(0);
    return median == 0 ? 0 : range / median;
  }

  /** The least and greatest of {@code values}. */
  static double[] range(List<? extends Number> values) {
    List<Double> sorted = sorted(values);
    if (sorted.isEmpty()) {
      throw new IllegalArgumentException("The range of no runs is undefined");
    }
    return new double[] { sorted.get(0), sorted.get(sorted.size() - 1) };
  }

  /**
   * {@code a / b} rounded to 3 decimals.
   *
   * @throws IllegalArgumentException naming {@code what} when {@code b} is 0 or either is NaN: a
   *   ratio to a configuration that measured nothing says nothing
   */
  static double ratio(String what, double a, double b) {
    if (b == 0 || Double.isNaN(a) || Double.isNaN(b)) {
      throw new IllegalArgumentException("No ratio for " + what + ": " + a + " / " + b);
    }
    return round(a / b, 3);
  }

  static double round(double v, int decimals) {
    double scale = Math.pow(10, decimals);
    return Math.round(v * scale) / scale;
  }

  private static List<Double> sorted(List<? extends Number> values) {
    List<Double> sorted = new ArrayList<>(values.size());
    for (Number v : values) {
      sorted.add(v.doubleValue());
    }
    Collections.sort(sorted);
    return sorted;
  }
}
