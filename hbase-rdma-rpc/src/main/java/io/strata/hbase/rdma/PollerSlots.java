package io.strata.hbase.rdma;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A bound on how many threads busy-poll at once. Polling for a call or a response saves the
 * wake-up of a parked thread (what that costs is measured by {@code strata bench rpc}; see the
 * benchmarks' README), but every poller holds a core: more pollers than spare cores would starve
 * the threads doing the work. Thread-safe, lock-free.
 */
public final class PollerSlots {
  private final AtomicInteger taken = new AtomicInteger();
  private volatile int max;

  public PollerSlots(int max) {
    this.max = max;
  }

  /** Takes a slot if one is free; a caller that gets one must {@link #release()} it. */
  public boolean tryTake() {
    for (;;) {
      int n = taken.get();
      if (n >= max) {
        return false;
      }
      if (taken.compareAndSet(n, n + 1)) {
        return true;
      }
    }
  }

  public void release() {
    taken.decrementAndGet();
  }

  public void max(int max) {
    this.max = max;
  }

  public int max() {
    return max;
  }

  /** Slots taken now. */
  public int taken() {
    return taken.get();
  }
}
