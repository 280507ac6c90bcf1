package io.strata.bench.faults;

import java.util.ArrayList;
import java.util.List;

/**
 * The pure logic of {@link VerifyingLoad}'s ledger: what a write read back says about it, and
 * whether a read the load made while faults happened returned something it may return. Every
 * write has a row of its own and one expected value there: a Put its value (the first 8 bytes),
 * an Increment exactly 1 (each Increment adds 1 to a row of its own, so a lost Increment and one
 * applied twice cannot cancel out as they would in a shared counter). A write is acknowledged
 * (HBase answered it) or ambiguous (the call failed or timed out: it may have landed, and a
 * retried checkAndMutate that answers "not applied" may have been applied by its first attempt).
 * Stateless functions and a {@link Tally} that is not thread-safe (one verification fills it).
 */
final class Ledger {
  /** How many examples of problems a verdict keeps. */
  static final int EXAMPLES = 10;

  enum Kind { PUT, INCREMENT }

  /** What one write should have left in its row. */
  record Expected(Kind kind, long value, boolean ambiguous) {
  }

  /** What reading one write's row back says about it. */
  enum Outcome {
    /** Acknowledged and there. */
    KEPT,
    /** Ambiguous, and it landed. */
    LANDED,
    /** Ambiguous, and it did not land. */
    NOT_LANDED,
    /** Acknowledged and not there. */
    LOST,
    /** An Increment applied more than once. */
    DUPLICATED,
    /** A value in the row that this write never wrote. */
    NEVER_WRITTEN
  }

  private Ledger() {
  }

  /**
   * The outcome of one write whose row read back {@code read} (the value's first 8 bytes as a
   * long; null when the row or cell is absent).
   */
  static Outcome judge(Expected e, Long read) {
    if (e.kind() == Kind.INCREMENT) {
      long n = read == null ? 0 : read;
      if (n == 1) {
        return e.ambiguous() ? Outcome.LANDED : Outcome.KEPT;
      } else if (n == 0) {
        return e.ambiguous() ? Outcome.NOT_LANDED : Outcome.LOST;
      } else if (n > 1) {
        return Outcome.DUPLICATED;
      }
      return Outcome.NEVER_WRITTEN;
    }
    if (read == null) {
      return e.ambiguous() ? Outcome.NOT_LANDED : Outcome.LOST;
    }
    if (read == e.value()) {
      return e.ambiguous() ? Outcome.LANDED : Outcome.KEPT;
    }
    return Outcome.NEVER_WRITTEN;
  }

  /**
   * What is wrong with a read of a row that one writer overwrites with an increasing sequence
   * number, or null when nothing is: {@code seq} read (null: the row absent),
   * {@code ackedBefore} the highest sequence acknowledged for the row to the reader's connection
   * before the read was issued (0: none), {@code written} whether the writer ever attempted to
   * write {@code seq} to the row. A read must not return a value never written, and must not go
   * back before a write acknowledged before it.
   */
  static String readProblem(String row, Long seq, long ackedBefore, boolean written) {
    if (seq == null) {
      return ackedBefore > 0 ? "read of " + row + " found nothing after sequence " + ackedBefore
        + " was acknowledged" : null;
    }
    if (!written) {
      return "read of " + row + " returned sequence " + seq + ", never written";
    }
    if (seq < ackedBefore) {
      return "read of " + row + " went backwards: sequence " + seq + " after " + ackedBefore
        + " was acknowledged";
    }
    return null;
  }

  /**
   * What is wrong with a read of an acknowledged Put's row, or null: it must return the value
   * acknowledged ({@code read} null: absent).
   */
  static String ackedReadProblem(String row, long acked, Long read) {
    if (read == null) {
      return "read of acknowledged " + row + " found nothing";
    }
    return read == acked ? null : "read of acknowledged " + row + " returned " + read
      + ", never written (acknowledged " + acked + ")";
  }

  /**
   * The exact ledger of one verification: {@code acked} writes acknowledged when it began,
   * {@code checked} of them read back and {@code unreadable} not readable before its deadline
   * ({@code acked == checked + unreadable}); of those checked, {@code lost} not there (or holding
   * a value never written) and {@code duplicated} Increments applied more than once (by how many
   * times more). {@code ambiguous} writes whose calls failed: {@code ambiguousLanded},
   * {@code ambiguousNotLanded}, or {@code ambiguousUnresolved} (not readable); one holding a
   * value never written counts as lost, one applied twice as duplicated.
   */
  record Verdict(long acked, long checked, long ambiguous, long ambiguousLanded,
    long ambiguousNotLanded, long ambiguousUnresolved, long lost, long duplicated,
    long unreadable, List<String> examples) {

    /** Every acknowledged write read back as written, every ambiguous one resolved. */
    boolean verified() {
      return lost == 0 && duplicated == 0 && unreadable == 0 && ambiguousUnresolved == 0
        && checked == acked;
    }
  }

  /** Counts outcomes into a {@link Verdict}. */
  static final class Tally {
    private long acked;
    private long checked;
    private long ambiguous;
    private long landed;
    private long notLanded;
    private long unresolved;
    private long lost;
    private long duplicated;
    private long unreadable;
    private final List<String> examples = new ArrayList<>();

    /** One write read back. */
    Outcome add(String row, Expected e, Long read) {
      if (e.ambiguous()) {
        ambiguous++;
      } else {
        acked++;
        checked++;
      }
      Outcome o = judge(e, read);
      String what = (e.ambiguous() ? "ambiguous " : "acknowledged ")
        + (e.kind() == Kind.PUT ? "Put of " : "Increment of ") + row;
      switch (o) {
        case LANDED:
          landed++;
          break;
        case NOT_LANDED:
          notLanded++;
          break;
        case LOST:
          lost++;
          example(what + " not read back");
          break;
        case DUPLICATED:
          duplicated += read - 1;
          if (e.ambiguous()) {
            landed++;
          }
          example(what + " applied " + read + " times");
          break;
        case NEVER_WRITTEN:
          lost++;
          if (e.ambiguous()) {
            // Resolved: what is there is wrong, whichever way the call went.
            landed++;
          }
          example(what + " holds " + read + ", never written" + (e.kind() == Kind.PUT
            ? " (written " + e.value() + ")" : ""));
          break;
        default:
          break;
      }
      return o;
    }

    /** One write whose row could not be read. */
    void unreadable(Expected e) {
      if (e.ambiguous()) {
        ambiguous++;
        unresolved++;
      } else {
        acked++;
        unreadable++;
      }
    }

    void example(String s) {
      if (examples.size() < EXAMPLES) {
        examples.add(s);
      }
    }

    Verdict verdict() {
      return new Verdict(acked, checked, ambiguous, landed, notLanded, unresolved, lost,
        duplicated, unreadable, List.copyOf(examples));
    }
  }
}
