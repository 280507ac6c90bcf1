package io.strata.metrics;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.Arrays;
import java.util.Random;
import org.junit.Test;

/**
 * Latency percentiles through HdrHistogram: the nearest-rank sample's value to within 0.1 %,
 * never above the exact maximum; and the exact median of repeated runs' figures.
 */
public class LatenciesTest {
  @Test
  public void percentilesAreTheNearestRankSampleToWithinATenthOfAPercent() {
    Random random = new Random(7);
    long[] samples = new long[5001];
    Latencies a = new Latencies();
    Latencies b = new Latencies();
    double sum = 0;
    for (int i = 0; i < samples.length; i++) {
      // From a microsecond to a second of nanoseconds, most near 100 µs: a latency's long tail.
      samples[i] = 1_000 + (long) (100_000 * Math.exp(4 * random.nextGaussian()) % 1e9);
      (i % 2 == 0 ? a : b).record(samples[i]);
      sum += samples[i];
    }
    a.add(b);
    assertEquals(samples.length, a.count());
    for (double p : new double[] { 0, 1, 50, 90, 99, 99.9, 99.99 }) {
      long exact = nearestRank(samples, samples.length, p);
      long got = a.percentile(p);
      assertTrue(p + ": " + got + " for " + exact, got >= exact && got <= exact * 1.001);
    }
    long max = nearestRank(samples, samples.length, 100);
    assertEquals(max, a.percentile(100));
    assertEquals(max, a.max());
    assertEquals(sum / samples.length, a.mean(), 1e-6);
  }

  @Test
  public void noPercentileAboveTheMaximumNorBelowTheMinimum() {
    Latencies l = new Latencies();
    l.record(1_000_001);
    l.record(1_000_003);
    // Both in one HdrHistogram bucket, whose top is above either.
    assertEquals(1_000_003, l.percentile(99));
    assertEquals(1_000_003, l.max());
    assertTrue(l.percentile(50) >= 1_000_001 && l.percentile(50) <= 1_000_003);
    // Small values are exact.
    Latencies small = new Latencies();
    for (long v = 1; v <= 100; v++) {
      small.record(v);
    }
    assertEquals(50, small.percentile(50));
    assertEquals(99, small.percentile(99));
  }

  @Test
  public void nothingRecordedIsZero() {
    Latencies l = new Latencies();
    assertEquals(0, l.count());
    assertEquals(0, l.percentile(99));
    assertEquals(0, l.max());
    assertEquals(0, l.mean(), 0);
  }

  @Test
  public void theMedianOfRunsIsExact() {
    assertEquals(1.25, Median.of(3.0, 1.0, 1.5, 1.0), 0);
    assertEquals(1.001, Median.of(1.001, 0.5, 9.0), 0);
    assertTrue(Double.isNaN(Median.of()));
  }

  /** The exact nearest-rank percentile, the reference the histogram is held to. */
  private static long nearestRank(long[] samples, int count, double p) {
    long[] sorted = Arrays.copyOf(samples, count);
    Arrays.sort(sorted);
    int rank = (int) Math.ceil(p / 100.0 * count);
    return sorted[Math.max(0, Math.min(count - 1, rank - 1))];
  }
}
