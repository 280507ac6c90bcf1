package io.strata.pcm;

import java.util.Objects;

/**
 * A table's request rates over the monitor's sliding window, and what the classifier needs to
 * tell the classes apart. Immutable.
 *
 * @param readsPerSec     read operations (Gets and Scan calls) per second when the Get/Scan
 *                        split is known, else rows read per second
 * @param writesPerSec    mutations per second
 * @param filteredPerSec  rows read and filtered out per second (reported, not classified on)
 * @param scanShare       share of reads that are range reads, 0 to 1; NaN when unknown (the
 *                        master's metrics have no Get/Scan split)
 * @param insertShare     share of writes that insert new rows, 0 to 1; NaN when unknown (inserts
 *                        and updates are both Puts)
 * @param emptyAtStart    the table held no data when watching began
 * @param seconds         the window's length
 * @param last            the newest sample
 */
public final class WorkloadRates {
  private final double readsPerSec;
  private final double writesPerSec;
  private final double filteredPerSec;
  private final double scanShare;
  private final double insertShare;
  private final boolean emptyAtStart;
  private final double seconds;
  private final TableSample last;

  public WorkloadRates(double readsPerSec, double writesPerSec, double filteredPerSec,
    double scanShare, double insertShare, boolean emptyAtStart, double seconds, TableSample last) {
    this.readsPerSec = readsPerSec;
    this.writesPerSec = writesPerSec;
    this.filteredPerSec = filteredPerSec;
    this.scanShare = scanShare;
    this.insertShare = insertShare;
    this.emptyAtStart = emptyAtStart;
    this.seconds = seconds;
    this.last = last;
  }

  public double readsPerSec() {
    return readsPerSec;
  }

  public double writesPerSec() {
    return writesPerSec;
  }

  public double filteredPerSec() {
    return filteredPerSec;
  }

  public double scanShare() {
    return scanShare;
  }

  public double insertShare() {
    return insertShare;
  }

  public boolean emptyAtStart() {
    return emptyAtStart;
  }

  public double seconds() {
    return seconds;
  }

  public TableSample last() {
    return last;
  }

  /** Reads over reads and writes; NaN with no requests. */
  public double readFraction() {
    double total = readsPerSec + writesPerSec;
    return total == 0 ? Double.NaN : readsPerSec / total;
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof WorkloadRates)) {
      return false;
    }
    WorkloadRates o = (WorkloadRates) other;
    return Double.compare(readsPerSec, o.readsPerSec) == 0
      && Double.compare(writesPerSec, o.writesPerSec) == 0
      && Double.compare(filteredPerSec, o.filteredPerSec) == 0
      && Double.compare(scanShare, o.scanShare) == 0
      && Double.compare(insertShare, o.insertShare) == 0
      && emptyAtStart == o.emptyAtStart
      && Double.compare(seconds, o.seconds) == 0
      && Objects.equals(last, o.last);
  }

  @Override
  public int hashCode() {
    return Objects.hash(readsPerSec, writesPerSec, filteredPerSec, scanShare, insertShare,
      emptyAtStart, seconds, last);
  }

  @Override
  public String toString() {
    return "WorkloadRates[readsPerSec=" + readsPerSec + ", writesPerSec=" + writesPerSec +
      ", filteredPerSec=" + filteredPerSec + ", scanShare=" + scanShare +
      ", insertShare=" + insertShare + ", emptyAtStart=" + emptyAtStart + ", seconds=" + seconds +
      ", last=" + last + "]";
  }
}
