package io.strata.hdfs.tiermover;

import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

/** The tier mover's "lag keeps growing" rule (pure logic). */
public class LagTrendTest {
  @Test
  public void growingAtEachOfTheLastSamplesAPeriodApart() {
    TierMoverMetrics.LagTrend t = new TierMoverMetrics.LagTrend(30_000, 3);
    assertFalse(t.add(0, 10));
    assertFalse(t.add(30_000, 20));
    assertFalse("samples closer than the period are not taken", t.add(31_000, 1));
    assertFalse(t.add(60_000, 30));
    assertTrue("grew at each of 3 samples", t.add(90_000, 40));
    assertTrue("between samples the verdict stays", t.add(95_000, 0));
    assertFalse("it fell: not growing", t.add(120_000, 35));
    assertFalse(t.add(150_000, 36));
    assertFalse(t.add(180_000, 37));
    assertTrue(t.add(210_000, 38));
    assertFalse("caught up (0 behind)", t.add(240_000, 0));
  }

  @Test
  public void unknownOrFlatIsNotGrowing() {
    TierMoverMetrics.LagTrend t = new TierMoverMetrics.LagTrend(1, 3);
    for (int i = 0; i < 10; i++) {
      assertFalse(t.add(i * 10, -1));
    }
    for (int i = 10; i < 20; i++) {
      assertFalse(t.add(i * 10, 5));
    }
  }
}
