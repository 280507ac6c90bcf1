package io.strata.hdfs.faults;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.util.EnumMap;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.StorageType;
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

/**
 * The in-process media emulation of {@link VolumeStallSwitch} on a real DataNode (the plugin
 * named in {@code dfs.datanode.plugins}, as {@code bin/strata-cluster} starts it) with an SSD and
 * a DISK volume: {@code strata.media.emulation.delay.us.disk} slows every operation on the DISK
 * volume by that much, the SSD volume, with no key, not at all; and a value out of range is
 * refused naming the key.
 */
public class VolumeMediaEmulationIT {
  /** Large enough to stand out of a loaded machine's noise. */
  private static final long DISK_DELAY_US = 50_000;
  private static MiniDFSCluster cluster;
  private static DataNode dn;
  private static final Map<StorageType, FsVolumeSpi> volumes = new EnumMap<>(StorageType.class);

  @BeforeClass
  public static void start() throws Exception {
    Configuration conf = new HdfsConfiguration();
    File base = new File("target/it-work/media-" + UUID.randomUUID().toString().substring(0, 8));
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, base.getAbsolutePath());
    conf.setInt(DFSConfigKeys.DFS_REPLICATION_KEY, 1);
    conf.set(DFSConfigKeys.DFS_DATANODE_PLUGINS_KEY, VolumeStallSwitch.class.getName());
    conf.setLong(FaultKeys.MEDIA_DELAY_US_PREFIX + "disk", DISK_DELAY_US);
    cluster = new MiniDFSCluster.Builder(conf, base).numDataNodes(1)
      .storageTypes(new StorageType[] { StorageType.SSD, StorageType.DISK }).build();
    cluster.waitActive();
    dn = cluster.getDataNodes().get(0);
    try (FsDatasetSpi.FsVolumeReferences refs = dn.getFSDataset().getFsVolumeReferences()) {
      for (FsVolumeSpi v : refs) {
        volumes.put(v.getStorageType(), v);
      }
    }
  }

  @AfterClass
  public static void stop() {
    if (cluster != null) {
      cluster.shutdown(true);
    }
  }

  /** Fastest of five {@code exists} calls on the volume, through the DataNode's I/O provider. */
  private static long existsMicros(FsVolumeSpi volume) {
    FileIoProvider io = dn.getFileIoProvider();
    File f = new File(new File(volume.getBaseURI()), "none");
    long best = Long.MAX_VALUE;
    for (int i = 0; i < 5; i++) {
      long t0 = System.nanoTime();
      io.exists(volume, f);
      best = Math.min(best, (System.nanoTime() - t0) / 1_000);
    }
    return best;
  }

  @Test
  public void everyOperationOnAVolumeOfTheTypeWaitsItsDelay() {
    assertEquals(volumes.toString(), 2, volumes.size());
    long disk = existsMicros(volumes.get(StorageType.DISK));
    long ssd = existsMicros(volumes.get(StorageType.SSD));
    assertTrue("DISK exists took " + disk + " us, delay " + DISK_DELAY_US + " us",
      disk >= DISK_DELAY_US);
    assertTrue("SSD exists took " + ssd + " us with no delay configured", ssd < DISK_DELAY_US / 2);
  }

  @Test
  public void outOfRangeIsRefusedNamingTheKey() {
    Configuration conf = new Configuration(false);
    conf.set(FaultKeys.MEDIA_DELAY_US_PREFIX + "ssd", "-1");
    try {
      FaultKeys.mediaDelayUs(conf, StorageType.SSD);
      throw new AssertionError("-1 accepted");
    } catch (IllegalArgumentException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("strata.media.emulation.delay.us.ssd"));
    }
    conf.set(FaultKeys.MEDIA_DELAY_US_PREFIX + "ssd", "80");
    assertEquals(80, FaultKeys.mediaDelayUs(conf, StorageType.SSD));
    assertEquals(0, FaultKeys.mediaDelayUs(conf, StorageType.ARCHIVE));
  }
}
