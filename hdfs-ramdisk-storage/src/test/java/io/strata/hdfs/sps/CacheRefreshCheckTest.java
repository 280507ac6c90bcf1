package io.strata.hdfs.sps;

import static org.junit.Assert.assertFalse;

import org.apache.hadoop.hdfs.server.namenode.sps.DatanodeCacheManager;
import org.junit.Test;

/**
 * This module runs on upstream's hadoop-hdfs (no overlay): the check must see that its
 * DataNode cache does not refresh on first use, so that the in-process satisfier falls back.
 * (local-cluster's SatisfierSupervisionIT checks the overlay's patched class.)
 */
public class CacheRefreshCheckTest {
  @Test
  public void upstreamCacheDoesNotRefreshOnFirstUse() {
    String from = DatanodeCacheManager.class.getProtectionDomain().getCodeSource().getLocation()
      .getPath();
    assertFalse("DatanodeCacheManager from " + from, CacheRefreshCheck.refreshesOnFirstUse());
  }
}
