package io.strata.hbase.tiering;

import org.apache.hadoop.hbase.metrics.MetricRegistries;
import org.apache.hadoop.hbase.metrics.MetricRegistry;
import org.apache.hadoop.hbase.metrics.MetricRegistryInfo;

/**
 * Files and bytes placed per kind of file and storage policy, as RegionServer metrics, so an
 * operator sees placement without scanning HDFS. Published over JMX as
 * {@code Hadoop:service=HBase,name=RegionServer,sub=StrataTiering}, counters named
 * {@code <kind>.<POLICY>.files} and {@code <kind>.<POLICY>.bytes} with kind {@code flushed},
 * {@code compacted}, {@code archived} or {@code oldwal}.
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

  /** The current count of a counter, 0 if nothing was counted under that name. */
  public static long count(String kind, String policy, String what) {
    return REGISTRY.get(kind + "." + policy + "." + what)
      .map(m -> ((org.apache.hadoop.hbase.metrics.Counter) m).getCount()).orElse(0L);
  }
}
