package io.strata.pcm;

import java.util.Objects;

/**
 * What the adaptation manager needs to know of the cluster and the table. Immutable.
 *
 * @param liveServers   live RegionServers
 * @param maxHeapBytes  the smallest maximum heap of a live RegionServer now
 * @param nodeRamBytes  a RegionServer host's memory; 0 when unknown
 * @param datasetBytes  the table's data (store files and memstores), or the operator's estimate
 *                      of what a load will bring
 * @param regions       the table's regions now
 */
public final class ClusterFacts {
  private final int liveServers;
  private final long maxHeapBytes;
  private final long nodeRamBytes;
  private final long datasetBytes;
  private final int regions;

  public ClusterFacts(int liveServers, long maxHeapBytes, long nodeRamBytes, long datasetBytes,
    int regions) {
    this.liveServers = liveServers;
    this.maxHeapBytes = maxHeapBytes;
    this.nodeRamBytes = nodeRamBytes;
    this.datasetBytes = datasetBytes;
    this.regions = regions;
  }

  public int liveServers() {
    return liveServers;
  }

  public long maxHeapBytes() {
    return maxHeapBytes;
  }

  public long nodeRamBytes() {
    return nodeRamBytes;
  }

  public long datasetBytes() {
    return datasetBytes;
  }

  public int regions() {
    return regions;
  }

  /** From a monitor sample, with the host memory from configuration. */
  public static ClusterFacts of(TableSample s, long nodeRamBytes, long datasetBytes) {
    return new ClusterFacts(s.liveServers(), s.maxHeapBytes(), nodeRamBytes,
      Math.max(datasetBytes, s.dataBytes()), s.regions());
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof ClusterFacts)) {
      return false;
    }
    ClusterFacts o = (ClusterFacts) other;
    return liveServers == o.liveServers
      && maxHeapBytes == o.maxHeapBytes
      && nodeRamBytes == o.nodeRamBytes
      && datasetBytes == o.datasetBytes
      && regions == o.regions;
  }

  @Override
  public int hashCode() {
    return Objects.hash(liveServers, maxHeapBytes, nodeRamBytes, datasetBytes, regions);
  }

  @Override
  public String toString() {
    return "ClusterFacts[liveServers=" + liveServers + ", maxHeapBytes=" + maxHeapBytes +
      ", nodeRamBytes=" + nodeRamBytes + ", datasetBytes=" + datasetBytes +
      ", regions=" + regions + "]";
  }
}
