package io.strata.rdma.transport;

/**
 * The pause between two looks of a polling thread: a CPU spin hint, and every
 * {@value #YIELD_EVERY}th time a yield, so that a poller on a host with more runnable threads
 * than cores hands its core to the thread that has the work (the handler it waits for, the
 * completion thread that delivers) instead of holding it for a whole time slice.
 */
public final class PollPause {
  static final int YIELD_EVERY = 8;

  private PollPause() {
  }

  /** Pauses after the {@code look}-th unsuccessful look. */
  public static void pause(int look) {
    if ((look & (YIELD_EVERY - 1)) == YIELD_EVERY - 1) {
      Thread.yield();
    } else {
      Thread.onSpinWait();
    }
  }
}
