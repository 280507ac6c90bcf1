package io.strata.hbase.tiering;

import org.apache.hadoop.hbase.metrics.MetricRegistries;
import org.apache.hadoop.hbase.metrics.MetricRegistry;
import org.apache.hadoop.hbase.metrics.MetricRegistryInfo;

/**
 * Files and bytes placed per kind of file and storage policy, as RegionServer metrics, so an
 * operator sees placement without scanning HDFS. Published over JMX as
 * {@code Hadoop:service=HBase,name=RegionServer,sub=StrataTiering}, counters named
 * {@code <kind>.<POLICY>.files} and {@code <kind>.<POLICY>.bytes} with kind {@code flushed},
 * {@code compacted}, {@code archived}, {@code bulkloaded}, {@code oldwal} or {@code aged} (store
 * files the age chore re-placed, see {@code AgeMover}); and the age chore's progress:
 * {@code aged.pending.files} and {@code aged.pending.bytes} (aged files still to re-place after
 * its last pass, gauges) and {@code aged.failures} (calls that failed and are tried again).
 */
public final class TieringMetrics {
  static final MetricRegistryInfo INFO = new MetricRegistryInfo("StrataTiering",
    "Strata tiered placement: files and bytes per kind and storage policy",
    "RegionServer,sub=StrataTiering", "regionserver", false);

  private static final MetricRegistry REGISTRY = MetricRegistries.global().create(INFO);

  private TieringMetrics() {
  }

  static void placed(String kind, String policy, long bytes) {
    REGISTRY.counter(kind + "." + policy + ".files").increment();
    REGISTRY.counter(kind + "." + policy + ".bytes").increment(bytes);
  }

  private static final java.util.concurrent.atomic.AtomicLong AGED_PENDING_FILES =
    new java.util.concurrent.atomic.AtomicLong();
  private static final java.util.concurrent.atomic.AtomicLong AGED_PENDING_BYTES =
    new java.util.concurrent.atomic.AtomicLong();

  static {
    REGISTRY.register("aged.pending.files",
      (org.apache.hadoop.hbase.metrics.Gauge<Long>) AGED_PENDING_FILES::get);
    REGISTRY.register("aged.pending.bytes",
      (org.apache.hadoop.hbase.metrics.Gauge<Long>) AGED_PENDING_BYTES::get);
  }

  /** The pending files and bytes of the JVM's age chore after its last pass. */
  static void agedPending(long files, long bytes) {
    AGED_PENDING_FILES.set(files);
    AGED_PENDING_BYTES.set(bytes);
  }

  static void agedFailure() {
    REGISTRY.counter("aged.failures").increment();
  }

  /** Calls of the age chore that failed (each retried at its next pass). */
  public static long agedFailures() {
    return REGISTRY.get("aged.failures")
      .map(m -> ((org.apache.hadoop.hbase.metrics.Counter) m).getCount()).orElse(0L);
  }

  /** Aged store files still to re-place after the age chore's last pass. */
  public static long agedPendingFiles() {
    return AGED_PENDING_FILES.get();
  }

  /** The current count of a counter, 0 if nothing was counted under that name. */
  public static long count(String kind, String policy, String what) {
    return REGISTRY.get(kind + "." + policy + "." + what)
      .map(m -> ((org.apache.hadoop.hbase.metrics.Counter) m).getCount()).orElse(0L);
  }
}
