package io.strata.bench.faults;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import io.strata.local.TestClusters;
import io.strata.local.TieredDfsCluster;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.junit.Test;

/**
 * {@code ram-tier-full}'s fill files on a real HDFS: a fill file no DataNode takes (every
 * pipeline refused, as when each RAM volume is fuller than the NameNode's last heartbeat said)
 * ends the fill with the reason; it must not end the fault, or the campaign, with an exception.
 * HDFS's output stream throws the same exception from a write and from its close, which a
 * try-with-resources turns into "Self-suppression not permitted".
 */
public class RamTierFillIT {

  @Test(timeout = 300_000)
  public void aFillFileNoDataNodeTakesIsAReasonNotAnException() throws Exception {
    try (TieredDfsCluster cluster = TieredDfsCluster.start(TestClusters.small("ram-fill")
      .startSatisfier(false))) {
      DistributedFileSystem dfs = cluster.fileSystem();
      Path dir = new Path("/strata-chaos-fill");
      dfs.mkdirs(dir);
      dfs.setStoragePolicy(dir, "ALL_NVDIMM");
      long bytes = (long) TierFaults.FILL_FILE_MB << 20; // as the fault writes them
      assertNull("a fill file the tier takes", TierFaults.writeFill(dfs, new Path(dir, "fill-0"),
        bytes, (short) 3));
      assertEquals(bytes, dfs.getFileStatus(new Path(dir, "fill-0")).getLen());

      cluster.miniCluster().shutdownDataNodes();
      String refused = TierFaults.writeFill(dfs, new Path(dir, "fill-1"), bytes, (short) 3);
      assertNotNull("a fill file no DataNode takes is refused", refused);
      assertTrue(refused, refused.contains("fill-1"));
      assertTrue(refused, refused.contains("minReplication"));
      assertFalse(refused, refused.contains("Self-suppression"));
    }
  }
}
