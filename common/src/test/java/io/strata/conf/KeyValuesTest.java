package io.strata.conf;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

public class KeyValuesTest {
  @Test
  public void unsetIsTheDefault() {
    assertEquals(7, KeyValues.whole("k", null, 7));
    assertEquals(7, KeyValues.whole("k", "", 7));
    assertEquals(0.5, KeyValues.finite("k", null, 0.5), 0);
    assertTrue(KeyValues.bool("k", null, true));
  }

  @Test
  public void valuesAreRead() {
    assertEquals(-3, KeyValues.whole("k", " -3 ", 7));
    assertEquals(2.5, KeyValues.finite("k", "2.5", 0), 0);
    assertTrue(KeyValues.bool("k", "TRUE", false));
    assertEquals(5, KeyValues.within("k", 5, 1, Long.MAX_VALUE));
  }

  @Test
  public void badValuesNameTheKeyAndTheValue() {
    for (Runnable r : new Runnable[] { () -> KeyValues.whole("strata.x", "twelve", 1),
      () -> KeyValues.finite("strata.x", "NaN", 1), () -> KeyValues.bool("strata.x", "yes", true),
      () -> KeyValues.within("strata.x", 0, 1, Long.MAX_VALUE),
      () -> KeyValues.within("strata.x", 2.0, 0, 1) }) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, r::run);
      assertTrue(e.getMessage(), e.getMessage().startsWith("strata.x must be"));
    }
    assertEquals("strata.x must be positive, not 0", assertThrows(IllegalArgumentException.class,
      () -> KeyValues.within("strata.x", 0, 1, Long.MAX_VALUE)).getMessage());
  }
}
