package io.strata.pcm;

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
public record ClusterFacts(int liveServers, long maxHeapBytes, long nodeRamBytes,
  long datasetBytes, int regions) {

  /** From a monitor sample, with the host memory from configuration. */
  public static ClusterFacts of(TableSample s, long nodeRamBytes, long datasetBytes) {
    return new ClusterFacts(s.liveServers(), s.maxHeapBytes(), nodeRamBytes,
      Math.max(datasetBytes, s.dataBytes()), s.regions());
  }
}
