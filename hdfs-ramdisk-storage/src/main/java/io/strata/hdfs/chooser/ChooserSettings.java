package io.strata.hdfs.chooser;

import io.strata.hdfs.HdfsKeys;
import java.util.Locale;
import java.util.Objects;
import org.apache.hadoop.conf.Configuration;

/**
 * The latency-aware chooser's settings, read and checked by {@link HdfsKeys}' getters.
 * Immutable: safe from any thread.
 */
final class ChooserSettings {
  private final long probeIntervalMs;
  private final int probeBytes;
  private final double slowRatio;
  private final double slowMinMs;
  private final double ewmaWeight;

  ChooserSettings(long probeIntervalMs, int probeBytes, double slowRatio, double slowMinMs,
    double ewmaWeight) {
    this.probeIntervalMs = probeIntervalMs;
    this.probeBytes = probeBytes;
    this.slowRatio = slowRatio;
    this.slowMinMs = slowMinMs;
    this.ewmaWeight = ewmaWeight;
  }

  public long probeIntervalMs() {
    return probeIntervalMs;
  }

  public int probeBytes() {
    return probeBytes;
  }

  public double slowRatio() {
    return slowRatio;
  }

  public double slowMinMs() {
    return slowMinMs;
  }

  public double ewmaWeight() {
    return ewmaWeight;
  }

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

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof ChooserSettings)) {
      return false;
    }
    ChooserSettings o = (ChooserSettings) other;
    return probeIntervalMs == o.probeIntervalMs
      && probeBytes == o.probeBytes
      && Double.compare(slowRatio, o.slowRatio) == 0
      && Double.compare(slowMinMs, o.slowMinMs) == 0
      && Double.compare(ewmaWeight, o.ewmaWeight) == 0;
  }

  @Override
  public int hashCode() {
    return Objects.hash(probeIntervalMs, probeBytes, slowRatio, slowMinMs, ewmaWeight);
  }
}
