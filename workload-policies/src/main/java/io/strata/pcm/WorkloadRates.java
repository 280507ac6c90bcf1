package io.strata.pcm;

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
public record WorkloadRates(double readsPerSec, double writesPerSec, double filteredPerSec,
  double scanShare, double insertShare, boolean emptyAtStart, double seconds, TableSample last) {

  /** Reads over reads and writes; NaN with no requests. */
  public double readFraction() {
    double total = readsPerSec + writesPerSec;
    return total == 0 ? Double.NaN : readsPerSec / total;
  }
}
