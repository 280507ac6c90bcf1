package io.strata.pcm;

import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.ClusterMetrics.Option;
import org.apache.hadoop.hbase.RegionMetrics;
import org.apache.hadoop.hbase.ServerMetrics;
import org.apache.hadoop.hbase.Size;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.RegionInfo;

/**
 * Reads a table's counters from the master's {@link Admin#getClusterMetrics}: every live
 * RegionServer's {@link RegionMetrics}, summed over the table's regions, and, where a
 * {@link ReadOpCounter} is given, the Get/Scan split from the servers hosting them, and where an
 * {@link InsertCounter} is given, the insert/update split.
 * Thread-safety: as the {@link Admin} it uses (HBase's is safe for concurrent use).
 */
public final class ClusterMetricsSource implements MetricsSource {
  private final Admin admin;
  private final ReadOpCounter readOps;
  private final InsertCounter inserts;

  /**
   * @param readOps where the Get/Scan split comes from; null: unknown
   * @param inserts where the insert/update split comes from; null: unknown
   */
  public ClusterMetricsSource(Admin admin, ReadOpCounter readOps, InsertCounter inserts) {
    this.admin = admin;
    this.readOps = readOps;
    this.inserts = inserts;
  }

  @Override
  public TableSample sample(TableName table) throws IOException {
    ClusterMetrics cm = admin.getClusterMetrics(EnumSet.of(Option.LIVE_SERVERS));
    long reads = 0;
    long filtered = 0;
    long writes = 0;
    long storeFileBytes = 0;
    long memStoreBytes = 0;
    int regions = 0;
    int storeFiles = 0;
    long maxHeap = Long.MAX_VALUE;
    long usedHeap = 0;
    List<ServerMetrics> hosting = new ArrayList<>();
    for (ServerMetrics sm : cm.getLiveServerMetrics().values()) {
      maxHeap = Math.min(maxHeap, bytes(sm.getMaxHeapSize()));
      usedHeap = Math.max(usedHeap, bytes(sm.getUsedHeapSize()));
      for (RegionMetrics rm : sm.getRegionMetrics().values()) {
        if (!RegionInfo.getTable(rm.getRegionName()).equals(table)) {
          continue;
        }
        regions++;
        if (hosting.isEmpty() || hosting.get(hosting.size() - 1) != sm) {
          hosting.add(sm);
        }
        reads += rm.getReadRequestCount();
        filtered += rm.getFilteredReadRequestCount();
        writes += rm.getWriteRequestCount();
        storeFiles += rm.getStoreFileCount();
        storeFileBytes += bytes(rm.getStoreFileSize());
        memStoreBytes += bytes(rm.getMemStoreSize());
      }
    }
    int live = cm.getLiveServerMetrics().size();
    ReadOpCounter.ReadOps ops = readOps == null || hosting.isEmpty() ? null
      : readOps.readOps(table, hosting);
    InsertCounter.InsertCounts ins = inserts == null || hosting.isEmpty() ? null
      : inserts.insertCounts(table, hosting);
    return new TableSample(System.currentTimeMillis(), reads, filtered, writes, regions, storeFiles,
      storeFileBytes, memStoreBytes, live, live == 0 ? 0 : maxHeap, usedHeap,
      ops == null ? -1 : ops.gets(), ops == null ? -1 : ops.scans(),
      ins == null ? -1 : ins.sampled(), ins == null ? -1 : ins.inserting());
  }

  private static long bytes(Size s) {
    return (long) s.get(Size.Unit.BYTE);
  }
}
