package io.strata.pcm;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.strata.local.TestClusters;
import java.io.File;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.io.util.MemorySizeUtil;
import org.apache.hadoop.hbase.regionserver.HRegionServer;
import org.apache.hadoop.hbase.regionserver.MetricsRegionServerWrapper;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.ClassRule;
import org.junit.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PCM's heap shares applied online on a real RegionServer: with {@link PcmHeapTuner} as its heap
 * memory tuner (and {@link PcmHeapRegistrar} loaded) and tuning ranges set, a RegionServer serving
 * a table PCM applied the WO-Insert policy to moves its memstore and block-cache shares to that
 * policy's (0.6 / 0.1), then, after the table's class becomes RO-Read, to RO-Read's (0.1 / 0.6),
 * step by step and without a restart (the same start code); after {@code revert} it steps back to
 * the site's shares. The shares are read from what the
 * RegionServer's metrics publish (memstore limit, block cache size plus free size).
 */
public class PcmHeapTunerIT {
  private static final Logger LOG = LoggerFactory.getLogger(PcmHeapTunerIT.class);
  private static final byte[] FAMILY = Bytes.toBytes("f");
  /** Within this share of the heap counts as at the target (HeapMemoryManager rounds bytes). */
  private static final double TOLERANCE = 0.005;

  @ClassRule
  public static final TestClusters.Running CLUSTER = TestClusters.running(
    TestClusters.small("pcmheap").regionServers(1)
      // The tuner and the coprocessor that shows it the server's regions.
      .hbase("hbase.regionserver.heapmemory.tuner.class", "io.strata.pcm.PcmHeapTuner")
      // Strata's WAL durability guard stays loaded (an override replaces the site's list).
      .hbase("hbase.coprocessor.regionserver.classes",
        "io.strata.hbase.tiering.WalDurabilityGuard,io.strata.pcm.PcmHeapRegistrar")
      // Start from 0.35 / 0.35; the operator lets each share move from 0.1 to 0.6.
      .hbase("hbase.regionserver.global.memstore.size", "0.35")
      .hbase("hfile.block.cache.size", "0.35")
      .hbase("hbase.regionserver.global.memstore.size.min.range", "0.1")
      .hbase("hbase.regionserver.global.memstore.size.max.range", "0.6")
      .hbase("hfile.block.cache.size.min.range", "0.1")
      .hbase("hfile.block.cache.size.max.range", "0.6")
      // A step each second, of at most 0.1: five periods from one policy to the other.
      .hbase("hbase.regionserver.heapmemory.tuner.period", "1000")
      .hbase(PcmKeys.HEAP_TUNER_STEP, "0.1")
      // HeapMemoryManager skips tuning while used / committed heap is above this mark (0.95);
      // the test JVM's shared heap may sit there between collections, which is not what is
      // tested here.
      .hbase("hbase.heap.occupancy.low_water_mark", "1.01"));

  /** What {@code strata pcm apply --table T --class C --execute --state DIR} passes. */
  private static PcmTool.Request apply(TableName table, String workloadClass, File state) {
    PcmTool.Request r = new PcmTool.Request();
    r.table = table.getNameAsString();
    r.workloadClass = workloadClass;
    r.execute = true;
    r.state = state;
    return r;
  }

