package io.strata.bench.ycsb;

import java.util.Locale;

/**
 * The RegionServers' flush and compaction work at one moment: cumulative counters (since the
 * servers started) and gauges. {@link #since} turns two snapshots into a phase's activity.
 *
 * @param flushes memstore flushes finished
 * @param flushedBytes bytes of HFiles written by flushes
 * @param compactions compactions finished (minor and major)
 * @param majorCompactions of which major
 * @param compactedInputBytes bytes read by compactions
 * @param compactedOutputBytes bytes written by compactions
 * @param flushQueue flushes queued, delayed ones included (gauge)
 * @param compactionQueue compactions queued (gauge)
 * @param compactionsRunning regions with a compaction running (gauge)
 * @param storeFiles store files of the watched table's regions (gauge)
 * @param regions regions of the watched table (gauge)
 */
public record ActivitySnapshot(long flushes, long flushedBytes, long compactions,
  long majorCompactions, long compactedInputBytes, long compactedOutputBytes, int flushQueue, int compactionQueue, int compactionsRunning, int storeFiles, int regions) {

  /**
   * True while a compaction is queued or runs. Not the flush queue: it also holds the delayed
   * flushes the RegionServer's periodic flusher requests (e.g. of {@code hbase:meta}, after a
   * random delay of up to 5 minutes); a due flush shows as a store file count change.
   */
  public boolean busy() {
    return compactionQueue > 0 || compactionsRunning > 0;
  }

  /** Counters as differences from {@code before}; gauges as now. */
  public ActivitySnapshot since(ActivitySnapshot before) {
    return new ActivitySnapshot(flushes - before.flushes, flushedBytes - before.flushedBytes,
      compactions - before.compactions, majorCompactions - before.majorCompactions,
      compactedInputBytes - before.compactedInputBytes,
      compactedOutputBytes - before.compactedOutputBytes, flushQueue, compactionQueue, compactionsRunning, storeFiles, regions);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT,
      "%d flushes (%.1f MiB), %d compactions (%d major, %.1f MiB in, %.1f MiB out); "
        + "now %d regions, %d store files, queued %d flushes / %d compactions, %d running",
      flushes, flushedBytes / 1048576.0, compactions, majorCompactions,
      compactedInputBytes / 1048576.0, compactedOutputBytes / 1048576.0, regions,
      storeFiles, flushQueue, compactionQueue, compactionsRunning);
  }
}
