package io.strata.local;

import io.strata.hdfs.ramdisk.RamDiskDirectory;
import io.strata.hdfs.sps.InProcessSatisfier;
import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A MiniDFSCluster whose DataNodes each have four volumes, one per tier: NVDIMM (Strata's RAM
 * tier, in a RAM-backed directory), SSD, DISK and ARCHIVE (directories under the work dir), plus
 * the external Storage Policy Satisfier in the same JVM.
 */
public final class TieredDfsCluster implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(TieredDfsCluster.class);

  /** The volumes of every DataNode, in this order. */
  public static final StorageType[] TIERS =
    { StorageType.NVDIMM, StorageType.SSD, StorageType.DISK, StorageType.ARCHIVE };

  private final LocalClusterConfig config;
  private final MiniDFSCluster dfs;
  private final InProcessSatisfier satisfier;
  private final File ramRoot;

  private TieredDfsCluster(LocalClusterConfig config, MiniDFSCluster dfs,
    InProcessSatisfier satisfier, File ramRoot) {
    this.config = config;
    this.dfs = dfs;
    this.satisfier = satisfier;
    this.ramRoot = ramRoot;
  }

  public static TieredDfsCluster start(LocalClusterConfig config) throws IOException {
    int n = config.dataNodes();
    File ramRoot = config.ramDir();
    RamDiskDirectory ram = RamDiskDirectory.prepare(ramRoot, n * config.ramBytesPerDataNode());
    if (!ram.isRamBacked()) {
      LOG.warn("RAM tier directory {} is on {}, not tmpfs/ramfs: NVDIMM volumes will have disk "
        + "speed", ramRoot, ram.fileSystemType());
    }
    File dfsBase = new File(config.workDir(), "dfs");
    // A fresh namespace every time: volumes left from an earlier run carry its cluster id.
    FileUtil.fullyDelete(dfsBase);
    for (int i = 0; i < n; i++) {
      FileUtil.fullyDelete(new File(ramRoot, "dn" + i));
    }
    Configuration conf = new HdfsConfiguration();
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, dfsBase.getAbsolutePath());
    conf.set(DFSConfigKeys.DFS_STORAGE_POLICY_SATISFIER_MODE_KEY, "external");
    conf.setBoolean(DFSConfigKeys.DFS_STORAGE_POLICY_ENABLED_KEY, true);
    conf.setInt(DFSConfigKeys.DFS_HEARTBEAT_INTERVAL_KEY, 1);
    conf.setLong(DFSConfigKeys.DFS_BLOCK_SIZE_KEY, config.blockSizeBytes());
    config.dfsOverrides().forEach(conf::set);

    Configuration[] overlays = new Configuration[n];
    long[][] capacities = new long[n][];
    for (int i = 0; i < n; i++) {
      File ramVolume = new File(ramRoot, "dn" + i);
      File diskBase = new File(dfsBase, "dn" + i);
      String dirs = String.join(",",
        RamDiskDirectory.dataDirEntry(ramVolume),
        "[SSD]" + new File(diskBase, "ssd").getAbsolutePath(),
        "[DISK]" + new File(diskBase, "disk").getAbsolutePath(),
        "[ARCHIVE]" + new File(diskBase, "archive").getAbsolutePath());
      Configuration overlay = new Configuration(false);
      overlay.set(DFSConfigKeys.DFS_DATANODE_DATA_DIR_KEY, dirs);
      overlays[i] = overlay;
      // The RAM tier is capped; the others report their file system's real space unless set.
      capacities[i] = new long[] { config.ramBytesPerDataNode(), config.ssdBytesPerDataNode(),
        -1L, -1L };
    }
    MiniDFSCluster dfs = new MiniDFSCluster.Builder(conf, dfsBase)
      .numDataNodes(n)
      .storagesPerDatanode(TIERS.length)
      .manageDataDfsDirs(false)
      .dataNodeConfOverlays(overlays)
      .storageCapacities(capacities)
      .format(true)
      .build();
    InProcessSatisfier satisfier = null;
    try {
      dfs.waitActive();
      if (config.startSatisfier()) {
        satisfier = InProcessSatisfier.start(dfs.getConfiguration(0), dfs.getURI());
      }
    } catch (IOException | RuntimeException e) {
      dfs.shutdown(true);
      throw e;
    }
    LOG.info("HDFS up at {}: {} DataNodes x [NVDIMM {} MiB in {}, SSD, DISK, ARCHIVE]",
      dfs.getURI(), n, config.ramBytesPerDataNode() >> 20, ramRoot);
    return new TieredDfsCluster(config, dfs, satisfier, ramRoot);
  }

  public MiniDFSCluster miniCluster() {
    return dfs;
  }

  public URI uri() {
    return dfs.getURI();
  }

  public Configuration configuration() {
    return dfs.getConfiguration(0);
  }

  public DistributedFileSystem fileSystem() throws IOException {
    return dfs.getFileSystem();
  }

  public LocalClusterConfig config() {
    return config;
  }

  @Override
  public void close() throws IOException {
    try {
      if (satisfier != null) {
        satisfier.close();
      }
    } finally {
      dfs.shutdown(true);
      if (!config.keepData()) {
        FileUtil.fullyDelete(ramRoot);
      }
    }
  }
}
