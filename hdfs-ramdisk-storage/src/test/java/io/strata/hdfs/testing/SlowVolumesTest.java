package io.strata.hdfs.testing;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

/** The timing model of {@link SlowVolumes}, on given clock values (no DataNode, no sleeping). */
public class SlowVolumesTest {
  private static final long MS = 1_000_000L;

  @Test
  public void transfersOnOneVolumeQueueAtItsBandwidth() {
    SlowVolumes.Bandwidth disk = new SlowVolumes.Bandwidth(100_000_000L);
    // 1 MB at 100 MB/s: 10 ms; a second one started at once waits for the first.
    assertEquals(10 * MS, SlowVolumes.end(0, 1_000_000, MS, disk, null));
    assertEquals(20 * MS, SlowVolumes.end(0, 1_000_000, MS, disk, null));
    // A metadata operation only waits its delay.
    assertEquals(MS, SlowVolumes.end(0, 0, MS, disk, null));
  }

  @Test
  public void aSharedBandwidthCapsVolumesTogether() {
    SlowVolumes.Bandwidth a = new SlowVolumes.Bandwidth(100_000_000L);
    SlowVolumes.Bandwidth b = new SlowVolumes.Bandwidth(100_000_000L);
    SlowVolumes.Bandwidth controller = new SlowVolumes.Bandwidth(150_000_000L);
    // Alone, a volume runs at its own 100 MB/s: the 150 MB/s controller is not the limit.
    long first = SlowVolumes.end(0, 1_500_000, 0, a, controller);
    assertEquals(15 * MS, first);
    // The second volume's own timeline is free, but the controller is busy until 10 ms: its
    // 1.5 MB take until 20 ms on it, so two volumes get 150 MB/s together, not 200.
    assertEquals(20 * MS, SlowVolumes.end(0, 1_500_000, 0, b, controller));
  }

  @Test
  public void aSharedBandwidthAloneSlowsOnlyTransfers() {
    SlowVolumes.Bandwidth controller = new SlowVolumes.Bandwidth(1_000_000_000L);
    assertEquals(5 * MS, SlowVolumes.end(0, 5_000_000, 0, null, controller));
    assertEquals(7 * MS, SlowVolumes.end(7 * MS, 0, 0, null, controller));
  }
}
