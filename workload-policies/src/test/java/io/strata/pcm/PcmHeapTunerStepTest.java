package io.strata.pcm;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

/** The tuner's step arithmetic: bounded steps toward the target, within the heap left free. */
public class PcmHeapTunerStepTest {
  private static final float D = 1e-6f;

  @Test
  public void eachShareMovesAtMostOneStepTowardItsTarget() {
    float[] s = PcmHeapTuner.step(0.4f, 0.4f, 0.6f, 0.1f, 0.04f, 0.8f);
    assertEquals(0.44f, s[0], D);
    assertEquals(0.36f, s[1], D);
    // Within a step of the target: the target itself.
    s = PcmHeapTuner.step(0.58f, 0.12f, 0.6f, 0.1f, 0.04f, 0.8f);
    assertEquals(0.6f, s[0], D);
    assertEquals(0.1f, s[1], D);
  }

  @Test
  public void theGrowingShareWaitsForRoomInTheHeap() {
    // 0.5 + 0.3 is the most (0.8): the memstore may grow only as the block cache shrinks.
    float[] s = PcmHeapTuner.step(0.5f, 0.3f, 0.6f, 0.28f, 0.1f, 0.8f);
    assertEquals(0.28f, s[1], D);
    assertTrue(s[0] + s[1] <= 0.8001f);
    assertTrue(s[0] > 0.5f && s[0] <= 0.52f + 1e-6f);
    // Both growing past the limit: neither shrinks below where it was.
    s = PcmHeapTuner.step(0.4f, 0.4f, 0.6f, 0.6f, 0.1f, 0.8f);
    assertEquals(0.4f, s[0], D);
    assertEquals(0.4f, s[1], D);
  }
}
