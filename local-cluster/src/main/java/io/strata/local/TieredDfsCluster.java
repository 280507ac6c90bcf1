package io.strata.local;

import io.strata.hdfs.HdfsKeys;
import io.strata.hdfs.ramdisk.RamDiskDirectory;
import io.strata.hdfs.sps.InProcessSatisfier;
import io.strata.hdfs.sps.MoverIdHolder;
import io.strata.hdfs.sps.SatisfierHealth;
import io.strata.hdfs.tiermover.TierMover;
import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.server.blockmanagement.BlockStoragePolicySuite;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A MiniDFSCluster whose DataNodes each have one volume per tier: NVDIMM (Strata's RAM tier, in a
 * RAM-backed directory), SSD, DISK and ARCHIVE (directories under the work dir), plus the
 * external Storage Policy Satisfier and the tier mover in the same JVM. A DataNode can have more
 * than one SSD volume ({@link LocalClusterConfig#ssdVolumesPerDataNode}); they follow the NVDIMM
 * volume.
 */
public final class TieredDfsCluster implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(TieredDfsCluster.class);
  /** Strata's HDFS keys (hdfs-ramdisk-storage's resource), as every cluster has them. */
  public static final String STRATA_HDFS_SITE = "strata-hdfs-site.xml";

  /** The tiers of every DataNode's volumes, in this order (SSD once per SSD volume). */
  public static final StorageType[] TIERS =
    { StorageType.NVDIMM, StorageType.SSD, StorageType.DISK, StorageType.ARCHIVE };

  private final LocalClusterConfig config;
  private final MiniDFSCluster dfs;
  private final InProcessSatisfier satisfier;
  private final TierMover tierMover;
  private final File ramRoot;

  private TieredDfsCluster(LocalClusterConfig config, MiniDFSCluster dfs,
    InProcessSatisfier satisfier, TierMover tierMover, File ramRoot) {
    this.config = config;
    this.dfs = dfs;
    this.satisfier = satisfier;
    this.tierMover = tierMover;
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
    // Strata's HDFS keys, as every cluster of the project has them (storage policies, the
    // external satisfier and its pace, the RAM_SSD policy): one resource, checked against the
    // install's snippet.
    conf.addResource(STRATA_HDFS_SITE);
    conf.setInt(DFSConfigKeys.DFS_HEARTBEAT_INTERVAL_KEY, 1);
    conf.setLong(DFSConfigKeys.DFS_BLOCK_SIZE_KEY, config.blockSizeBytes());
    // The NameNode sees free space one heartbeat late: keep two blocks of headroom per storage
    // type so a filling RAM tier makes it fall back to DISK before a DataNode refuses a block.
    conf.setInt(DFSConfigKeys.DFS_NAMENODE_BLOCKPLACEMENTPOLICY_MIN_BLOCKS_FOR_WRITE_KEY, 2);
    // strata satisfier / tier-mover started on this cluster's configuration (tests run them as
    // processes or through their tools) serve HTTP on a free port, never on the fixed defaults
    // that another cluster on the machine may hold.
    conf.set(HdfsKeys.SPS_HTTP_ADDRESS, "127.0.0.1:0");
    conf.set(HdfsKeys.TIERMOVER_HTTP_ADDRESS, "127.0.0.1:0");
    config.dfsOverrides().forEach(conf::set);

    Configuration[] overlays = new Configuration[n];
    long[][] capacities = new long[n][];
    int ssdVolumes = config.ssdVolumesPerDataNode();
    for (int i = 0; i < n; i++) {
      File ramVolume = new File(ramRoot, "dn" + i);
      File diskBase = new File(dfsBase, "dn" + i);
      List<String> dirs = new ArrayList<>();
      List<Long> caps = new ArrayList<>();
      dirs.add(RamDiskDirectory.dataDirEntry(ramVolume));
      // The RAM tier is capped; the others report their file system's real space unless set.
      caps.add(config.ramBytesPerDataNode());
      for (int v = 0; v < ssdVolumes; v++) {
        // The single-SSD layout keeps its historical directory name.
        String name = ssdVolumes == 1 ? "ssd" : "ssd" + v;
        dirs.add("[SSD]" + new File(diskBase, name).getAbsolutePath());
        caps.add(config.ssdBytesPerDataNode());
      }
      dirs.add("[DISK]" + new File(diskBase, "disk").getAbsolutePath());
      caps.add(-1L);
      dirs.add("[ARCHIVE]" + new File(diskBase, "archive").getAbsolutePath());
      caps.add(-1L);
      Configuration overlay = new Configuration(false);
      overlay.set(DFSConfigKeys.DFS_DATANODE_DATA_DIR_KEY, String.join(",", dirs));
      overlays[i] = overlay;
      capacities[i] = caps.stream().mapToLong(Long::longValue).toArray();
    }
    MiniDFSCluster dfs = new MiniDFSCluster.Builder(conf, dfsBase)
      .numDataNodes(n)
      .storagesPerDatanode(TIERS.length - 1 + ssdVolumes)
      .manageDataDfsDirs(false)
      .dataNodeConfOverlays(overlays)
      .storageCapacities(capacities)
      .format(true)
      .build();
    InProcessSatisfier satisfier = null;
    TierMover tierMover = null;
    try {
      dfs.waitActive();
      if (config.startSatisfier()) {
        satisfier = InProcessSatisfier.start(dfs.getConfiguration(0), dfs.getURI());
      }
      if (config.startTierMover()) {
        // The namespace is new: an earlier run's position means nothing to it.
        java.nio.file.Path state = new File(config.workDir(), "tier-mover.state").toPath();
        Files.deleteIfExists(state);
        tierMover = TierMover.start(dfs.getConfiguration(0), dfs.getURI(), state, satisfier);
      }
    } catch (IOException | RuntimeException e) {
      closeQuietly(tierMover);
      closeQuietly(satisfier);
      dfs.shutdown(true);
      throw e;
    }
    LOG.info("HDFS up at {}: {} DataNodes x [NVDIMM {} MiB in {}, {} SSD, DISK, ARCHIVE]; "
      + "patched HDFS classes from {}", dfs.getURI(), n, config.ramBytesPerDataNode() >> 20,
      ramRoot, ssdVolumes, overlaySource());
    return new TieredDfsCluster(config, dfs, satisfier, tierMover, ramRoot);
  }

  /** Where the NameNode's policy suite class came from: the overlay jar, if it is in effect. */
  static String overlaySource() {
    return BlockStoragePolicySuite.class.getProtectionDomain().getCodeSource().getLocation()
      .getPath();
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

  /** The in-process Storage Policy Satisfier, or null when it is not started. */
  public InProcessSatisfier satisfier() {
    return satisfier;
  }

  /**
   * Whether a satisfier serves this namespace: the in-process one's own view, or else whether
   * any process holds the NameNode's mover id file.
   */
  public SatisfierHealth satisfierHealth() throws IOException {
    return satisfier != null ? satisfier : new MoverIdHolder(fileSystem());
  }

  /** The in-process tier mover, or null when it is not started. */
  public TierMover tierMover() {
    return tierMover;
  }

  private static void closeQuietly(Closeable c) {
    if (c != null) {
      try {
        c.close();
      } catch (IOException | RuntimeException e) {
        LOG.warn("Failed to stop {}", c, e);
      }
    }
  }

  @Override
  public void close() throws IOException {
    try {
      closeQuietly(tierMover);
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
