package io.strata.pcm;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.Test;

/** The pure parts of a re-split and of the client-thread advice. */
public class ResplitPointsTest {

  private static List<byte[]> keys(int n) {
    List<byte[]> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(Bytes.toBytes(String.format("row%05d", i)));
    }
    return out;
  }

  @Test
  public void pointsAreQuantilesOfTheSampleWithoutExistingStarts() {
    List<byte[]> p = Resplit.points(keys(1000), 4, List.of(new byte[0]));
    assertEquals(3, p.size());
    assertEquals("row00250", Bytes.toString(p.get(0)));
    assertEquals("row00500", Bytes.toString(p.get(1)));
    assertEquals("row00750", Bytes.toString(p.get(2)));
    // a point that is already a region's start is not split again
    p = Resplit.points(keys(1000), 4, List.of(new byte[0], Bytes.toBytes("row00500")));
    assertEquals(2, p.size());
    // skewed keys: the quantiles follow the data, not the key space
    List<byte[]> skewed = new ArrayList<>();
    for (int i = 0; i < 900; i++) {
      skewed.add(Bytes.toBytes(String.format("a%05d", i)));
    }
    for (int i = 0; i < 100; i++) {
      skewed.add(Bytes.toBytes(String.format("z%05d", i)));
    }
    p = Resplit.points(skewed, 4, List.of(new byte[0]));
    assertEquals(3, p.size());
    assertTrue(Bytes.toString(p.get(2)), Bytes.toString(p.get(2)).startsWith("a"));
  }

  @Test
  public void tooFewDistinctKeysGiveNoPoint() {
    assertTrue(Resplit.points(keys(1), 4, List.of()).isEmpty());
    List<byte[]> same = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      same.add(Bytes.toBytes("k"));
    }
    assertEquals(1, Resplit.points(same, 4, List.of()).size());
  }

  @Test
  public void theSamplingChanceBoundsTheSample() {
    assertEquals(1f, Resplit.chance(0), 0f);
    assertEquals(1f, Resplit.chance(Resplit.TARGET_SAMPLES * Resplit.MIN_ROW_BYTES), 0f);
    float c = Resplit.chance(100L * Resplit.TARGET_SAMPLES * Resplit.MIN_ROW_BYTES);
    assertEquals(0.01f, c, 1e-6f);
  }

  @Test
  public void refusalsWorthARetryAreToldFromOthers() {
    assertTrue(Resplit.retryable("DoNotRetryIOException: t,,1.abc. NOT splittable"));
    assertTrue(Resplit.retryable("Skip splitting region x, because there is an active procedure "
      + "that is modifying the table t"));
    assertFalse(Resplit.retryable("Split region x failed due to split switch off"));
    assertFalse(Resplit.retryable("Split row is not inside region key range splitKey:"));
  }

  @Test
  public void clientThreadAdviceFollowsFigureThree() {
    // on the paper's 9 RegionServers: its measured optima
    assertEquals(4, ClientThreads.advise(WorkloadClass.BL, 9).threads());
    assertEquals(4, ClientThreads.advise(WorkloadClass.WO_UPDATE, 9).threads());
    assertEquals(60, ClientThreads.advise(WorkloadClass.RO_READ, 9).threads());
    assertEquals(60, ClientThreads.advise(WorkloadClass.RO_SCAN, 9).threads());
    // reads scale with the RegionServers, writes stay at 4 below the paper's size
    assertEquals(20, ClientThreads.advise(WorkloadClass.RM, 3).threads());
    assertEquals(4, ClientThreads.advise(WorkloadClass.WM, 3).threads());
    assertEquals(16, ClientThreads.advise(WorkloadClass.WO_INSERT, 36).threads());
    assertEquals(240, ClientThreads.advise(WorkloadClass.RO_READ, 36).threads());
    // the mix in between: sqrt(4 x 20)
    assertEquals(9, ClientThreads.advise(WorkloadClass.MIX_RW, 3).threads());
    assertTrue(ClientThreads.advise(WorkloadClass.RO_READ, 3).rule().contains("Fig. 3"));
  }
}
