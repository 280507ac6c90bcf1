package io.strata.pcm;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The workload monitor's sliding window over one table: the last N {@link TableSample}s, and the
 * rates between the oldest and the newest, once N samples are in. A counter that went down (a region reopened or moved,
 * which restarts its counts) starts the window afresh rather than giving a negative rate. Not
 * thread-safe: one monitor loop owns it.
 */
public final class WorkloadWindow {
  private final int capacity;
  private final int insertMinSamples;
  private final Deque<TableSample> samples = new ArrayDeque<>();
  private Boolean emptyAtStart;

  /** @param capacity samples kept; at least 2 */
  public WorkloadWindow(int capacity) {
    this(capacity, PcmKeys.INSERT_MIN_SAMPLES_DEFAULT);
  }

  /**
   * @param capacity         samples kept; at least 2
   * @param insertMinSamples sampled Puts the window needs for an insert share; at least 1
   */
  public WorkloadWindow(int capacity, int insertMinSamples) {
    if (capacity < 2) {
      throw new IllegalArgumentException("a window needs at least 2 samples, not " + capacity);
    }
    if (insertMinSamples < 1) {
      throw new IllegalArgumentException("an insert share needs at least 1 sampled Put, not "
        + insertMinSamples);
    }
    this.capacity = capacity;
    this.insertMinSamples = insertMinSamples;
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

  /**
   * Whether the window is full: rates are only taken over the whole window, so that a class is
   * never decided on a few seconds of traffic (nor on counters the RegionServers refresh less
   * often than the monitor reads them).
   */
  public boolean ready() {
    return samples.size() >= capacity;
  }

  /** The rates across the window; {@link #ready()} must be true. */
  public WorkloadRates rates() {
    if (!ready()) {
      throw new IllegalStateException("the window needs two samples before it has rates");
    }
    TableSample first = samples.peekFirst();
    TableSample last = samples.peekLast();
    double secs = (last.atMs() - first.atMs()) / 1000.0;
    long readOps = readOperations(first, last);
    // The paper's classes are shares of requests. A row count weighs a scan by the rows it
    // returns, which makes YCSB E (95 % scans, 5 % inserts) read-only; with the Get/Scan counts
    // the reads are operations, as the writes (one per mutated row) already are.
    double reads = readOps >= 0 ? readOps : last.readRequests() - first.readRequests();
    return new WorkloadRates(reads / secs,
      (last.writeRequests() - first.writeRequests()) / secs,
      (last.filteredReads() - first.filteredReads()) / secs, scanShare(first, last),
      insertShare(first, last, insertMinSamples), Boolean.TRUE.equals(emptyAtStart), secs, last);
  }

  /**
   * Get and Scan operations across the window; -1 when either end lacks the counts or a count
   * went down.
   */
  static long readOperations(TableSample first, TableSample last) {
    if (first.getOps() < 0 || first.scanOps() < 0 || last.getOps() < 0 || last.scanOps() < 0) {
      return -1;
    }
    long gets = last.getOps() - first.getOps();
    long scans = last.scanOps() - first.scanOps();
    return gets < 0 || scans < 0 ? -1 : gets + scans;
  }

  /**
   * Scan operations over Get and Scan operations across the window; NaN when either end lacks
   * the counts, a count went down, or there were none.
   */
  static double scanShare(TableSample first, TableSample last) {
    if (first.getOps() < 0 || first.scanOps() < 0 || last.getOps() < 0 || last.scanOps() < 0) {
      return Double.NaN;
    }
    long gets = last.getOps() - first.getOps();
    long scans = last.scanOps() - first.scanOps();
    if (gets < 0 || scans < 0 || gets + scans == 0) {
      return Double.NaN;
    }
    return (double) scans / (gets + scans);
  }

  /**
   * Inserting Puts over sampled Puts across the window; NaN when either end lacks the counts, a
   * count went down, or fewer than {@code minSamples} Puts were sampled (a share of a handful of
   * Puts would flip the class on noise).
   */
  static double insertShare(TableSample first, TableSample last, int minSamples) {
    if (first.putsSampled() < 0 || first.putsInserting() < 0 || last.putsSampled() < 0
      || last.putsInserting() < 0) {
      return Double.NaN;
    }
    long sampled = last.putsSampled() - first.putsSampled();
    long inserting = last.putsInserting() - first.putsInserting();
    if (sampled < minSamples || inserting < 0 || inserting > sampled) {
      return Double.NaN;
    }
    return (double) inserting / sampled;
  }
}
