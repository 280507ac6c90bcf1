package io.strata.bench.faults;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import io.strata.bench.faults.Ledger.Expected;
import io.strata.bench.faults.Ledger.Kind;
import io.strata.bench.faults.Ledger.Outcome;
import org.junit.Test;

/** The ledger's judgement of what a write read back says, and of reads made under faults. */
public class LedgerTest {
  private static Expected put(long v, boolean ambiguous) {
    return new Expected(Kind.PUT, v, ambiguous);
  }

  private static Expected increment(boolean ambiguous) {
    return new Expected(Kind.INCREMENT, 1, ambiguous);
  }

  @Test
  public void aLostAndADuplicatedIncrementDoNotCancelOut() {
    // In one shared counter, 0 + 2 reads as the 2 acknowledged: nothing seen. Each in its own
    // row, both are found.
    Ledger.Tally t = new Ledger.Tally();
    assertEquals(Outcome.LOST, t.add("i-1", increment(false), null));
    assertEquals(Outcome.DUPLICATED, t.add("i-2", increment(false), 2L));
    Ledger.Verdict v = t.verdict();
    assertEquals(2, v.acked());
    assertEquals(2, v.checked());
    assertEquals(1, v.lost());
    assertEquals(1, v.duplicated());
    assertFalse(v.verified());
    assertTrue(v.examples().toString(), v.examples().get(0).contains("i-1 not read back"));
    assertTrue(v.examples().toString(), v.examples().get(1).contains("i-2 applied 2 times"));
  }

  @Test
  public void anIncrementIsExactlyOneAcknowledgedZeroOrOneAmbiguous() {
    assertEquals(Outcome.KEPT, Ledger.judge(increment(false), 1L));
    assertEquals(Outcome.LOST, Ledger.judge(increment(false), 0L));
    assertEquals(Outcome.LANDED, Ledger.judge(increment(true), 1L));
    assertEquals(Outcome.NOT_LANDED, Ledger.judge(increment(true), null));
    assertEquals(Outcome.NOT_LANDED, Ledger.judge(increment(true), 0L));
    assertEquals(Outcome.DUPLICATED, Ledger.judge(increment(true), 3L));
    assertEquals(Outcome.NEVER_WRITTEN, Ledger.judge(increment(false), -1L));
  }

  @Test
  public void anAmbiguousPutPresentLandedAbsentDidNotBothResolved() {
    Ledger.Tally t = new Ledger.Tally();
    assertEquals(Outcome.LANDED, t.add("p-1", put(42, true), 42L));
    assertEquals(Outcome.NOT_LANDED, t.add("p-2", put(43, true), null));
    assertEquals(Outcome.KEPT, t.add("p-3", put(44, false), 44L));
    Ledger.Verdict v = t.verdict();
    assertEquals(1, v.acked());
    assertEquals(1, v.checked());
    assertEquals(2, v.ambiguous());
    assertEquals(1, v.ambiguousLanded());
    assertEquals(1, v.ambiguousNotLanded());
    assertEquals(0, v.ambiguousUnresolved());
    assertEquals(0, v.lost());
    assertTrue(v.verified());
  }

  @Test
  public void aValueNeverWrittenIsAProblemAcknowledgedOrNot() {
    Ledger.Tally t = new Ledger.Tally();
    assertEquals(Outcome.NEVER_WRITTEN, t.add("p-1", put(42, true), 7L));
    assertEquals(Outcome.NEVER_WRITTEN, t.add("p-2", put(43, false), 8L));
    Ledger.Verdict v = t.verdict();
    assertEquals(2, v.lost());
    assertFalse(v.verified());
    assertTrue(v.examples().toString(), v.examples().get(0).contains("holds 7, never written"));
  }

  @Test
  public void anUnreadableAmbiguousWriteIsUnresolvedAndFailsTheVerdict() {
    Ledger.Tally t = new Ledger.Tally();
    t.add("p-1", put(1, false), 1L);
    t.unreadable(put(2, true));
    Ledger.Verdict v = t.verdict();
    assertEquals(1, v.ambiguousUnresolved());
    assertEquals(0, v.unreadable());
    assertFalse(v.verified());
    t.unreadable(put(3, false));
    v = t.verdict();
    assertEquals(2, v.acked());
    assertEquals(1, v.checked());
    assertEquals(1, v.unreadable());
  }

  @Test
  public void aReadMustNotGoBackNorReturnWhatWasNeverWritten() {
    assertNull(Ledger.readProblem("s-1", 5L, 5, true));
    assertNull(Ledger.readProblem("s-1", 6L, 5, true)); // a newer write, acknowledged or not
    assertNull(Ledger.readProblem("s-1", null, 0, false)); // nothing acknowledged yet
    String back = Ledger.readProblem("s-1", 4L, 5, true);
    assertNotNull(back);
    assertTrue(back, back.contains("went backwards: sequence 4 after 5"));
    String gone = Ledger.readProblem("s-1", null, 5, false);
    assertTrue(gone, gone.contains("found nothing after sequence 5"));
    String never = Ledger.readProblem("s-1", 9L, 5, false);
    assertTrue(never, never.contains("sequence 9, never written"));
  }

  @Test
  public void aReadOfAnAcknowledgedPutReturnsItsValue() {
    assertNull(Ledger.ackedReadProblem("p-1", 42, 42L));
    assertTrue(Ledger.ackedReadProblem("p-1", 42, null).contains("found nothing"));
    assertTrue(Ledger.ackedReadProblem("p-1", 42, 41L).contains("returned 41, never written"));
  }
}