  @Test
  public void sharesFollowTheTablesClassWithoutARestart() throws Exception {
    TableName name = TableName.valueOf("pcm_heap");
    Admin admin = CLUSTER.hbase().connection().getAdmin();
    admin.createTable(TableDescriptorBuilder.newBuilder(name)
      .setColumnFamily(ColumnFamilyDescriptorBuilder.of(FAMILY)).build());
    HRegionServer rs = CLUSTER.hbase().regionServer(0);
    long startCode = rs.getServerName().getStartcode();
    double[] initial = shares(rs);
    LOG.info("Shares at start: memstore {}, block cache {}", initial[0], initial[1]);
    assertEquals(0.35, initial[0], TOLERANCE);
    assertEquals(0.35, initial[1], TOLERANCE);

    File state = new File("target/pcm-it/" + System.nanoTime(), "state");
    Configuration conf = new Configuration(CLUSTER.hbase().configuration());
    assertEquals(0, PcmTool.run("apply", apply(name, "WO-Insert", state), conf));
    awaitShares(rs, name, 0.6, 0.1, true);
    assertEquals("WO-Insert", admin.getDescriptor(name).getValue(PcmKeys.TABLE_CLASS));
    assertEquals(startCode, rs.getServerName().getStartcode());

    assertEquals(0, PcmTool.run("apply", apply(name, "RO-Read", state), conf));
    awaitShares(rs, name, 0.1, 0.6, false);
    assertEquals("RO-Read", admin.getDescriptor(name).getValue(PcmKeys.TABLE_CLASS));

    // Revert unsets the table's shares: the server steps back to the site's 0.35 / 0.35.
    PcmTool.Request revert = new PcmTool.Request();
    revert.table = name.getNameAsString();
    revert.state = state;
    assertEquals(0, PcmTool.run("revert", revert, conf));
    assertEquals(null, admin.getDescriptor(name).getValue(PcmKeys.TABLE_MEMSTORE_SHARE));
    awaitShares(rs, name, 0.35, 0.35, false);
    assertEquals(startCode, rs.getServerName().getStartcode());
    assertEquals(1, CLUSTER.hbase().regionServerCount());
    assertEquals(startCode, admin.getRegionServers().iterator().next().getStartcode());
  }

  /**
   * Waits for the shares to reach ({@code mem}, {@code cache}) while a write or read load runs on
   * the table, checking that no period moves a share by more than the step.
   */
  private static void awaitShares(HRegionServer rs, TableName name, double mem, double cache,
    boolean writes) throws Exception {
    long deadline = System.currentTimeMillis() + 120_000;
    double[] last = shares(rs);
    List<String> seen = new ArrayList<>();
    seen.add(fmt(last));
    try (Table t = CLUSTER.hbase().connection().getTable(name)) {
      int i = 0;
      while (System.currentTimeMillis() < deadline) {
        byte[] row = Bytes.toBytes(String.format("row%06d", i++ % 1000));
        if (writes) {
          t.put(new Put(row).addColumn(FAMILY, Bytes.toBytes("q"), new byte[100]));
        } else {
          t.get(new Get(row));
        }
        double[] now = shares(rs);
        if (Math.abs(now[0] - last[0]) > 1e-4 || Math.abs(now[1] - last[1]) > 1e-4) {
          seen.add(fmt(now));
          // One tuner period moves each share by at most the step (0.1); a sample may span two.
          assertTrue(seen.toString(), Math.abs(now[0] - last[0]) <= 0.2 + TOLERANCE);
          assertTrue(seen.toString(), Math.abs(now[1] - last[1]) <= 0.2 + TOLERANCE);
          // Never away from the target (as a period falling into the regions' reopen once did).
          assertTrue(seen.toString(), Math.abs(now[0] - mem) <= Math.abs(last[0] - mem) + 1e-4);
          assertTrue(seen.toString(),
            Math.abs(now[1] - cache) <= Math.abs(last[1] - cache) + 1e-4);
          last = now;
        }
        if (Math.abs(now[0] - mem) <= TOLERANCE && Math.abs(now[1] - cache) <= TOLERANCE) {
          LOG.info("Shares of {} reached memstore {}, block cache {} through {}", name, mem,
            cache, seen);
          assertTrue("more than one step " + seen, seen.size() >= 3);
          return;
        }
        Thread.sleep(20);
      }
    }
    throw new AssertionError("the RegionServer's shares did not reach memstore " + mem
      + ", block cache " + cache + " in 120 s; they went " + seen);
  }

  /** Memstore and block-cache shares of the heap, as the RegionServer's metrics publish them. */
  private static double[] shares(HRegionServer rs) {
    MetricsRegionServerWrapper m = rs.getMetrics().getRegionServerWrapper();
    double heap = MemorySizeUtil.safeGetHeapMemoryUsage().getMax();
    return new double[] { m.getMemStoreLimit() / heap,
      (m.getBlockCacheSize() + m.getBlockCacheFreeSize()) / heap };
  }

  private static String fmt(double[] s) {
    return String.format("%.3f/%.3f", s[0], s[1]);
  }
}
