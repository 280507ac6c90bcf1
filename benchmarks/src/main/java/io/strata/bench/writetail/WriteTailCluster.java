package io.strata.bench.writetail;

import io.strata.bench.monitor.BenchMonitor;
import io.strata.bench.writetail.MemStoreActivityObserver.Counts;
import io.strata.local.EmbeddedHBase;
import io.strata.local.LocalClusterConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.MemoryCompactionPolicy;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.CompactionState;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.io.util.MemorySizeUtil;
import org.apache.hadoop.hbase.regionserver.CompactingMemStore;
import org.apache.hadoop.hbase.regionserver.DisabledRegionSplitPolicy;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.HRegionServer;
import org.apache.hadoop.hbase.regionserver.MemStoreLAB;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The embedded cluster of {@code strata bench write-tail}: its RegionServer settings (the
 * profiles), a table per policy, and what the bench reads from the policy's regions (memstore in
 * effect, flush and in-memory compaction counts, off-heap bytes) and waits for between turns
 * (nothing flushing or compacting).
 */
final class WriteTailCluster {
  private static final Duration SETTLE_LIMIT = Duration.ofSeconds(120);

  private WriteTailCluster() {
  }

  /** The settings profiles: RegionServer keys each sets on the embedded cluster. */
  static final Map<String, Map<String, String>> PROFILES = profiles();

  private static Map<String, Map<String, String>> profiles() {
    Map<String, Map<String, String>> p = new LinkedHashMap<>();
    // Upstream's defaults (what the bench always ran with).
    p.put("default", Map.of());
    // The study's "core RegionServer configuration" for its in-memory compaction runs, as given.
    Map<String, String> study = new LinkedHashMap<>();
    study.put(HConstants.HREGION_MEMSTORE_BLOCK_MULTIPLIER, "5");
    study.put(HConstants.HREGION_MEMSTORE_FLUSH_SIZE, String.valueOf(256L << 20));
    study.put(MemorySizeUtil.MEMSTORE_SIZE_KEY, "0.4");
    study.put(MemorySizeUtil.MEMSTORE_SIZE_LOWER_LIMIT_KEY, "0.625");
    study.put(CompactingMemStore.COMPACTING_MEMSTORE_TYPE_KEY, "BASIC");
    p.put("study", study);
    return p;
  }

  /** The study's flush size, the tables' flush size under {@code --settings study}. */
  static final long STUDY_FLUSH_BYTES = 256L << 20;

  /** RegionServer keys that shape flushes and in-memory compaction, with upstream's defaults. */
  static final Map<String, String> MEMSTORE_KEYS = Map.ofEntries(
    Map.entry(HConstants.HREGION_MEMSTORE_BLOCK_MULTIPLIER,
      String.valueOf(HConstants.DEFAULT_HREGION_MEMSTORE_BLOCK_MULTIPLIER)),
    Map.entry(MemorySizeUtil.MEMSTORE_SIZE_KEY, "0.4"),
    Map.entry(MemStoreLAB.USEMSLAB_KEY, String.valueOf(MemStoreLAB.USEMSLAB_DEFAULT)),
    Map.entry(MemStoreLAB.CHUNK_SIZE_KEY, String.valueOf(MemStoreLAB.CHUNK_SIZE_DEFAULT)),
    Map.entry(CompactingMemStore.IN_MEMORY_FLUSH_THRESHOLD_FACTOR_KEY,
      "0 (in-memory flush every chunk)"),
    Map.entry("hbase.hregion.compacting.pipeline.segments.limit", "2"),
    Map.entry(CompactingMemStore.COMPACTING_MEMSTORE_TYPE_KEY,
      CompactingMemStore.COMPACTING_MEMSTORE_TYPE_DEFAULT),
    Map.entry(HConstants.HREGION_MEMSTORE_FLUSH_SIZE,
      String.valueOf(TableDescriptorBuilder.DEFAULT_MEMSTORE_FLUSH_SIZE)),
    Map.entry(MemorySizeUtil.MEMSTORE_SIZE_LOWER_LIMIT_KEY, "0.95"),
    Map.entry(MemorySizeUtil.OFFHEAP_MEMSTORE_SIZE_KEY, "0"),
    Map.entry(MemStoreLAB.CHUNK_POOL_MAXSIZE_KEY,
      String.valueOf(MemStoreLAB.POOL_MAX_SIZE_DEFAULT)));

  static TableName tableName(MemoryCompactionPolicy p) {
    return TableName.valueOf("write_tail_" + p.name().toLowerCase(Locale.ROOT));
  }

  /** The embedded cluster's configuration for a run: its profile's keys, its memstore's heap. */
  static LocalClusterConfig clusterConfig(WriteTailBench.Settings s) {
    LocalClusterConfig config = new LocalClusterConfig().workDir(s.workDir())
      .dataNodes(s.dataNodes());
    PROFILES.get(s.profile()).forEach(config::hbase);
    BenchMonitor.hbaseKeys(s.monitorMs()).forEach(config::hbase);
    if (s.offheap()) {
      config.hbase(MemorySizeUtil.OFFHEAP_MEMSTORE_SIZE_KEY,
        String.valueOf(s.offheapMemstoreMb()));
    }
    return config;
  }

  /**
   * The on-heap global memstore this JVM's RegionServer gets (heap x its global memstore
   * fraction), MiB: the off-heap variant's default, so both flush under the same global limit.
   */
  static long onHeapMemstoreMb(WriteTailBench.Settings s) {
    double fraction = Double.parseDouble(PROFILES.get(s.profile())
      .getOrDefault(MemorySizeUtil.MEMSTORE_SIZE_KEY, MEMSTORE_KEYS.get(
        MemorySizeUtil.MEMSTORE_SIZE_KEY)));
    return Math.max(64, (long) (Runtime.getRuntime().maxMemory() * fraction) >> 20);
  }

