package io.strata.bench.writetail;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.HashSet;
import java.util.Set;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.Test;

/** Row keys of the write-tail bench: distinct, fixed width, spread over the key space. */
public class PutLoadTest {

  @Test
  public void keysAreDistinctFixedWidthAndSpread() {
    int n = 200_000;
    Set<String> keys = new HashSet<>();
    int[] firstDigit = new int[16];
    for (long i = 0; i < n; i++) {
      String k = Bytes.toString(PutLoad.rowKey(i));
      assertEquals(k, 16, k.length());
      assertEquals(PutLoad.mix(i), Long.parseUnsignedLong(k, 16));
      keys.add(k);
      firstDigit[Character.digit(k.charAt(0), 16)]++;
    }
    assertEquals(n, keys.size());
    for (int count : firstDigit) {
      assertTrue("each leading hex digit takes about 1/16 of the keys: " + count,
        Math.abs(count - n / 16) < n / 160);
    }
  }
}
