package io.strata.hdfs.chooser;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

public class SlowVolumeRuleTest {
  private static final double NAN = Double.NaN;
  private final SlowVolumeRule rule = new SlowVolumeRule(5, 10);

  private boolean[] slow(double[] ms, boolean... wasSlow) {
    if (wasSlow.length == 0) {
      wasSlow = new boolean[ms.length];
    }
    SlowVolumeRule.Verdict[] v = rule.judge(ms, ms, wasSlow);
    boolean[] out = new boolean[v.length];
    for (int i = 0; i < v.length; i++) {
      out[i] = v[i].slow();
    }
    return out;
  }

  @Test
  public void oneSlowVolumeAmongFourIsSlowAndTheOthersAreNot() {
    assertArrayEquals(new boolean[] { false, true, false, false },
      slow(new double[] { 2, 200, 3, 2.5 }));
  }

  @Test
  public void twoVolumesSuffice() {
    assertArrayEquals(new boolean[] { true, false }, slow(new double[] { 150, 2 }));
    assertArrayEquals(new boolean[] { false, false }, slow(new double[] { 8, 2 }));
  }

  @Test
  public void theYardstickIsTheMedianOfTheOtherVolumes() {
    SlowVolumeRule.Verdict[] v = rule.judge(new double[] { 200, 2, 4, 3 },
      new double[] { 200, 2, 4, 3 }, new boolean[4]);
    assertEquals(3, v[0].peerMedianMs(), 0);
    assertEquals(3, v[0].peers());
    assertEquals(15, v[0].limitMs(), 0);
    assertEquals("200 is one of its others", 4, v[1].peerMedianMs(), 0);
  }

  @Test
  public void nothingBelowTheFloorIsSlowHoweverFastThePeers() {
    assertArrayEquals(new boolean[4], slow(new double[] { 9.9, 0.05, 0.04, 0.05 }));
    assertArrayEquals(new boolean[] { true, false, false, false },
      slow(new double[] { 10.5, 0.05, 0.04, 0.05 }));
  }

  @Test
  public void aMajorityOfSlowVolumesIsTheNormAndNoneIsExcluded() {
    assertArrayEquals(new boolean[4], slow(new double[] { 200, 210, 190, 2 }));
  }

  @Test
  public void twoSlowVolumesAmongFourAreBothSlow() {
    assertArrayEquals(new boolean[] { true, true, false, false },
      slow(new double[] { 200, 210, 2, 3 }));
  }

  @Test
  public void unmeasuredVolumesAreNeitherSlowNorPeers() {
    assertArrayEquals(new boolean[] { false, true, false },
      slow(new double[] { NAN, 200, 2 }));
    SlowVolumeRule.Verdict alone = rule.judge(new double[] { 500, NAN },
      new double[] { 500, NAN }, new boolean[2])[0];
    assertFalse(alone.slow());
    assertEquals(0, alone.peers());
  }

  @Test
  public void aFirstProbeInFlightCountsForItsVolumeButNotAsAYardstick() {
    // Volume 0 is on its first probe (1 ms so far): it must not make the 15 ms volume look slow.
    SlowVolumeRule.Verdict[] v = rule.judge(new double[] { 1, 15 }, new double[] { NAN, 15 },
      new boolean[2]);
    assertFalse(v[1].slow());
    // A first probe hanging for 800 ms makes its own volume slow.
    v = rule.judge(new double[] { 800, 15 }, new double[] { NAN, 15 }, new boolean[2]);
    assertTrue(v[0].slow());
  }

  @Test
  public void aSlowVolumeReturnsOnlyWellBelowTheLimit() {
    double[] ms = { 14, 2, 2, 2 };
    assertTrue(slow(ms)[0]);
    ms[0] = 9;
    assertTrue("9 ms is under the 10 ms limit but above 80% of it", slow(ms, true, false, false,
      false)[0]);
    assertFalse("a volume not slow before is judged by the limit itself", slow(ms)[0]);
    ms[0] = 7.9;
    assertFalse(slow(ms, true, false, false, false)[0]);
  }

  @Test
  public void medianOfEvenAndOddCounts() {
    assertEquals(2.5, SlowVolumeRule.median(new double[] { 4, 1, 3, 2 }, 4), 0);
    assertEquals(3, SlowVolumeRule.median(new double[] { 5, 1, 3 }, 3), 0);
    assertTrue(Double.isNaN(SlowVolumeRule.median(new double[0], 0)));
  }
}
