package io.strata.pcm;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The workload monitor's sliding window over one table: the last N {@link TableSample}s, and the
 * rates between the oldest and the newest. A counter that went down (a region reopened or moved,
 * which restarts its counts) starts the window afresh rather than giving a negative rate. Not
 * thread-safe: one monitor loop owns it.
 */
public final class WorkloadWindow {
  private final int capacity;
  private final Deque<TableSample> samples = new ArrayDeque<>();
  private Boolean emptyAtStart;

  /** @param capacity samples kept; at least 2 */
  public WorkloadWindow(int capacity) {
    if (capacity < 2) {
      throw new IllegalArgumentException("a window needs at least 2 samples, not " + capacity);
    }
    this.capacity = capacity;
  }

  /** Adds a sample; the first one decides whether the table was empty when watching began. */
  public void add(TableSample s) {
    if (emptyAtStart == null) {
      emptyAtStart = s.dataBytes() == 0 && s.writeRequests() == 0;
    }
    TableSample prev = samples.peekLast();
    if (prev != null && (s.readRequests() < prev.readRequests()
      || s.writeRequests() < prev.writeRequests() || s.atMs() <= prev.atMs())) {
      samples.clear();
    }
    samples.addLast(s);
    while (samples.size() > capacity) {
      samples.removeFirst();
    }
  }

  /** Whether two samples are in the window, so {@link #rates()} has something to say. */
  public boolean ready() {
    return samples.size() >= 2;
  }

  /** The rates across the window; {@link #ready()} must be true. */
  public WorkloadRates rates() {
    if (!ready()) {
      throw new IllegalStateException("the window needs two samples before it has rates");
    }
    TableSample first = samples.peekFirst();
    TableSample last = samples.peekLast();
    double secs = (last.atMs() - first.atMs()) / 1000.0;
    return new WorkloadRates((last.readRequests() - first.readRequests()) / secs,
      (last.writeRequests() - first.writeRequests()) / secs,
      (last.filteredReads() - first.filteredReads()) / secs, Double.NaN, Double.NaN,
      Boolean.TRUE.equals(emptyAtStart), secs, last);
  }
}
