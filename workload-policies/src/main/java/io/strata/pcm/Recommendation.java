package io.strata.pcm;

import java.util.List;

/**
 * The policy of a class worked out for one table on one cluster. Immutable.
 *
 * @param workload        the class
 * @param policySource    the file the policy came from
 * @param x               the paper's X: the recommended RegionServer heap in whole GiB
 * @param heapBytes       the recommended RegionServer heap
 * @param heapFromRam     whether it is the policy's share of the host's memory (else the
 *                        RegionServers' current heap, the host's memory being unknown)
 * @param preSplitRegions P = N x #RegionServers, 0 when the policy does not pre-split
 * @param settings        every setting, resolved to its value
 */
public record Recommendation(WorkloadClass workload, String policySource, long x, long heapBytes,
  boolean heapFromRam, int preSplitRegions, List<Setting> settings) {

  /**
   * One resolved setting.
   *
   * @param key   the policy file's key
   * @param scope where it takes effect
   * @param target the name HBase reads it under at that scope
   * @param value the value for this cluster
   * @param rule  as written in the policy (e.g. {@code 128MB*X})
   */
  public record Setting(String key, Scope scope, String target, String value, String rule) {
  }

  public Recommendation {
    settings = List.copyOf(settings);
  }
}
