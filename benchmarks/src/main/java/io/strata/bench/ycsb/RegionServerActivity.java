package io.strata.bench.ycsb;

import io.strata.local.EmbeddedHBase;
import java.util.List;
import java.util.function.Supplier;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.CompactionState;
import org.apache.hadoop.hbase.metrics.BaseSource;
import org.apache.hadoop.hbase.metrics.BaseSourceImpl;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.HRegionServer;
import org.apache.hadoop.hbase.regionserver.HStore;
import org.apache.hadoop.hbase.regionserver.MetricsRegionServerSource;
import org.apache.hadoop.metrics2.lib.DynamicMetricsRegistry;
import org.apache.hadoop.metrics2.lib.MutableFastCounter;
import org.apache.hadoop.metrics2.lib.MutableHistogram;
import org.apache.hadoop.metrics2.lib.MutableMetric;

/**
 * Activity of the RegionServers running in this JVM (the embedded cluster), read live: the
 * counters of each server's metrics source ({@code flushTime}, {@code compactionTime}, ... as
 * exported over JMX, but without JMX's caching), its flush and compaction queues, and the
 * compaction state and store files of the watched table's regions. Counters are server-wide
 * (all tables), gauges other than the queues are the table's.
 */
public final class RegionServerActivity implements ServerActivity {
  private final Supplier<List<HRegionServer>> servers;
  private final TableName table;

  public RegionServerActivity(Supplier<List<HRegionServer>> servers, TableName table) {
    this.servers = servers;
    this.table = table;
  }

  /** The RegionServers of {@code hbase}, watching {@code table}. */
  public static RegionServerActivity of(EmbeddedHBase hbase, TableName table) {
    return new RegionServerActivity(() -> {
      HRegionServer[] rs = new HRegionServer[hbase.regionServerCount()];
      for (int i = 0; i < rs.length; i++) {
        rs[i] = hbase.regionServer(i);
      }
      return List.of(rs);
    }, table);
  }

  @Override
  public ActivitySnapshot snapshot() {
    long flushes = 0;
    long flushedBytes = 0;
    long compactions = 0;
    long major = 0;
    long compactedIn = 0;
    long compactedOut = 0;
    int flushQueue = 0;
    int compactionQueue = 0;
    int running = 0;
    int storeFiles = 0;
    int regions = 0;
    for (HRegionServer rs : servers.get()) {
      DynamicMetricsRegistry m = registry(rs.getMetrics().getMetricsSource());
      flushes += count(m, MetricsRegionServerSource.FLUSH_TIME);
      flushedBytes += count(m, MetricsRegionServerSource.FLUSHED_OUTPUT_BYTES);
      compactions += count(m, MetricsRegionServerSource.COMPACTION_TIME);
      major += count(m, MetricsRegionServerSource.MAJOR_COMPACTION_TIME);
      compactedIn += count(m, MetricsRegionServerSource.COMPACTED_INPUT_BYTES);
      compactedOut += count(m, MetricsRegionServerSource.COMPACTED_OUTPUT_BYTES);
      if (rs.getMemStoreFlusher() != null) {
        flushQueue += rs.getMemStoreFlusher().getFlushQueueSize();
      }
      if (rs.getCompactSplitThread() != null) {
        compactionQueue += rs.getCompactSplitThread().getCompactionQueueSize();
      }
      for (HRegion region : rs.getRegions(table)) {
        regions++;
        if (region.getCompactionState() != CompactionState.NONE) {
          running++;
        }
        for (HStore store : region.getStores()) {
          storeFiles += store.getStorefilesCount();
        }
      }
    }
    return new ActivitySnapshot(flushes, flushedBytes, compactions, major, compactedIn,
      compactedOut, flushQueue, compactionQueue, running, storeFiles, regions);
  }

  private static DynamicMetricsRegistry registry(BaseSource source) {
    if (!(source instanceof BaseSourceImpl impl)) {
      throw new IllegalStateException("RegionServer metrics source " + source.getClass()
        + " is not a BaseSourceImpl; its counters cannot be read");
    }
    return impl.getMetricsRegistry();
  }

  private static long count(DynamicMetricsRegistry registry, String name) {
    MutableMetric metric = registry.get(name);
    if (metric instanceof MutableHistogram h) {
      return h.getCount();
    }
    if (metric instanceof MutableFastCounter c) {
      return c.value();
    }
    throw new IllegalStateException("RegionServer metric " + name + " is "
      + (metric == null ? "not registered" : "a " + metric.getClass().getName()));
  }
}
