package io.strata.bench.pcm;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.concurrent.ThreadLocalRandom;
import org.junit.Test;

public class KeyDistributionTest {
  private static final int N = 10_000;
  private static final int PICKS = 100_000;

  private static long[] counts(KeyDistribution d) {
    LoadDriver.KeySpace keys = new LoadDriver.KeySpace();
    for (int i = 0; i < N; i++) {
      keys.claim(0);
    }
    KeyDistribution.Chooser c = d.over(keys);
    long[] counts = new long[N];
    for (int i = 0; i < PICKS; i++) {
      long k = c.next(ThreadLocalRandom.current());
      assertTrue(d + " picked " + k, k >= 0 && k < N);
      counts[(int) k]++;
    }
    return counts;
  }

  /** The share of the picks that went to the most picked 1 % of the records. */
  private static double topShare(long[] counts) {
    long[] sorted = counts.clone();
    java.util.Arrays.sort(sorted);
    long top = 0;
    for (int i = sorted.length - N / 100; i < sorted.length; i++) {
      top += sorted[i];
    }
    return top / (double) PICKS;
  }

  @Test
  public void aBulkLoadNeverCountsARecordPastItsLimit() {
    LoadDriver.KeySpace keys = new LoadDriver.KeySpace();
    assertEquals(0, keys.claim(2));
    assertEquals(1, keys.claim(2));
    // At the limit: the number is returned, not taken, however many threads ask.
    assertEquals(2, keys.claim(2));
    assertEquals(2, keys.claim(2));
    assertEquals(2, keys.inserted());
    assertEquals(2, keys.claim(0));
    assertEquals(3, keys.inserted());
  }

  @Test
  public void uniformIsFlatAndTheSkewedOnesAreNot() {
    double uniform = topShare(counts(KeyDistribution.UNIFORM));
    double zipfian = topShare(counts(KeyDistribution.ZIPFIAN));
    double latest = topShare(counts(KeyDistribution.LATEST));
    String shares = "top 1 % of the records: uniform " + uniform + ", zipfian " + zipfian
      + ", latest " + latest;
    assertTrue(shares, uniform < 0.05);
    assertTrue(shares, zipfian > 3 * uniform);
    assertTrue(shares, latest > 3 * uniform);
  }

  @Test
  public void latestFavoursTheNewestRecordsAndZipfianScattersItsHotOnes() {
    long[] latest = counts(KeyDistribution.LATEST);
    long newest = 0;
    for (int i = N - N / 100; i < N; i++) {
      newest += latest[i];
    }
    assertTrue("newest 1 % got " + newest, newest > PICKS / 4);
    long[] zipf = counts(KeyDistribution.ZIPFIAN);
    long firstHundred = 0;
    for (int i = 0; i < N / 100; i++) {
      firstHundred += zipf[i];
    }
    // Scrambled: the hot records are not the first ones.
    assertTrue("first 1 % got " + firstHundred, firstHundred < PICKS / 10);
    assertEquals("latest", KeyDistribution.LATEST.label());
  }
}
