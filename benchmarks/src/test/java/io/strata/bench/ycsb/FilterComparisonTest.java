package io.strata.bench.ycsb;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import io.strata.bench.ycsb.FilterComparison.Kind;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import org.junit.Test;

/** The rank markers that make the filters' selectivities exact, and the mode's options. */
public class FilterComparisonTest {

  @Test
  public void everyHundredConsecutivePositionsHoldEachRankOnce() {
    for (long start : new long[] { 0, 1, 37, 999_950 }) {
      boolean[] seen = new boolean[100];
      for (long p = start; p < start + 100; p++) {
        int r = FilterComparison.rank(p);
        assertFalse(start + ": rank " + r + " twice", seen[r]);
        seen[r] = true;
      }
    }
    assertEquals(73, FilterComparison.rank(37));
    assertEquals(0, FilterComparison.rank(100));
  }

  @Test
  public void anyTenConsecutivePositionsHoldTheirShareOfRanksBelowMultiplesOfTen() {
    for (int k = 10; k <= 100; k += 10) {
      for (long start = 0; start < 200; start++) {
        int n = 0;
        for (long p = start; p < start + 10; p++) {
          n += FilterComparison.rank(p) < k ? 1 : 0;
        }
        assertEquals("k " + k + " from " + start, k / 10, n);
      }
    }
  }

  @Test
  public void rankPatternMatchesExactlyTheRanksBelowK() {
    for (int k = 1; k <= 100; k++) {
      Pattern p = Pattern.compile("^" + FilterComparison.ranksBelow(k) + "$");
      for (int r = 0; r < 100; r++) {
        assertEquals(k + " vs " + r, r < k,
          p.matcher(String.format(Locale.ROOT, "%02d", r)).find());
      }
    }
  }

  @Test
  public void patternsMatchTheMarkersOfKeysQualifiersAndValues() {
    Pattern key = Pattern.compile(FilterComparison.pattern(Kind.ROW_KEY, 10));
    assertTrue(key.matcher(FilterComparison.rowKey(10)).find()); // rank 1
    assertFalse(key.matcher(FilterComparison.rowKey(1)).find()); // rank 10
    Pattern q = Pattern.compile(FilterComparison.pattern(Kind.QUALIFIER, 1));
    assertTrue(q.matcher(FilterComparison.qualifier(0)).find());
    assertFalse(q.matcher(FilterComparison.qualifier(100 - 1)).find());
    Pattern v = Pattern.compile(FilterComparison.pattern(Kind.VALUE, 50));
    assertTrue(v.matcher("r49 r99 padding").find());
    assertFalse(v.matcher("r50 r00 padding").find()); // only the leading marker counts
    assertTrue(FilterComparison.rowKey(12).startsWith("user0000000012-r"));
  }

  @Test
  public void optionsGoIntoTheComparisonsSettings() throws Exception {
    YcsbBench.Settings s = YcsbBench.settings("--filter-compare", "--filter-lengths", "1,100",
      "--filter-reps", "3");
    assertTrue(s.phases().isEmpty());
    FilterComparison.Settings f = s.filters();
    assertEquals(YcsbBench.FILTER_RECORDS_DEFAULT, f.records());
    assertEquals(100, f.fieldCount());
    assertEquals(List.of(1, 100), f.scanRows());
    assertEquals(List.of(1, 10, 50, 100), f.selectivities());
    assertEquals(3, f.repetitions());
    assertEquals(null, YcsbBench.settings("--phases", "load").filters());
  }

  @Test
  public void badOptionsAreRefusedWithTheReason() throws Exception {
    for (String[] args : List.of(
      new String[] { "--filter-reps", "3" },
      new String[] { "--filter-compare", "--ycsb", "fieldcount=10" },
      new String[] { "--filter-compare", "--filter-selectivities", "0,50" },
      new String[] { "--filter-compare", "--records", "50", "--filter-lengths", "100" })) {
      try {
        YcsbBench.settings(args);
        throw new AssertionError("accepted " + List.of(args));
      } catch (IllegalArgumentException e) {
        assertTrue(e.getMessage(), e.getMessage().contains("filter"));
      }
    }
  }
}
