package io.strata.bench.writetail;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.List;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.Test;

/** The write-tail bench's per-second buckets and the split keys of its pre-split tables. */
public class TimelineTest {
  private static final long MS = 1_000_000L;

  @Test
  public void putsGoToTheSecondTheyWereSentInAndWritersMerge() {
    long origin = 5_000 * MS;
    Timeline run = new Timeline(origin);
    Timeline a = run.local();
    Timeline b = run.local();
    a.record(origin + 100 * MS, 2 * MS);
    a.record(origin + 900 * MS, 4 * MS);
    b.record(origin + 999 * MS, 100 * MS);
    b.record(origin + 2_500 * MS, 1 * MS);
    run.add(a);
    run.add(b);
    List<Timeline.Bucket> buckets = run.buckets();
    assertEquals(2, buckets.size());
    Timeline.Bucket first = buckets.get(0);
    assertEquals(0, first.second());
    assertEquals(3, first.puts());
    assertEquals(4, first.p50Ms(), 0.01);
    assertEquals(100, first.maxMs(), 0.1);
    assertEquals(2, buckets.get(1).second());
    assertEquals(1, buckets.get(1).puts());
    assertEquals(1.5, run.secondsOf(origin + 1_500 * MS), 1e-9);
  }

  @Test
  public void thePlotPutsAPolicysTurnsEndToEnd() {
    Timeline.Panel p = new Timeline.Panel("NONE", List.of(),
      List.of(new double[] { 0, 10 }, new double[] { 30, 35 }), List.of(), List.of());
    assertEquals(4, p.writingTime(4), 1e-9);
    assertEquals(10, p.writingTime(20), 1e-9); // between turns: where the next one starts
    assertEquals(12, p.writingTime(32), 1e-9);
    assertEquals(15, p.writingTime(99), 1e-9);
  }

  @Test
  public void splitKeysCutTheKeySpaceEvenly() {
    assertEquals(0, WriteTailCluster.splitKeys(1).length);
    byte[][] keys = WriteTailCluster.splitKeys(4);
    assertArrayEquals(Bytes.toBytes("3fffffffffffffff"), keys[0]);
    assertArrayEquals(Bytes.toBytes("7ffffffffffffffe"), keys[1]);
    assertArrayEquals(Bytes.toBytes("bffffffffffffffd"), keys[2]);
    int[] perRegion = new int[4];
    for (long i = 0; i < 40_000; i++) {
      byte[] row = PutLoad.rowKey(i);
      int region = 0;
      while (region < keys.length && Bytes.compareTo(row, keys[region]) >= 0) {
        region++;
      }
      perRegion[region]++;
    }
    for (int n : perRegion) {
      assertTrue(java.util.Arrays.toString(perRegion), n > 9_000 && n < 11_000);
    }
  }
}
