package io.strata.pcm;

import java.util.Collection;
import java.util.Objects;
import org.apache.hadoop.hbase.ServerMetrics;
import org.apache.hadoop.hbase.TableName;

/**
 * Where the monitor reads a table's Get and Scan operation counts from, which the master's
 * cluster metrics do not split: the RegionServers' own metrics, or a test's.
 */
public interface ReadOpCounter {
  /** Cumulative Get and Scan (next) operations on one table, summed over servers. */
  final class ReadOps {
    private final long gets;
    private final long scans;

    public ReadOps(long gets, long scans) {
      this.gets = gets;
      this.scans = scans;
    }

    public long gets() {
      return gets;
    }

    public long scans() {
      return scans;
    }

    @Override
    public boolean equals(Object other) {
      if (this == other) {
        return true;
      }
      if (!(other instanceof ReadOps)) {
        return false;
      }
      ReadOps o = (ReadOps) other;
      return gets == o.gets
        && scans == o.scans;
    }

    @Override
    public int hashCode() {
      return Objects.hash(gets, scans);
    }

    @Override
    public String toString() {
      return "ReadOps[gets=" + gets + ", scans=" + scans + "]";
    }
  }

  /**
   * The table's counts on {@code servers} (those hosting its regions); null when any of them
   * cannot say (its metrics are off or not reachable), so that a partial sum is never taken for
   * the whole.
   */
  ReadOps readOps(TableName table, Collection<ServerMetrics> servers);
}
