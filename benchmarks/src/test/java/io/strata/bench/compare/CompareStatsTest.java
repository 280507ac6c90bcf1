package io.strata.bench.compare;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.Test;

/** The order, medians, spread and ratios of {@code strata bench compare}. */
public class CompareStatsTest {
  private static final List<String> CONFIGS = List.of("stock", "tuned", "strata");

  @Test
  public void orderRotatesSoThatEachConfigurationRunsInEveryPosition() {
    assertEquals(List.of("stock", "tuned", "strata"), CompareStats.order(CONFIGS, 0));
    assertEquals(List.of("tuned", "strata", "stock"), CompareStats.order(CONFIGS, 1));
    assertEquals(List.of("strata", "stock", "tuned"), CompareStats.order(CONFIGS, 2));
    assertEquals(CompareStats.order(CONFIGS, 0), CompareStats.order(CONFIGS, 3));
    for (int position = 0; position < CONFIGS.size(); position++) {
      Set<String> seen = new HashSet<>();
      for (int rep = 0; rep < CONFIGS.size(); rep++) {
        seen.add(CompareStats.order(CONFIGS, rep).get(position));
      }
      assertEquals("position " + position, new HashSet<>(CONFIGS), seen);
    }
    // The list given is left as it was.
    List<String> given = new ArrayList<>(CONFIGS);
    CompareStats.order(given, 1);
    assertEquals(CONFIGS, given);
    assertThrows(IllegalArgumentException.class, () -> CompareStats.order(CONFIGS, -1));
  }

  @Test
  public void medianOfOddAndEvenCounts() {
    assertEquals(20.0, CompareStats.median(List.of(30, 10, 20)), 0);
    assertEquals(15.0, CompareStats.median(List.of(40.0, 10.0, 20.0, 10.0)), 0);
    assertEquals(7.0, CompareStats.median(List.of(7L)), 0);
    // One outlier does not move it.
    assertEquals(101.0, CompareStats.median(List.of(100.0, 101.0, 5000.0)), 0);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
      () -> CompareStats.median(List.of()));
    assertTrue(e.getMessage(), e.getMessage().contains("no runs"));
  }

  @Test
  public void spreadIsTheRangeOverTheMedian() {
    assertEquals(0.0, CompareStats.spread(List.of(5.0, 5.0, 5.0)), 0);
    assertEquals(0.2, CompareStats.spread(List.of(90.0, 100.0, 110.0)), 1e-12);
    assertEquals(0.0, CompareStats.spread(List.of(0.0, 0.0, 0.0)), 0);
    double[] r = CompareStats.range(List.of(3, 1, 2));
    assertEquals(1.0, r[0], 0);
    assertEquals(3.0, r[1], 0);
  }

  @Test
  public void ratioRoundsToThreeDecimalsAndRefusesAZeroDenominator() {
    assertEquals(1.5, CompareStats.ratio("x", 300, 200), 0);
    assertEquals(0.333, CompareStats.ratio("x", 1, 3), 0);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
      () -> CompareStats.ratio("load strata/stock ops_per_s", 10, 0));
    assertTrue(e.getMessage(), e.getMessage().contains("load strata/stock ops_per_s"));
    assertThrows(IllegalArgumentException.class, () -> CompareStats.ratio("x", Double.NaN, 1));
  }
}
