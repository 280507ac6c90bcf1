package io.strata.pcm;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import org.apache.hadoop.conf.Configuration;
import org.junit.Test;

/** Defaults, and bad values refused naming the key. */
public class PcmKeysTest {
  private static void assertRefused(String key, String value, Runnable read) {
    try {
      read.run();
      fail(key + "=" + value + " accepted");
    } catch (IllegalArgumentException e) {
      assertTrue(e.getMessage(), e.getMessage().contains(key));
    }
  }

  @Test
  public void defaults() {
    Configuration c = new Configuration(false);
    assertNull(PcmKeys.policyDir(c));
    assertEquals(10_000, PcmKeys.intervalMs(c));
    assertEquals(6, PcmKeys.windowSamples(c));
    assertEquals(3, PcmKeys.stableWindows(c));
    assertEquals(1.0, PcmKeys.minOpsPerSec(c), 0);
    assertEquals(0.01, PcmKeys.onlyTolerance(c), 0);
    assertEquals(0, PcmKeys.nodeRamBytes(c));
    assertTrue(PcmKeys.jmxEnabled(c));
    assertEquals(5000, PcmKeys.jmxTimeoutMs(c));
    assertEquals(32, PcmKeys.insertSampleEvery(c));
    assertEquals(20, PcmKeys.insertMinSamples(c));
    assertEquals(0.04, PcmKeys.heapTunerStep(c), 0);
  }

  @Test
  public void badValuesAreRefused() {
    Configuration c = new Configuration(false);
    c.set(PcmKeys.INTERVAL_MS, "5");
    assertRefused(PcmKeys.INTERVAL_MS, "5", () -> PcmKeys.intervalMs(c));
    c.set(PcmKeys.WINDOW_SAMPLES, "1");
    assertRefused(PcmKeys.WINDOW_SAMPLES, "1", () -> PcmKeys.windowSamples(c));
    c.set(PcmKeys.STABLE_WINDOWS, "three");
    assertRefused(PcmKeys.STABLE_WINDOWS, "three", () -> PcmKeys.stableWindows(c));
    c.set(PcmKeys.MIN_OPS_PER_SEC, "-1");
    assertRefused(PcmKeys.MIN_OPS_PER_SEC, "-1", () -> PcmKeys.minOpsPerSec(c));
    c.set(PcmKeys.ONLY_TOLERANCE, "0.2");
    assertRefused(PcmKeys.ONLY_TOLERANCE, "0.2", () -> PcmKeys.onlyTolerance(c));
    c.set(PcmKeys.NODE_RAM_BYTES, "8g");
    assertRefused(PcmKeys.NODE_RAM_BYTES, "8g", () -> PcmKeys.nodeRamBytes(c));
    c.set(PcmKeys.JMX_ENABLED, "yes");
    assertRefused(PcmKeys.JMX_ENABLED, "yes", () -> PcmKeys.jmxEnabled(c));
    c.set(PcmKeys.JMX_TIMEOUT_MS, "0");
    assertRefused(PcmKeys.JMX_TIMEOUT_MS, "0", () -> PcmKeys.jmxTimeoutMs(c));
    c.set(PcmKeys.INSERT_SAMPLE_EVERY, "0");
    assertRefused(PcmKeys.INSERT_SAMPLE_EVERY, "0", () -> PcmKeys.insertSampleEvery(c));
    c.set(PcmKeys.INSERT_MIN_SAMPLES, "-3");
    assertRefused(PcmKeys.INSERT_MIN_SAMPLES, "-3", () -> PcmKeys.insertMinSamples(c));
    c.set(PcmKeys.HEAP_TUNER_STEP, "0");
    assertRefused(PcmKeys.HEAP_TUNER_STEP, "0", () -> PcmKeys.heapTunerStep(c));
    c.set(PcmKeys.HEAP_TUNER_STEP, "0.6");
    assertRefused(PcmKeys.HEAP_TUNER_STEP, "0.6", () -> PcmKeys.heapTunerStep(c));
  }
}
