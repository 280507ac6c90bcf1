package io.strata.hdfs;

/**
 * Configuration keys of Strata's HDFS-side plug-ins, set in the DataNode's hdfs-site.xml. Bad
 * values stop the plug-in (and so the DataNode) with an {@link IllegalArgumentException} naming
 * the key.
 */
public final class HdfsKeys {
  private HdfsKeys() {
  }

  /**
   * The latency-aware volume chooser, enabled with
   * {@code dfs.datanode.fsdataset.volume.choosing.policy = }{@value #LATENCY_AWARE_POLICY}.
   */
  public static final String LATENCY_AWARE_POLICY =
    "io.strata.hdfs.chooser.LatencyAwareVolumeChoosingPolicy";

  /**
   * Milliseconds between two latency probes of a volume (each probe writes, syncs and deletes a
   * small file on it); a probe running longer than this counts with its elapsed time. Default
   * {@value #CHOOSER_PROBE_INTERVAL_MS_DEFAULT}; must be positive.
   */
  public static final String CHOOSER_PROBE_INTERVAL_MS = "strata.volume.chooser.probe.interval.ms";
  public static final long CHOOSER_PROBE_INTERVAL_MS_DEFAULT = 1000;

  /**
   * Bytes each latency probe writes and syncs. Default {@value #CHOOSER_PROBE_BYTES_DEFAULT};
   * between 1 and 16 MiB.
   */
  public static final String CHOOSER_PROBE_BYTES = "strata.volume.chooser.probe.bytes";
  public static final int CHOOSER_PROBE_BYTES_DEFAULT = 4096;

  /**
   * A volume is slow when its probe latency exceeds this many times the median of its same-type
   * peers (and {@link #CHOOSER_SLOW_MIN_MS}). Default {@value #CHOOSER_SLOW_RATIO_DEFAULT}; must
   * be greater than 1.
   */
  public static final String CHOOSER_SLOW_RATIO = "strata.volume.chooser.slow.ratio";
  public static final double CHOOSER_SLOW_RATIO_DEFAULT = 5.0;

  /**
   * Probe latency in milliseconds below which no volume counts as slow, whatever its peers', so
   * that sub-millisecond noise on fast media excludes nothing. Default
   * {@value #CHOOSER_SLOW_MIN_MS_DEFAULT}; must be 0 or more.
   */
  public static final String CHOOSER_SLOW_MIN_MS = "strata.volume.chooser.slow.min.ms";
  public static final double CHOOSER_SLOW_MIN_MS_DEFAULT = 10.0;

  /**
   * Weight of the newest probe in a volume's moving average of probe latency, in (0, 1]: 1 keeps
   * only the last probe, smaller values smooth more and readmit a recovered volume later. Default
   * {@value #CHOOSER_EWMA_WEIGHT_DEFAULT}.
   */
  public static final String CHOOSER_EWMA_WEIGHT = "strata.volume.chooser.ewma.weight";
  public static final double CHOOSER_EWMA_WEIGHT_DEFAULT = 0.5;
}
