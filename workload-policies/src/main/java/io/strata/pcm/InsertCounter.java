package io.strata.pcm;

import java.util.Collection;
import java.util.Objects;
import org.apache.hadoop.hbase.ServerMetrics;
import org.apache.hadoop.hbase.TableName;

/**
 * Where the monitor reads how many of a table's Puts wrote a new row, which HBase's request counts
 * do not say: the RegionServers' {@link InsertSampler} metrics, or a test's.
 */
public interface InsertCounter {
  /** Cumulative sampled Puts on one table and how many of them wrote a new row. */
  final class InsertCounts {
    private final long sampled;
    private final long inserting;

    public InsertCounts(long sampled, long inserting) {
      this.sampled = sampled;
      this.inserting = inserting;
    }

    public long sampled() {
      return sampled;
    }

    public long inserting() {
      return inserting;
    }

    @Override
    public boolean equals(Object other) {
      if (this == other) {
        return true;
      }
      if (!(other instanceof InsertCounts)) {
        return false;
      }
      InsertCounts o = (InsertCounts) other;
      return sampled == o.sampled
        && inserting == o.inserting;
    }

    @Override
    public int hashCode() {
      return Objects.hash(sampled, inserting);
    }

    @Override
    public String toString() {
      return "InsertCounts[sampled=" + sampled + ", inserting=" + inserting + "]";
    }
  }

  /**
   * The table's counts on {@code servers} (those hosting its regions); null when any of them
   * cannot say (the sampler is not loaded there, or its metrics are not reachable).
   */
  InsertCounts insertCounts(TableName table, Collection<ServerMetrics> servers);
}
