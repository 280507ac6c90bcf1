package io.strata.hdfs.chooser;

import io.strata.hdfs.HdfsKeys;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;

/** The latency-aware chooser's settings, read from the configuration and checked. */
record ChooserSettings(long probeIntervalMs, int probeBytes, double slowRatio, double slowMinMs,
  double ewmaWeight) {

  private static final int MAX_PROBE_BYTES = 16 << 20;

  /** @throws IllegalArgumentException naming the key, for a value out of range or unparsable */
  static ChooserSettings from(Configuration conf) {
    long interval = (long) number(conf, HdfsKeys.CHOOSER_PROBE_INTERVAL_MS,
      HdfsKeys.CHOOSER_PROBE_INTERVAL_MS_DEFAULT, true);
    check(interval > 0, HdfsKeys.CHOOSER_PROBE_INTERVAL_MS, "a positive number of milliseconds",
      interval);
    long bytes = (long) number(conf, HdfsKeys.CHOOSER_PROBE_BYTES,
      HdfsKeys.CHOOSER_PROBE_BYTES_DEFAULT, true);
    check(bytes >= 1 && bytes <= MAX_PROBE_BYTES, HdfsKeys.CHOOSER_PROBE_BYTES,
      "a number of bytes from 1 to " + MAX_PROBE_BYTES, bytes);
    double ratio = number(conf, HdfsKeys.CHOOSER_SLOW_RATIO, HdfsKeys.CHOOSER_SLOW_RATIO_DEFAULT,
      false);
    check(ratio > 1, HdfsKeys.CHOOSER_SLOW_RATIO, "a number greater than 1", ratio);
    double minMs = number(conf, HdfsKeys.CHOOSER_SLOW_MIN_MS, HdfsKeys.CHOOSER_SLOW_MIN_MS_DEFAULT,
      false);
    check(minMs >= 0, HdfsKeys.CHOOSER_SLOW_MIN_MS, "0 or more milliseconds", minMs);
    double weight = number(conf, HdfsKeys.CHOOSER_EWMA_WEIGHT, HdfsKeys.CHOOSER_EWMA_WEIGHT_DEFAULT,
      false);
    check(weight > 0 && weight <= 1, HdfsKeys.CHOOSER_EWMA_WEIGHT, "a number in (0, 1]", weight);
    return new ChooserSettings(interval, (int) bytes, ratio, minMs, weight);
  }

  private static double number(Configuration conf, String key, double dflt, boolean integral) {
    String raw = conf.getTrimmed(key);
    if (raw == null || raw.isEmpty()) {
      return dflt;
    }
    try {
      double v = integral ? Long.parseLong(raw) : Double.parseDouble(raw);
      if (Double.isNaN(v) || Double.isInfinite(v)) {
        throw new NumberFormatException();
      }
      return v;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(String.format(Locale.ROOT, "%s: '%s' is not %s", key,
        raw, integral ? "an integer" : "a finite number"));
    }
  }

  private static void check(boolean ok, String key, String expected, Object value) {
    if (!ok) {
      throw new IllegalArgumentException(String.format(Locale.ROOT, "%s must be %s, got %s", key,
        expected, value));
    }
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "%s=%d, %s=%d, %s=%s, %s=%s, %s=%s",
      HdfsKeys.CHOOSER_PROBE_INTERVAL_MS, probeIntervalMs, HdfsKeys.CHOOSER_PROBE_BYTES, probeBytes,
      HdfsKeys.CHOOSER_SLOW_RATIO, slowRatio, HdfsKeys.CHOOSER_SLOW_MIN_MS, slowMinMs,
      HdfsKeys.CHOOSER_EWMA_WEIGHT, ewmaWeight);
  }
}
