package io.strata.hdfs.chooser;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.strata.hdfs.HdfsKeys;
import io.strata.hdfs.testing.BlockPlacement;
import io.strata.hdfs.testing.OneDataNodeCluster;
import io.strata.hdfs.testing.SlowVolumes;
import java.io.File;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.RoundRobinVolumeChoosingPolicy;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.VolumeChoosingPolicy;
import org.junit.Test;

/**
 * One DataNode with four DISK volumes, one of them slowed by 50 ms per I/O operation
 * ({@link SlowVolumes}), 1 MiB blocks, replication 1: the latency-aware policy gives the slow
 * volume almost no new blocks under sustained writes and takes it back once it is fast again;
 * round-robin, the control, keeps giving it its quarter. With two volumes and the fast one full,
 * the slow one takes the blocks rather than a write failing.
 */
public class LatencyAwareVolumeChoosingPolicyIT {
  private static final int BLOCK = 1 << 20;
  private static final int VOLUMES = 4;
  private static final int SLOW = 2;
  private static final Duration DELAY = Duration.ofMillis(50);

  private static MiniDFSCluster start(Class<? extends VolumeChoosingPolicy> policy)
    throws IOException {
    return start(policy, new long[VOLUMES]);
  }

  /** One DataNode with a DISK volume per capacity (0: the file system's). */
  private static MiniDFSCluster start(Class<? extends VolumeChoosingPolicy> policy,
    long[] capacities) throws IOException {
    File base = new File("target/it-work/chooser-" + UUID.randomUUID().toString().substring(0, 8));
    Configuration conf = OneDataNodeCluster.conf(base, policy, BLOCK);
    conf.setLong(HdfsKeys.CHOOSER_PROBE_INTERVAL_MS, 250);
    conf.setLong(
      DFSConfigKeys.DFS_DATANODE_ROUND_ROBIN_VOLUME_CHOOSING_POLICY_ADDITIONAL_AVAILABLE_SPACE_KEY,
      0);
    return OneDataNodeCluster.start(conf, base, capacities);
  }

  /** Writes {@code files} files of {@code blocks} blocks each, two writers at a time. */
  private static List<Path> write(DistributedFileSystem fs, String dir, int files, int blocks)
    throws Exception {
    return OneDataNodeCluster.write(fs, dir, files, (long) blocks * BLOCK, BLOCK, 2, null);
  }

  private static long total(Map<String, Long> counts) {
    return counts.values().stream().mapToLong(Long::longValue).sum();
  }

  @Test
  public void slowVolumeGetsNoNewBlocksUntilItRecovers() throws Exception {
    MiniDFSCluster cluster = start(LatencyAwareVolumeChoosingPolicy.class);
    try (SlowVolumes slow = SlowVolumes.install(cluster.getDataNodes().get(0))) {
      DataNode dn = cluster.getDataNodes().get(0);
      DistributedFileSystem fs = cluster.getFileSystem();
      String slowId = BlockPlacement.storageIds(dn).get(SLOW);
      // The DataNode has been writing for a while: every volume is probed.
      write(fs, "/warmup", 2, 4);

      slow.slow(slowId, DELAY);
      long t0 = System.nanoTime();
      List<Path> files = write(fs, "/slow", 16, 5);
      double seconds = (System.nanoTime() - t0) / 1e9;
      Map<String, Long> counts = BlockPlacement.blocksPerVolume(dn, fs, files);
      System.out.printf("slow phase: %s in %.1f s, slow volume %s%n", counts, seconds, slowId);
      assertEquals(80, total(counts));
      assertTrue("at most 5% of new blocks on the slow volume: " + counts,
        counts.get(slowId) <= 4);
      assertTrue("the slowdown was in effect", slow.delayedOps(slowId) > 0);
      for (String id : counts.keySet()) {
        if (!id.equals(slowId)) {
          assertTrue("the others share the blocks: " + counts, counts.get(id) >= 18);
        }
      }

      slow.clear(slowId);
      long cleared = System.nanoTime();
      List<Path> after = new ArrayList<>();
      long back = 0;
      for (int round = 0; back == 0 && round < 60; round++) {
        after.addAll(write(fs, "/recovered/r" + round, 2, 2));
        back = BlockPlacement.blocksPerVolume(dn, fs, after).get(slowId);
      }
      double recovery = (System.nanoTime() - cleared) / 1e9;
      System.out.printf("recovered volume got a block again %.1f s after the slowdown ended%n",
        recovery);
      assertTrue("the recovered volume gets new blocks again", back > 0);
      assertTrue("within seconds: " + recovery + " s", recovery < 15);

      List<Path> fair = write(fs, "/fair", 8, 5);
      counts = BlockPlacement.blocksPerVolume(dn, fs, fair);
      System.out.printf("after recovery: %s%n", counts);
      assertTrue("about a quarter again once all are fast: " + counts,
        counts.get(slowId) >= 7 && counts.get(slowId) <= 13);
    } finally {
      cluster.shutdown(true);
    }
  }

