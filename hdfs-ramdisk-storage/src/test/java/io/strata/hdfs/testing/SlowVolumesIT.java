package io.strata.hdfs.testing;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.File;
import java.io.FileOutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.datanode.FileIoProvider;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.FsDatasetSpi;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.FsVolumeSpi;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/** {@link SlowVolumes} on a real DataNode with two volumes: what it slows and what it leaves. */
public class SlowVolumesIT {
  private static MiniDFSCluster cluster;
  private static DataNode dn;
  private static final List<FsVolumeSpi> volumes = new ArrayList<>();

  @BeforeClass
  public static void start() throws Exception {
    Configuration conf = new HdfsConfiguration();
    File base = new File("target/it-work/slow-" + UUID.randomUUID().toString().substring(0, 8));
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, base.getAbsolutePath());
    conf.setLong(DFSConfigKeys.DFS_BLOCK_SIZE_KEY, 1 << 20);
    conf.setInt(DFSConfigKeys.DFS_REPLICATION_KEY, 1);
    cluster = new MiniDFSCluster.Builder(conf, base).numDataNodes(1).storagesPerDatanode(2)
      .build();
    cluster.waitActive();
    dn = cluster.getDataNodes().get(0);
    try (FsDatasetSpi.FsVolumeReferences refs = dn.getFSDataset().getFsVolumeReferences()) {
      for (FsVolumeSpi v : refs) {
        volumes.add(v);
      }
    }
  }

  @AfterClass
  public static void stop() {
    if (cluster != null) {
      cluster.shutdown(true);
    }
  }

  /** Fastest of three {@code exists} calls on the volume, through the DataNode's I/O provider. */
  private static long existsMillis(FsVolumeSpi volume) {
    FileIoProvider io = dn.getFileIoProvider();
    File f = new File(dir(volume), "none");
    long best = Long.MAX_VALUE;
    for (int i = 0; i < 3; i++) {
      long t0 = System.nanoTime();
      io.exists(volume, f);
      best = Math.min(best, (System.nanoTime() - t0) / 1_000_000);
    }
    return best;
  }

  @Test
  public void slowsOnlyTheChosenVolumeUntilCleared() {
    FsVolumeSpi slow = volumes.get(0);
    FsVolumeSpi fast = volumes.get(1);
    try (SlowVolumes sv = SlowVolumes.install(dn)) {
      sv.slow(slow, Duration.ofMillis(60));
      assertTrue(existsMillis(slow) >= 60);
      assertTrue(existsMillis(fast) < 30);
      assertEquals(3, sv.delayedOps(slow.getStorageID()));
      assertEquals(0, sv.delayedOps(fast.getStorageID()));
      sv.clear(slow);
      assertTrue(existsMillis(slow) < 30);
    }
  }

  @Test
  public void capsBandwidthOnTheVolumesTimeline() throws Exception {
    FsVolumeSpi volume = volumes.get(1);
    File f = new File(dir(volume), "bandwidth-probe");
    FileIoProvider io = dn.getFileIoProvider();
    try (SlowVolumes sv = SlowVolumes.install(dn)) {
      sv.slow(volume, Duration.ZERO, 1 << 20);
      long t0 = System.nanoTime();
      try (FileOutputStream out = io.getFileOutputStream(volume, f)) {
        byte[] chunk = new byte[64 << 10];
        for (int i = 0; i < 8; i++) {
          out.write(chunk);
        }
      }
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertTrue("512 KiB at 1 MiB/s take 500 ms or more: " + ms, ms >= 500);
      assertTrue("and not much more: " + ms, ms < 3000);
      assertEquals(8L * (64 << 10), sv.bytesWritten(volume.getStorageID()));
      assertEquals(0, sv.bytesWritten(volumes.get(0).getStorageID()));
    } finally {
      io.delete(volume, f);
    }
  }

  @Test
  public void slowsTheDataNodesBlockWritesAndUninstallsCleanly() throws Exception {
    SlowVolumes sv = SlowVolumes.install(dn);
    try {
      try {
        SlowVolumes.install(dn);
        fail("a second install must be refused");
      } catch (IllegalStateException expected) {
        // the first one stays in place
      }
      for (FsVolumeSpi v : volumes) {
        sv.slow(v, Duration.ofMillis(20));
      }
      long t0 = System.nanoTime();
      try (FSDataOutputStream out = cluster.getFileSystem().create(new Path("/slowed"))) {
        out.write(new byte[1 << 20]);
      }
      long ms = (System.nanoTime() - t0) / 1_000_000;
      long delayed = sv.delayedOps(volumes.get(0).getStorageID())
        + sv.delayedOps(volumes.get(1).getStorageID());
      // 1 MiB is 16 packets, each written to one volume, one after the other.
      assertTrue("block I/O went through the hook: " + delayed + " ops", delayed >= 16);
      assertTrue("the write took the delays: " + ms + " ms", ms >= 16 * 20);
      long written = sv.bytesWritten(volumes.get(0).getStorageID())
        + sv.bytesWritten(volumes.get(1).getStorageID());
      // The block's data plus its checksums (4 bytes per 512) and the meta file's header.
      assertTrue("counted the block and its checksums: " + written,
        written >= (1 << 20) + (1 << 20) / 512 * 4 && written < (1 << 20) + (64 << 10));
    } finally {
      sv.uninstall();
    }
    sv.slow(volumes.get(0), Duration.ofSeconds(10));
    assertTrue("uninstalled: no delay any more", existsMillis(volumes.get(0)) < 1000);
    SlowVolumes.install(dn).uninstall();
  }

  private static File dir(FsVolumeSpi volume) {
    return new File(volume.getBaseURI());
  }
}
