package io.strata.pcm;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;

import java.util.Optional;
import org.junit.Test;

/** A class counts only after it held for the required consecutive windows. */
public class HysteresisTest {
  private static Optional<WorkloadClass> o(WorkloadClass c) {
    return Optional.ofNullable(c);
  }

  @Test
  public void aClassCountsAfterTheRequiredRun() {
    Hysteresis h = new Hysteresis(3);
    assertEquals(Optional.empty(), h.offer(o(WorkloadClass.BL)));
    assertEquals(Optional.empty(), h.offer(o(WorkloadClass.BL)));
    assertNull(h.stable());
    assertEquals(Optional.of(WorkloadClass.BL), h.offer(o(WorkloadClass.BL)));
    assertEquals(WorkloadClass.BL, h.stable());
    // Holding on reports no further change.
    assertEquals(Optional.empty(), h.offer(o(WorkloadClass.BL)));
  }

  @Test
  public void aBurstDoesNotFlipTheClass() {
    Hysteresis h = new Hysteresis(3);
    for (int i = 0; i < 3; i++) {
      h.offer(o(WorkloadClass.RO_READ));
    }
    h.offer(o(WorkloadClass.MIX_W));
    h.offer(o(WorkloadClass.MIX_W));
    assertEquals(Optional.empty(), h.offer(o(WorkloadClass.RO_READ)));
    h.offer(o(WorkloadClass.MIX_W));
    assertEquals(WorkloadClass.RO_READ, h.stable());
    h.offer(o(WorkloadClass.MIX_W));
    assertEquals(Optional.of(WorkloadClass.MIX_W), h.offer(o(WorkloadClass.MIX_W)));
  }

  @Test
  public void idleBreaksARunButKeepsTheStableClass() {
    Hysteresis h = new Hysteresis(2);
    h.offer(o(WorkloadClass.WM));
    h.offer(o(WorkloadClass.WM));
    h.offer(o(WorkloadClass.RM));
    h.offer(o(null));
    assertEquals(Optional.empty(), h.offer(o(WorkloadClass.RM)));
    assertEquals(WorkloadClass.WM, h.stable());
    assertEquals(Optional.of(WorkloadClass.RM), h.offer(o(WorkloadClass.RM)));
  }

  @Test
  public void oneWindowIsImmediate() {
    Hysteresis h = new Hysteresis(1);
    assertEquals(Optional.of(WorkloadClass.RM), h.offer(o(WorkloadClass.RM)));
  }

  @Test(expected = IllegalArgumentException.class)
  public void zeroWindowsIsRefused() {
    new Hysteresis(0);
  }
}
