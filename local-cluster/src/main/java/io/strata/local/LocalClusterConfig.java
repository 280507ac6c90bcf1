package io.strata.local;

import java.io.File;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** What the embedded tiered cluster is made of; every value has a default that runs here. */
public final class LocalClusterConfig {
  private File workDir = new File(".strata-work/local");
  private File ramDir;
  private int dataNodes = 3;
  private int regionServers = 1;
  private long ramBytesPerDataNode = 1024L << 20;
  private long blockSizeBytes = 128L << 20;
  private boolean startSatisfier = true;
  private boolean startTierMover = true;
  private boolean keepData = false;
  private boolean tieredPlacement = true;
  private long ssdBytesPerDataNode = -1;
  private int ssdVolumesPerDataNode = 1;
  private boolean accessControl = false;
  private final Map<String, String> dfsOverrides = new LinkedHashMap<>();
  private final Map<String, String> hbaseOverrides = new LinkedHashMap<>();

  public File workDir() {
    return workDir;
  }

  public LocalClusterConfig workDir(File dir) {
    this.workDir = dir;
    return this;
  }

  /**
   * The RAM tier's directory; by default one per work dir under /dev/shm, so that a run after a
   * crash reuses (and wipes) the same one instead of leaking memory.
   */
  public File ramDir() {
    if (ramDir != null) {
      return ramDir;
    }
    String user = System.getProperty("user.name", "strata");
    String id = Integer.toHexString(workDir.getAbsolutePath().hashCode());
    return new File("/dev/shm", "strata-" + user + "-" + id);
  }

  public LocalClusterConfig ramDir(File dir) {
    this.ramDir = dir;
    return this;
  }

  public int dataNodes() {
    return dataNodes;
  }

  public LocalClusterConfig dataNodes(int n) {
    if (n < 1) {
      throw new IllegalArgumentException("The cluster needs at least one DataNode, not " + n);
    }
    this.dataNodes = n;
    return this;
  }

  public int regionServers() {
    return regionServers;
  }

  public LocalClusterConfig regionServers(int n) {
    if (n < 1) {
      throw new IllegalArgumentException("The cluster needs at least one RegionServer, not " + n);
    }
    this.regionServers = n;
    return this;
  }

  public long ramBytesPerDataNode() {
    return ramBytesPerDataNode;
  }

  public LocalClusterConfig ramBytesPerDataNode(long bytes) {
    if (bytes <= 0) {
      throw new IllegalArgumentException("The RAM tier needs a positive size, not " + bytes);
    }
    this.ramBytesPerDataNode = bytes;
    return this;
  }

  public long blockSizeBytes() {
    return blockSizeBytes;
  }

  public LocalClusterConfig blockSizeBytes(long bytes) {
    this.blockSizeBytes = bytes;
    return this;
  }

  /** Whether to run the tier mover (needs the satisfier), so renamed files follow their policy. */
  public boolean startTierMover() {
    return startTierMover && startSatisfier;
  }

  public LocalClusterConfig startTierMover(boolean start) {
    this.startTierMover = start;
    return this;
  }

  public boolean startSatisfier() {
    return startSatisfier;
  }

  public LocalClusterConfig startSatisfier(boolean start) {
    this.startSatisfier = start;
    return this;
  }

  /** Keep the RAM tier's directory on shutdown (the work dir is always kept). */
  public boolean keepData() {
    return keepData;
  }

  public LocalClusterConfig keepData(boolean keep) {
    this.keepData = keep;
    return this;
  }

  /** Strata's placement ({@code strata-tiering-site.xml}); false runs upstream HBase's. */
  public boolean tieredPlacement() {
    return tieredPlacement;
  }

  public LocalClusterConfig tieredPlacement(boolean on) {
    this.tieredPlacement = on;
    return this;
  }

  /**
   * Capacity of each SSD volume of a DataNode; -1 (default) for its file system's real space.
   */
  public long ssdBytesPerDataNode() {
    return ssdBytesPerDataNode;
  }

  public LocalClusterConfig ssdBytesPerDataNode(long bytes) {
    this.ssdBytesPerDataNode = bytes;
    return this;
  }

  /**
   * SSD volumes per DataNode (default 1), each a directory of its own: e.g. to compare a
   * DataNode with four SSDs and one with eight.
   */
  public int ssdVolumesPerDataNode() {
    return ssdVolumesPerDataNode;
  }

  /** @throws IllegalArgumentException if {@code n < 1} */
  public LocalClusterConfig ssdVolumesPerDataNode(int n) {
    if (n < 1) {
      throw new IllegalArgumentException("a DataNode needs at least one SSD volume, not " + n);
    }
    this.ssdVolumesPerDataNode = n;
    return this;
  }

  /**
   * HBase's {@code AccessController} on the master, the regions and the RegionServers, with
   * authorization on ({@link EmbeddedHBase#ACCESS_CONTROL}); authentication stays simple, so a
   * client names its user ({@code User.createUserForTesting}) and the process's own user is the
   * superuser. Off by default.
   */
  public boolean accessControl() {
    return accessControl;
  }

  public LocalClusterConfig accessControl(boolean on) {
    this.accessControl = on;
    return this;
  }

  /** HDFS keys set on the NameNode and DataNodes, after Strata's own. */
  public Map<String, String> dfsOverrides() {
    return Collections.unmodifiableMap(dfsOverrides);
  }

  public LocalClusterConfig dfs(String key, String value) {
    dfsOverrides.put(key, value);
    return this;
  }

  /** HBase keys set on the master and RegionServers, after Strata's own. */
  public Map<String, String> hbaseOverrides() {
    return Collections.unmodifiableMap(hbaseOverrides);
  }

  public LocalClusterConfig hbase(String key, String value) {
    hbaseOverrides.put(key, value);
    return this;
  }

  /**
   * Drops the override of {@code key}: clusters started after this get Strata's own value (or
   * HBase's default) again.
   */
  public LocalClusterConfig hbaseUnset(String key) {
    hbaseOverrides.remove(key);
    return this;
  }
}
