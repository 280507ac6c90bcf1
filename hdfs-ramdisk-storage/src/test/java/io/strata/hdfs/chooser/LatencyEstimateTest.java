package io.strata.hdfs.chooser;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

public class LatencyEstimateTest {
  private static final long MS = 1_000_000L;

  private static void probe(LatencyEstimate e, long startMs, long ms) {
    e.probeStarted(startMs * MS);
    e.probeFinished((startMs + ms) * MS);
  }

  @Test
  public void unknownUntilTheFirstProbe() {
    LatencyEstimate e = new LatencyEstimate(0.5, 1000 * MS);
    assertTrue(Double.isNaN(e.currentMs(0)));
    assertTrue(Double.isNaN(e.peerMs(0)));
  }

  @Test
  public void movingAverageOfFinishedProbes() {
    LatencyEstimate e = new LatencyEstimate(0.5, 1000 * MS);
    probe(e, 0, 200);
    assertEquals(200, e.currentMs(1000 * MS), 1e-9);
    probe(e, 1000, 2);
    assertEquals(101, e.currentMs(2000 * MS), 1e-9);
    probe(e, 2000, 2);
    assertEquals(51.5, e.peerMs(3000 * MS), 1e-9);
    assertEquals(3, e.samples());
  }

  @Test
  public void aProbeOverrunningTheIntervalCountsWithItsElapsedTime() {
    LatencyEstimate e = new LatencyEstimate(0.5, 1000 * MS);
    probe(e, 0, 2);
    e.probeStarted(1000 * MS);
    assertEquals("running briefly: the average", 2, e.currentMs(1001 * MS), 1e-9);
    assertEquals("a pause or one slow sync is left to the average", 2,
      e.currentMs(1900 * MS), 1e-9);
    assertFalse(e.overrunning(1900 * MS));
    assertTrue(e.overrunning(4000 * MS));
    assertEquals("hanging: its elapsed time", 3000, e.currentMs(4000 * MS), 1e-9);
    assertEquals(3000, e.peerMs(4000 * MS), 1e-9);
    e.probeFinished(4000 * MS);
    assertEquals(1501, e.currentMs(4000 * MS), 1e-9);
  }

  @Test
  public void aHangingFirstProbeCountsForItsVolumeButIsNoYardstick() {
    LatencyEstimate e = new LatencyEstimate(0.5, 1000 * MS);
    e.probeStarted(0);
    assertTrue(Double.isNaN(e.currentMs(700 * MS)));
    assertEquals(1700, e.currentMs(1700 * MS), 1e-9);
    assertTrue(Double.isNaN(e.peerMs(1700 * MS)));
  }
}
