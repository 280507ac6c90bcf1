package io.strata.pcm;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.util.Optional;
import org.junit.Test;

/** The paper's thresholds, at and around every boundary. */
public class WorkloadClassifierTest {
  private final WorkloadClassifier c = new WorkloadClassifier(1.0, 0.01);

  private static WorkloadRates rates(double reads, double writes, boolean empty, double scan,
    double insert) {
    return new WorkloadRates(reads, writes, 0, scan, insert, empty, 10, null);
  }

  private WorkloadClass classOf(double readPercent) {
    return c.classify(rates(readPercent * 10, (100 - readPercent) * 10, false, Double.NaN,
      Double.NaN)).orElseThrow();
  }

  @Test
  public void writeOnlyIntoAnEmptyTableIsBulkLoad() {
    assertEquals(WorkloadClass.BL, c.classify(rates(0, 500, true, Double.NaN, Double.NaN)).get());
    assertEquals(WorkloadClass.BL, c.classify(rates(5, 995, true, Double.NaN, Double.NaN)).get());
  }

  @Test
  public void writeOnlyIntoALoadedTableIsWriteOnly() {
    assertEquals(WorkloadClass.WO_INSERT, c.classify(rates(0, 500, false, Double.NaN,
      Double.NaN)).get());
    assertEquals(WorkloadClass.WO_UPDATE, c.classify(rates(0, 500, false, Double.NaN, 0.2)).get());
    assertEquals(WorkloadClass.WO_INSERT, c.classify(rates(0, 500, false, Double.NaN, 0.8)).get());
  }

  @Test
  public void readShareBoundaries() {
    assertEquals(WorkloadClass.WO_INSERT, classOf(1));
    assertEquals(WorkloadClass.WM, classOf(1.5));
    assertEquals(WorkloadClass.WM, classOf(9.9));
    assertEquals(WorkloadClass.MIX_W, classOf(10));
    assertEquals(WorkloadClass.MIX_W, classOf(39.9));
    assertEquals(WorkloadClass.MIX_RW, classOf(40));
    assertEquals(WorkloadClass.MIX_RW, classOf(50));
    assertEquals(WorkloadClass.MIX_RW, classOf(60));
    assertEquals(WorkloadClass.MIX_R, classOf(60.1));
    assertEquals(WorkloadClass.MIX_R, classOf(90));
    assertEquals(WorkloadClass.RM, classOf(90.1));
    assertEquals(WorkloadClass.RM, classOf(98.9));
    assertEquals(WorkloadClass.RO_READ, classOf(99));
    assertEquals(WorkloadClass.RO_READ, classOf(100));
  }

  @Test
  public void aReadingTableNeverCountsAsBulkLoad() {
    // An empty table being read and written is a mix, whatever its start.
    assertEquals(WorkloadClass.MIX_RW, c.classify(rates(50, 50, true, Double.NaN,
      Double.NaN)).get());
  }

  @Test
  public void scanShareSplitsReadOnly() {
    assertEquals(WorkloadClass.RO_SCAN, c.classify(rates(100, 0, false, 0.7, Double.NaN)).get());
    assertEquals(WorkloadClass.RO_READ, c.classify(rates(100, 0, false, 0.3, Double.NaN)).get());
  }

  @Test
  public void belowTheMinimumRateIsIdle() {
    assertFalse(c.classify(rates(0, 0, false, Double.NaN, Double.NaN)).isPresent());
    assertFalse(c.classify(rates(0.3, 0.5, false, Double.NaN, Double.NaN)).isPresent());
    assertTrue(c.classify(rates(0.3, 0.8, false, Double.NaN, Double.NaN)).isPresent());
  }

  @Test
  public void zeroToleranceMeansExactlyOnly() {
    WorkloadClassifier strict = new WorkloadClassifier(0, 0);
    assertEquals(Optional.of(WorkloadClass.WM), strict.classify(rates(1, 999, true, Double.NaN,
      Double.NaN)));
    assertEquals(Optional.of(WorkloadClass.RM), strict.classify(rates(999, 1, false, Double.NaN,
      Double.NaN)));
  }

  @Test(expected = IllegalArgumentException.class)
  public void toleranceThatEatsTheMostlyClassesIsRefused() {
    new WorkloadClassifier(1, 0.1);
  }
}