  @Test
  public void slowVolumeTakesTheBlocksWhenTheFastOneIsFull() throws Exception {
    // Two volumes: the fast one holds 3 blocks, the slow one has the file system's space.
    MiniDFSCluster cluster = start(LatencyAwareVolumeChoosingPolicy.class,
      new long[] { 3L * BLOCK + (BLOCK / 2), 0 });
    try (SlowVolumes slow = SlowVolumes.install(cluster.getDataNodes().get(0))) {
      DataNode dn = cluster.getDataNodes().get(0);
      DistributedFileSystem fs = cluster.getFileSystem();
      List<String> ids = BlockPlacement.storageIds(dn);
      String fastId = ids.get(0);
      String slowId = ids.get(1);
      slow.slow(slowId, Duration.ofMillis(20));
      List<Path> all = new ArrayList<>(write(fs, "/warmup", 1, 1));
      Thread.sleep(1000);

      List<Path> files = write(fs, "/full", 4, 2);
      all.addAll(files);
      Map<String, Long> counts = BlockPlacement.blocksPerVolume(dn, fs, all);
      System.out.printf("full fast volume: %s (fast %s, slow %s)%n", counts, fastId, slowId);
      assertEquals("every block written", 8 + 1, total(counts));
      assertTrue("the fast volume filled up first: " + counts, counts.get(fastId) >= 2);
      assertTrue("the slow volume took the rest instead of failing the writes: " + counts,
        counts.get(slowId) >= 5);
      for (Path f : files) {
        assertEquals(2L * BLOCK, fs.getFileStatus(f).getLen());
      }
    } finally {
      cluster.shutdown(true);
    }
  }

  @Test
  public void roundRobinKeepsGivingTheSlowVolumeItsQuarter() throws Exception {
    MiniDFSCluster cluster = start(RoundRobinVolumeChoosingPolicy.class);
    try (SlowVolumes slow = SlowVolumes.install(cluster.getDataNodes().get(0))) {
      DataNode dn = cluster.getDataNodes().get(0);
      DistributedFileSystem fs = cluster.getFileSystem();
      String slowId = BlockPlacement.storageIds(dn).get(SLOW);
      slow.slow(slowId, DELAY);
      long t0 = System.nanoTime();
      List<Path> files = write(fs, "/slow", 4, 4);
      double seconds = (System.nanoTime() - t0) / 1e9;
      Map<String, Long> counts = BlockPlacement.blocksPerVolume(dn, fs, files);
      System.out.printf("round-robin: %s in %.1f s, slow volume %s%n", counts, seconds, slowId);
      assertEquals(16, total(counts));
      assertTrue("about a quarter of the blocks: " + counts,
        counts.get(slowId) >= 3 && counts.get(slowId) <= 5);
    } finally {
      cluster.shutdown(true);
    }
  }
}
