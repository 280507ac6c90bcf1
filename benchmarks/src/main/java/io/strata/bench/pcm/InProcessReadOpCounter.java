package io.strata.bench.pcm;

import io.strata.pcm.InsertCounter;
import io.strata.pcm.InsertSampler;
import io.strata.pcm.ReadOpCounter;
import java.util.Collection;
import java.util.Optional;
import org.apache.hadoop.hbase.ServerMetrics;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.metrics.Counter;
import org.apache.hadoop.hbase.metrics.Histogram;
import org.apache.hadoop.hbase.metrics.Metric;
import org.apache.hadoop.hbase.metrics.MetricRegistries;
import org.apache.hadoop.hbase.metrics.MetricRegistry;
import org.apache.hadoop.hbase.metrics.MetricRegistryInfo;

/**
 * The Get/Scan and insert/update splits of a table for RegionServers that run in this JVM: the
 * same per-table request metrics ({@code MetricsTableRequests}' {@code getTime} and
 * {@code scanTime}) and {@link InsertSampler} counters that {@code io.strata.pcm.JmxRequestCounters}
 * reads over a RegionServer's {@code /jmx}, read from HBase's metric registries directly. The embedded RegionServers run no info server, and the
 * registry's counts are live, where {@code /jmx} serves them up to a metrics period (10 s) old.
 * RegionServers in one JVM share one registry per table, so the counts are already the cluster's
 * sums. Thread-safe: the registries are.
 */
final class InProcessReadOpCounter implements ReadOpCounter, InsertCounter {
  @Override
  public ReadOps readOps(TableName table, Collection<ServerMetrics> servers) {
    MetricRegistry reg = registry("TableRequests_Namespace_" + table.getNamespaceAsString()
      + "_table_" + table.getQualifierAsString());
    long gets = reg == null ? -1 : count(reg, "getTime");
    long scans = reg == null ? -1 : count(reg, "scanTime");
    return gets < 0 || scans < 0 ? null : new ReadOps(gets, scans);
  }

  @Override
  public InsertCounts insertCounts(TableName table, Collection<ServerMetrics> servers) {
    MetricRegistry reg = registry("Coprocessor.Region.CP_" + InsertSampler.class.getName());
    long sampled = reg == null ? -1 : count(reg, InsertSampler.counterName(table, "putsSampled"));
    long inserting = reg == null ? -1
      : count(reg, InsertSampler.counterName(table, "putsInserting"));
    return sampled < 0 || inserting < 0 ? null : new InsertCounts(sampled, inserting);
  }

  /** The registry named {@code metricsName}; null when there is none (yet). */
  private static MetricRegistry registry(String metricsName) {
    for (MetricRegistryInfo info : MetricRegistries.global().getMetricRegistryInfos()) {
      if (metricsName.equals(info.getMetricsName())) {
        return MetricRegistries.global().get(info).orElse(null);
      }
    }
    return null;
  }

  /** A histogram's or counter's count; -1 when {@code metric} is neither or absent. */
  private static long count(MetricRegistry reg, String metric) {
    Optional<Metric> m = reg.get(metric);
    if (m.isPresent() && m.get() instanceof Histogram h) {
      return h.getCount();
    }
    return m.isPresent() && m.get() instanceof Counter c ? c.getCount() : -1;
  }
}
