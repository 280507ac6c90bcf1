package io.strata.bench.dnlocks;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;

import org.junit.Test;

public class DnLocksBenchTest {
  @Test
  public void aVariantsLoadLinesMarkItsPhases() {
    assertEquals("strata heavy", VariantJvm.phaseOf("strata", "strata: heavy load (2 DISK "
      + "writers, 4 RAM writers, 1 transfers into RAM) for 3 s, DISK slowed by 1000 ms per I/O "
      + "operation"));
    assertEquals("upstream light", VariantJvm.phaseOf("upstream", "upstream: light load (1 "
      + "DISK writers, 1 RAM writers, 0 transfers into RAM) for 3 s"));
    assertNull(VariantJvm.phaseOf("strata", "upstream: light load (1 DISK writers)"));
    assertNull(VariantJvm.phaseOf("strata", "strata: RAM volume in /dev/shm/x (tmpfs)"));
    assertNull(VariantJvm.phaseOf("strata", "  3 s: 120 RAM blocks written"));
    assertNull(VariantJvm.phaseOf("strata", "strata: the heavy load (failed)"));
  }
}
