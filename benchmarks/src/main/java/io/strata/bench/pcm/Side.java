package io.strata.bench.pcm;

import org.apache.hadoop.hbase.regionserver.IncreasingToUpperBoundRegionSplitPolicy;

/**
 * One side of a PCM comparison: PCM's policy, or one of the two baselines it is measured
 * against. The primary baseline is stock HBase 2.6: nothing set, so the RegionServer resolves
 * its own default split policy (SteppingSplitPolicy in 2.6; the run records the class it
 * actually resolved). The secondary is the PCM paper's default,
 * {@code IncreasingToUpperBoundRegionSplitPolicy}, set as the table's split policy (the table
 * form of {@code hbase.regionserver.region.split.policy}, so both baselines share a cluster).
 */
enum Side {
  PCM("PCM", null),
  STOCK("stock", null),
  INCREASING_TO_UPPER_BOUND("increasing-to-upper-bound",
    IncreasingToUpperBoundRegionSplitPolicy.class.getName());

  /** The baselines, primary first. */
  static final Side[] BASELINES = { STOCK, INCREASING_TO_UPPER_BOUND };

  private final String label;
  private final String splitPolicy;

  Side(String label, String splitPolicy) {
    this.label = label;
    this.splitPolicy = splitPolicy;
  }

  /** The name the report and the JSON give it. */
  String label() {
    return label;
  }

  /** The split policy class the side sets on its tables; null: it leaves HBase's default. */
  String splitPolicy() {
    return splitPolicy;
  }
}
