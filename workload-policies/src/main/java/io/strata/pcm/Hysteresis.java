package io.strata.pcm;

import java.util.Optional;

/**
 * Debounces classifications: a class counts (becomes {@link #stable()}) only after it was seen
 * in {@code required} consecutive windows, so a burst does not flip settings. An idle window
 * (no class) breaks a run but leaves the stable class as it is: a pause is not a new workload.
 * Not thread-safe: one monitor loop owns it.
 */
public final class Hysteresis {
  private final int required;
  private WorkloadClass candidate;
  private int run;
  private WorkloadClass stable;

  /** @param required consecutive agreeing windows; at least 1 */
  public Hysteresis(int required) {
    if (required < 1) {
      throw new IllegalArgumentException("required windows must be at least 1, not " + required);
    }
    this.required = required;
  }

  /**
   * Feeds one window's class; returns the new stable class when this window made it change,
   * empty otherwise.
   */
  public Optional<WorkloadClass> offer(Optional<WorkloadClass> observed) {
    if (observed.isEmpty()) {
      candidate = null;
      run = 0;
      return Optional.empty();
    }
    WorkloadClass c = observed.get();
    if (c == candidate) {
      run++;
    } else {
      candidate = c;
      run = 1;
    }
    if (run >= required && c != stable) {
      stable = c;
      return Optional.of(c);
    }
    return Optional.empty();
  }

  /** The class that held long enough; null before any did. */
  public WorkloadClass stable() {
    return stable;
  }

  /** Consecutive windows the current candidate has held. */
  public int run() {
    return run;
  }
}