  /** The off-heap bytes of the memstores of a table's regions, as the RegionServer counts them. */
  static long offheapBytes(EmbeddedHBase hbase, TableName table) {
    long bytes = 0;
    for (HRegion r : regions(hbase, table)) {
      bytes += r.getMemStoreOffHeapSize();
    }
    return bytes;
  }

  /**
   * {@code n - 1} split keys cutting the 16-hex-digit key space of {@link PutLoad#rowKey} into
   * {@code n} equal ranges, so that the mixed keys fall evenly into all regions.
   */
  static byte[][] splitKeys(int n) {
    byte[][] keys = new byte[n - 1][];
    long step = Long.divideUnsigned(-1L, n);
    for (int i = 1; i < n; i++) {
      keys[i - 1] = Bytes.toBytes(String.format(Locale.ROOT, "%016x", step * i));
    }
    return keys;
  }

  /** The policy's table: its family's in-memory compaction, the run's flush size, no splits. */
  static void createTable(EmbeddedHBase hbase, MemoryCompactionPolicy policy,
    WriteTailBench.Settings s) throws IOException {
    ColumnFamilyDescriptorBuilder family = ColumnFamilyDescriptorBuilder
      .newBuilder(PutLoad.FAMILY).setInMemoryCompaction(policy);
    if (s.inMemoryFlushFactor() != null) {
      // The store's configuration includes its family's: the compacting memstore reads it there.
      family.setConfiguration(CompactingMemStore.IN_MEMORY_FLUSH_THRESHOLD_FACTOR_KEY,
        String.valueOf(s.inMemoryFlushFactor()));
    }
    TableDescriptorBuilder table = TableDescriptorBuilder.newBuilder(tableName(policy))
      .setColumnFamily(family.build())
      .setMemStoreFlushSize(s.flushBytes())
      // The same regions per policy for the whole run: a split would change what each measures.
      .setRegionSplitPolicyClassName(DisabledRegionSplitPolicy.class.getName())
      .setCoprocessor(MemStoreActivityObserver.class.getName());
    if (s.regions() > 1) {
      hbase.connection().getAdmin().createTable(table.build(), splitKeys(s.regions()));
    } else {
      hbase.connection().getAdmin().createTable(table.build());
    }
  }

  static List<HRegion> regions(EmbeddedHBase hbase, TableName table) {
    List<HRegion> regions = new ArrayList<>();
    for (int i = 0; i < hbase.regionServerCount(); i++) {
      regions.addAll(hbase.regionServer(i).getRegions(table));
    }
    if (regions.isEmpty()) {
      throw new IllegalStateException("No open region of " + table + " on any RegionServer");
    }
    return regions;
  }

  private static MemStoreActivityObserver observer(HRegion region) {
    MemStoreActivityObserver o =
      region.getCoprocessorHost().findCoprocessor(MemStoreActivityObserver.class);
    if (o == null) {
      throw new IllegalStateException("Region " + region + " has not loaded "
        + MemStoreActivityObserver.class.getName());
    }
    return o;
  }

  /** Every ended flush of the table's regions, {@code [start, end]} nanoTime. */
  static List<long[]> flushIntervals(EmbeddedHBase hbase, TableName table) {
    List<long[]> all = new ArrayList<>();
    for (HRegion r : regions(hbase, table)) {
      all.addAll(observer(r).flushIntervals());
    }
    return all;
  }

  static Counts counts(EmbeddedHBase hbase, TableName table) {
    Counts c = Counts.ZERO;
    for (HRegion r : regions(hbase, table)) {
      c = c.plus(observer(r).counts());
    }
    return c;
  }

  /** The memstore of the table's family in its (single) region. */
  static MemStoreInspector.InEffect memstore(EmbeddedHBase hbase, TableName table) {
    return MemStoreInspector.of(regions(hbase, table).get(0).getStore(PutLoad.FAMILY));
  }

  /**
   * Waits until no flush or compaction is queued on any RegionServer and none, nor any in-memory
   * compaction, runs on the bench's regions; gives up (noting it) after {@link #SETTLE_LIMIT}.
   */
  static void settle(EmbeddedHBase hbase, Collection<TableName> tables, PrintStream out)
    throws InterruptedException {
    long deadline = System.nanoTime() + SETTLE_LIMIT.toNanos();
    while (!settled(hbase, tables)) {
      if (System.nanoTime() > deadline) {
        out.printf(Locale.ROOT, "  (flushes or compactions still running after %d s; going on)%n",
          SETTLE_LIMIT.toSeconds());
        return;
      }
      Thread.sleep(20);
    }
  }

  private static boolean settled(EmbeddedHBase hbase, Collection<TableName> tables) {
    for (int i = 0; i < hbase.regionServerCount(); i++) {
      HRegionServer rs = hbase.regionServer(i);
      if (rs.getMemStoreFlusher().getFlushQueueSize() > 0
        || rs.getCompactSplitThread().getCompactionQueueSize() > 0) {
        return false;
      }
    }
    for (TableName table : tables) {
      for (HRegion r : regions(hbase, table)) {
        if (!r.waitForFlushes(10) || r.getCompactionState() != CompactionState.NONE
          || observer(r).inMemoryCompactionRunning()) {
          return false;
        }
      }
    }
    return true;
  }
}
