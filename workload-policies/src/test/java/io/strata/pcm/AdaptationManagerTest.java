package io.strata.pcm;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import org.junit.Test;

/** X, the pre-split count and the resolved values of the shipped policies. */
public class AdaptationManagerTest {
  private static final long GIB = 1L << 30;
  private static final long MIB = 1L << 20;

  private static Map<String, Recommendation.Setting> byKey(Recommendation r) {
    Map<String, Recommendation.Setting> m = new HashMap<>();
    r.settings().forEach(s -> m.put(s.key(), s));
    return m;
  }

  private static String value(Recommendation r, String key) {
    Recommendation.Setting s = byKey(r).get(key);
    return s == null ? null : s.value();
  }

  @Test
  public void xIsTheHeapInWholeGib() {
    assertEquals(1, AdaptationManager.x(0));
    assertEquals(1, AdaptationManager.x(GIB - 1));
    assertEquals(6, AdaptationManager.x(6 * GIB + 100 * MIB));
  }

  @Test
  public void heapIsTheRamShareWhenRamIsKnownElseTheCurrentHeap() {
    assertEquals(6 * GIB, AdaptationManager.heapBytes(0.75,
      new ClusterFacts(9, 1 * GIB, 8 * GIB, 0, 1)));
    assertEquals(3 * GIB, AdaptationManager.heapBytes(0.75,
      new ClusterFacts(9, 3 * GIB, 0, 0, 1)));
  }

  @Test
  public void preSplitIsNTimesTheServers() {
    assertEquals(36, AdaptationManager.preSplitRegions(4, 9));
    assertEquals(4, AdaptationManager.preSplitRegions(4, 0));
  }

  @Test
  public void bulkLoadOnThePapersSmallCluster() throws IOException {
    // cluster-small: 9 RegionServers, 8 GB RAM each; 10 million 1 KB records.
    AdaptationManager am = new AdaptationManager(PolicyLoader.load(null));
    long dataset = 10_000_000L * 1024;
    Recommendation r = am.recommend(WorkloadClass.BL,
      new ClusterFacts(9, GIB, 8 * GIB, dataset, 1));
    assertEquals(6, r.x());
    assertEquals(36, r.preSplitRegions());
    assertEquals(Long.toString(6 * 128 * MIB), value(r, PolicyKey.FLUSH_SIZE));
    assertEquals("6", value(r, PolicyKey.BLOCK_MULTIPLIER));
    assertEquals("18", value(r, PolicyKey.COMPACTION_THRESHOLD));
    assertEquals("18", value(r, PolicyKey.COMPACTION_MAX));
    assertEquals("60", value(r, PolicyKey.BLOCKING_STORE_FILES));
    // 10 GB of data over 36 regions is below 10 GB per region: 10 GB.
    assertEquals(Long.toString(10 * GIB), value(r, PolicyKey.MAX_FILESIZE));
    assertEquals(Long.toString(6 * GIB), value(r, PolicyKey.HEAP_RAM_FRACTION));
    assertEquals("36", value(r, PolicyKey.PRESPLIT_PER_SERVER));
    assertEquals(Scope.FAMILY_CONFIG, byKey(r).get(PolicyKey.COMPACTION_THRESHOLD).scope());
    assertEquals(PolicyKey.COMPACTION_MIN, byKey(r).get(PolicyKey.COMPACTION_THRESHOLD).target());
    assertEquals(Scope.TABLE, byKey(r).get(PolicyKey.GLOBAL_MEMSTORE).scope());
    assertEquals(PcmKeys.TABLE_MEMSTORE_SHARE, byKey(r).get(PolicyKey.GLOBAL_MEMSTORE).target());
    assertEquals(Scope.RESTART_SITE, byKey(r).get(PolicyKey.GLOBAL_MEMSTORE_LOWER).scope());
  }

  @Test
  public void maxFileSizeFollowsABigDataset() throws IOException {
    AdaptationManager am = new AdaptationManager(PolicyLoader.load(null));
    Recommendation r = am.recommend(WorkloadClass.BL,
      new ClusterFacts(2, 4 * GIB, 0, 200 * GIB, 1));
    // P = 4 x 2 = 8; 200 GB / 8 = 25 GB per region.
    assertEquals(8, r.preSplitRegions());
    assertEquals(Long.toString(25 * GIB), value(r, PolicyKey.MAX_FILESIZE));
  }

  @Test
  public void smallHeapKeepsHBasesFloors() throws IOException {
    AdaptationManager am = new AdaptationManager(PolicyLoader.load(null));
    Recommendation r = am.recommend(WorkloadClass.MIX_RW,
      new ClusterFacts(1, 512 * MIB, 0, 0, 1));
    assertEquals(1, r.x());
    assertEquals("2", value(r, PolicyKey.BLOCK_MULTIPLIER)); // max(2, X)
    assertEquals("3", value(r, PolicyKey.COMPACTION_THRESHOLD));
    assertEquals("10", value(r, PolicyKey.COMPACTION_MAX)); // never below HBase's default
    assertEquals(0, r.preSplitRegions());
  }

  @Test
  public void readPoliciesSetBlockSizeAndLeaveWriteKeysAlone() throws IOException {
    AdaptationManager am = new AdaptationManager(PolicyLoader.load(null));
    Recommendation r = am.recommend(WorkloadClass.RO_SCAN, new ClusterFacts(3, 4 * GIB,
      16 * GIB, 0, 3));
    assertEquals("131072", value(r, PolicyKey.BLOCKSIZE));
    assertEquals(Long.toString(8 * GIB), value(r, PolicyKey.HEAP_RAM_FRACTION)); // 0.5 x RAM
    assertNull(value(r, PolicyKey.FLUSH_SIZE));
  }

  @Test(expected = IllegalArgumentException.class)
  public void everyClassNeedsAPolicy() throws IOException {
    Map<WorkloadClass, Policy> some = new HashMap<>(PolicyLoader.load(null));
    some.remove(WorkloadClass.RM);
    new AdaptationManager(some);
  }
}
