package io.strata.pcm;

import java.io.IOException;
import org.apache.hadoop.hbase.TableName;

/** Where the workload monitor reads a table's counters from: the running cluster, or a test's. */
public interface MetricsSource {
  /** The table's counters now; IOException when the cluster cannot be read. */
  TableSample sample(TableName table) throws IOException;
}
