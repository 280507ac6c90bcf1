package io.strata.pcm;

import java.util.Collection;
import org.apache.hadoop.hbase.ServerMetrics;
import org.apache.hadoop.hbase.TableName;

/**
 * Where the monitor reads a table's Get and Scan operation counts from, which the master's
 * cluster metrics do not split: the RegionServers' own metrics, or a test's.
 */
public interface ReadOpCounter {
  /** Cumulative Get and Scan (next) operations on one table, summed over servers. */
  record ReadOps(long gets, long scans) {
  }

  /**
   * The table's counts on {@code servers} (those hosting its regions); null when any of them
   * cannot say (its metrics are off or not reachable), so that a partial sum is never taken for
   * the whole.
   */
  ReadOps readOps(TableName table, Collection<ServerMetrics> servers);
}
