package io.strata.bench.pcm;

import io.strata.pcm.ReadOpCounter;
import java.util.Collection;
import java.util.Optional;
import org.apache.hadoop.hbase.ServerMetrics;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.metrics.Histogram;
import org.apache.hadoop.hbase.metrics.Metric;
import org.apache.hadoop.hbase.metrics.MetricRegistries;
import org.apache.hadoop.hbase.metrics.MetricRegistry;
import org.apache.hadoop.hbase.metrics.MetricRegistryInfo;

/**
 * The Get/Scan split of a table for RegionServers that run in this JVM: the same per-table
 * request metrics ({@code MetricsTableRequests}' {@code getTime} and {@code scanTime}) that
 * {@code io.strata.pcm.JmxReadOpCounter} reads over a RegionServer's {@code /jmx}, read from
 * HBase's metric registries directly. The embedded RegionServers run no info server, and the
 * registry's counts are live, where {@code /jmx} serves them up to a metrics period (10 s) old.
 * RegionServers in one JVM share one registry per table, so the counts are already the cluster's
 * sums. Thread-safe: the registries are.
 */
final class InProcessReadOpCounter implements ReadOpCounter {
  @Override
  public ReadOps readOps(TableName table, Collection<ServerMetrics> servers) {
    String name = "TableRequests_Namespace_" + table.getNamespaceAsString() + "_table_"
      + table.getQualifierAsString();
    for (MetricRegistryInfo info : MetricRegistries.global().getMetricRegistryInfos()) {
      if (!name.equals(info.getMetricsName())) {
        continue;
      }
      Optional<MetricRegistry> reg = MetricRegistries.global().get(info);
      if (reg.isEmpty()) {
        return null;
      }
      long gets = count(reg.get(), "getTime");
      long scans = count(reg.get(), "scanTime");
      return gets < 0 || scans < 0 ? null : new ReadOps(gets, scans);
    }
    return null;
  }

  private static long count(MetricRegistry reg, String metric) {
    Optional<Metric> m = reg.get(metric);
    return m.isPresent() && m.get() instanceof Histogram h ? h.getCount() : -1;
  }
}
