package io.strata.pcm;

import java.util.Objects;

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
public final class TableSample {
  private final long atMs;
  private final long readRequests;
  private final long filteredReads;
  private final long writeRequests;
  private final int regions;
  private final int storeFiles;
  private final long storeFileBytes;
  private final long memStoreBytes;
  private final int liveServers;
  private final long maxHeapBytes;
  private final long usedHeapBytes;
  private final long getOps;
  private final long scanOps;
  private final long putsSampled;
  private final long putsInserting;

  public TableSample(long atMs, long readRequests, long filteredReads, long writeRequests,
    int regions, int storeFiles, long storeFileBytes, long memStoreBytes, int liveServers,
    long maxHeapBytes, long usedHeapBytes, long getOps, long scanOps, long putsSampled,
    long putsInserting) {
    this.atMs = atMs;
    this.readRequests = readRequests;
    this.filteredReads = filteredReads;
    this.writeRequests = writeRequests;
    this.regions = regions;
    this.storeFiles = storeFiles;
    this.storeFileBytes = storeFileBytes;
    this.memStoreBytes = memStoreBytes;
    this.liveServers = liveServers;
    this.maxHeapBytes = maxHeapBytes;
    this.usedHeapBytes = usedHeapBytes;
    this.getOps = getOps;
    this.scanOps = scanOps;
    this.putsSampled = putsSampled;
    this.putsInserting = putsInserting;
  }

  public long atMs() {
    return atMs;
  }

  public long readRequests() {
    return readRequests;
  }

  public long filteredReads() {
    return filteredReads;
  }

  public long writeRequests() {
    return writeRequests;
  }

  public int regions() {
    return regions;
  }

  public int storeFiles() {
    return storeFiles;
  }

  public long storeFileBytes() {
    return storeFileBytes;
  }

  public long memStoreBytes() {
    return memStoreBytes;
  }

  public int liveServers() {
    return liveServers;
  }

  public long maxHeapBytes() {
    return maxHeapBytes;
  }

  public long usedHeapBytes() {
    return usedHeapBytes;
  }

  public long getOps() {
    return getOps;
  }

  public long scanOps() {
    return scanOps;
  }

  public long putsSampled() {
    return putsSampled;
  }

  public long putsInserting() {
    return putsInserting;
  }

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

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof TableSample)) {
      return false;
    }
    TableSample o = (TableSample) other;
    return atMs == o.atMs
      && readRequests == o.readRequests
      && filteredReads == o.filteredReads
      && writeRequests == o.writeRequests
      && regions == o.regions
      && storeFiles == o.storeFiles
      && storeFileBytes == o.storeFileBytes
      && memStoreBytes == o.memStoreBytes
      && liveServers == o.liveServers
      && maxHeapBytes == o.maxHeapBytes
      && usedHeapBytes == o.usedHeapBytes
      && getOps == o.getOps
      && scanOps == o.scanOps
      && putsSampled == o.putsSampled
      && putsInserting == o.putsInserting;
  }

  @Override
  public int hashCode() {
    return Objects.hash(atMs, readRequests, filteredReads, writeRequests, regions, storeFiles,
      storeFileBytes, memStoreBytes, liveServers, maxHeapBytes, usedHeapBytes, getOps, scanOps,
      putsSampled, putsInserting);
  }

  @Override
  public String toString() {
    return "TableSample[atMs=" + atMs + ", readRequests=" + readRequests +
      ", filteredReads=" + filteredReads + ", writeRequests=" + writeRequests +
      ", regions=" + regions + ", storeFiles=" + storeFiles + ", storeFileBytes=" + storeFileBytes +
      ", memStoreBytes=" + memStoreBytes + ", liveServers=" + liveServers +
      ", maxHeapBytes=" + maxHeapBytes + ", usedHeapBytes=" + usedHeapBytes + ", getOps=" + getOps +
      ", scanOps=" + scanOps + ", putsSampled=" + putsSampled +
      ", putsInserting=" + putsInserting + "]";
  }
}
