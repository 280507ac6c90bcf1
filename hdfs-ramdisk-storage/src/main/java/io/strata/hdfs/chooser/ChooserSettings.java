package io.strata.hdfs.chooser;

import io.strata.hdfs.HdfsKeys;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;

/**
 * The latency-aware chooser's settings, read and checked by {@link HdfsKeys}' getters.
 * Immutable: safe from any thread.
 */
record ChooserSettings(long probeIntervalMs, int probeBytes, double slowRatio, double slowMinMs,
  double ewmaWeight) {

  /** @throws IllegalArgumentException naming the key, for a value out of range or unparsable */
  static ChooserSettings from(Configuration conf) {
    return new ChooserSettings(HdfsKeys.chooserProbeIntervalMs(conf),
      HdfsKeys.chooserProbeBytes(conf), HdfsKeys.chooserSlowRatio(conf),
      HdfsKeys.chooserSlowMinMs(conf), HdfsKeys.chooserEwmaWeight(conf));
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "%s=%d, %s=%d, %s=%s, %s=%s, %s=%s",
      HdfsKeys.CHOOSER_PROBE_INTERVAL_MS, probeIntervalMs, HdfsKeys.CHOOSER_PROBE_BYTES, probeBytes,
      HdfsKeys.CHOOSER_SLOW_RATIO, slowRatio, HdfsKeys.CHOOSER_SLOW_MIN_MS, slowMinMs,
      HdfsKeys.CHOOSER_EWMA_WEIGHT, ewmaWeight);
  }
}
