package io.strata.pcm;

import java.util.Collection;
import org.apache.hadoop.hbase.ServerMetrics;
import org.apache.hadoop.hbase.TableName;

/**
 * Where the monitor reads how many of a table's Puts wrote a new row, which HBase's request counts
 * do not say: the RegionServers' {@link InsertSampler} metrics, or a test's.
 */
public interface InsertCounter {
  /** Cumulative sampled Puts on one table and how many of them wrote a new row. */
  record InsertCounts(long sampled, long inserting) {
  }

  /**
   * The table's counts on {@code servers} (those hosting its regions); null when any of them
   * cannot say (the sampler is not loaded there, or its metrics are not reachable).
   */
  InsertCounts insertCounts(TableName table, Collection<ServerMetrics> servers);
}
