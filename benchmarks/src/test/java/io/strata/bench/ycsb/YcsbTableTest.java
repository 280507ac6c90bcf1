package io.strata.bench.ycsb;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.InputStream;
import java.util.Properties;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.Test;
import site.ycsb.measurements.Measurements;
import site.ycsb.workloads.CoreWorkload;

/** Split keys give each region about the same share of the keys YCSB's own workload builds. */
public class YcsbTableTest {

  /** YCSB's key builder, as the load phase calls it. */
  private static final class Keys extends CoreWorkload {
    Keys(Properties p) throws Exception {
      init(p);
    }

    String key(long n) {
      return buildKeyName(n);
    }
  }

  @Test
  public void regionsGetEqualSharesOfHashedKeys() throws Exception {
    Properties p = new Properties();
    try (InputStream in = YcsbWorkloads.open(YcsbWorkloads.A)) {
      p.load(in);
    }
    Measurements.setProperties(p);
    Keys keys = new Keys(p);
    int records = 200_000;
    for (int regions : new int[] { 2, 4, 10, 16, 50 }) {
      byte[][] splits = YcsbTable.splitKeys(regions);
      assertEquals(regions - 1, splits.length);
      long[] counts = new long[regions];
      for (long n = 0; n < records; n++) {
        byte[] k = Bytes.toBytes(keys.key(n));
        int region = 0;
        while (region < splits.length && Bytes.compareTo(k, splits[region]) >= 0) {
          region++;
        }
        counts[region]++;
      }
      double expected = (double) records / regions;
      for (int r = 0; r < regions; r++) {
        assertTrue(regions + " regions, region " + r + ": " + counts[r] + " keys, expected about "
          + expected, Math.abs(counts[r] - expected) < 0.1 * expected);
      }
    }
  }

  @Test
  public void fourRegionSplitKeys() {
    assertArrayEquals(new byte[][] { Bytes.toBytes("user308"), Bytes.toBytes("user515"),
      Bytes.toBytes("user723") }, YcsbTable.splitKeys(4));
  }

  @Test
  public void sharesCoverTheWholeKeySpace() {
    assertEquals(0.0, YcsbTable.shareBelow(0.0), 1e-12);
    assertEquals(1.0, YcsbTable.shareBelow(1.0), 1e-12);
    assertEquals(0.5, YcsbTable.shareBelow(YcsbTable.fractionAtShare(0.5)), 1e-9);
  }

  @Test(expected = IllegalArgumentException.class)
  public void oneRegionHasNoSplitKeys() {
    YcsbTable.splitKeys(1);
  }
}
