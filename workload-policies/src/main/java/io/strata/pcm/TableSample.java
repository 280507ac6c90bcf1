package io.strata.pcm;

/**
 * One table's counters and sizes at one moment, summed over its regions, and the cluster around
 * it. The request counters are the RegionServers' cumulative counts (they restart from zero when a
 * region reopens; {@link WorkloadWindow} treats a drop as a restart). Immutable.
 *
 * @param atMs               when it was read, epoch milliseconds
 * @param readRequests       rows read (Get and Scan), {@code RegionMetrics#getReadRequestCount}
 * @param filteredReads      rows read and filtered out, {@code getFilteredReadRequestCount}
 * @param writeRequests      mutations, {@code getWriteRequestCount}
 * @param regions            the table's online regions
 * @param storeFiles         its store files
 * @param storeFileBytes     their size
 * @param memStoreBytes      its memstores' size
 * @param liveServers        live RegionServers in the cluster
 * @param maxHeapBytes       the smallest maximum heap of a live RegionServer
 * @param usedHeapBytes      the largest used heap of a live RegionServer
 * @param getOps             Get operations, -1 when unknown ({@link ReadOpCounter})
 * @param scanOps            Scan (next) operations, -1 when unknown
 * @param putsSampled        Puts {@link InsertSampler} checked, -1 when unknown
 *                           ({@link InsertCounter})
 * @param putsInserting      of those, the Puts that wrote a new row, -1 when unknown
 */
public record TableSample(long atMs, long readRequests, long filteredReads, long writeRequests,
  int regions, int storeFiles, long storeFileBytes, long memStoreBytes, int liveServers,
  long maxHeapBytes, long usedHeapBytes, long getOps, long scanOps, long putsSampled,
  long putsInserting) {

  /** A sample without the insert/update split. */
  public TableSample(long atMs, long readRequests, long filteredReads, long writeRequests,
    int regions, int storeFiles, long storeFileBytes, long memStoreBytes, int liveServers,
    long maxHeapBytes, long usedHeapBytes, long getOps, long scanOps) {
    this(atMs, readRequests, filteredReads, writeRequests, regions, storeFiles, storeFileBytes,
      memStoreBytes, liveServers, maxHeapBytes, usedHeapBytes, getOps, scanOps, -1, -1);
  }

  /** The table's data: store files and memstores. */
  public long dataBytes() {
    return storeFileBytes + memStoreBytes;
  }
}
