package io.strata.hbase.rdma;

import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.LocalHBaseCluster;
import org.apache.hadoop.hbase.regionserver.HRegionServer;
import org.apache.hadoop.hbase.zookeeper.MiniZooKeeperCluster;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;

/**
 * A real HBase in this JVM for the RPC tests — ZooKeeper, a master and one RegionServer, as
 * standalone HBase runs them ({@link LocalHBaseCluster}) — on the local file system under
 * {@code target/it-work} (system property {@value #WORK_DIR}): the RPC path is what is tested,
 * HDFS adds nothing to it. Public, and published in this module's test jar, for the benchmarks'
 * RPC latency program ({@code io.strata.bench.verbs.HybridRpcLatency}), which runs the same
 * cluster outside the tests (both system properties are documented in docs/configuration.md).
 */
public final class MiniHBase implements Closeable {
  /** System property: directory for the clusters' data (default target/it-work). */
  public static final String WORK_DIR = "strata.it.work.dir";
  /** System property: seconds to wait for the master to initialize (default 120). */
  public static final String START_TIMEOUT_S = "strata.it.start.timeout.s";
  private final MiniZooKeeperCluster zk;
  private final LocalHBaseCluster cluster;
  private final Configuration conf;
  private final File dir;

  private MiniHBase(MiniZooKeeperCluster zk, LocalHBaseCluster cluster, Configuration conf,
    File dir) {
    this.zk = zk;
    this.cluster = cluster;
    this.conf = conf;
    this.dir = dir;
  }

  /** Starts a cluster whose servers use {@code serverConf}'s settings on top of the defaults. */
  public static MiniHBase start(String name, Configuration serverConf) throws IOException {
    return start(name, serverConf, 1);
  }

  /** {@link #start(String, Configuration)} with {@code regionServers} RegionServers. */
  public static MiniHBase start(String name, Configuration serverConf, int regionServers)
    throws IOException {
    if (regionServers > 1) {
      // Each RegionServer registers the same metrics sources; mini-cluster mode numbers them.
      DefaultMetricsSystem.setMiniClusterMode(true);
    }
    File dir = new File(System.getProperty(WORK_DIR, "target/it-work"),
      name + "-" + UUID.randomUUID().toString().substring(0, 8)).getAbsoluteFile();
    FileUtil.fullyDelete(dir);
    Configuration conf = HBaseConfiguration.create(serverConf);
    conf.set(HConstants.HBASE_DIR, new File(dir, "hbase").toURI().toString());
    conf.set("fs.defaultFS", "file:///");
    conf.setBoolean("hbase.unsafe.stream.capability.enforce", false);
    conf.setBoolean(HConstants.CLUSTER_DISTRIBUTED, false);
    conf.setBoolean(LocalHBaseCluster.ASSIGN_RANDOM_PORTS, true);
    conf.setInt(HConstants.MASTER_INFO_PORT, -1);
    conf.setInt(HConstants.REGIONSERVER_INFO_PORT, -1);
    conf.set(HConstants.ZOOKEEPER_QUORUM, "localhost");
    conf.setBoolean("hbase.write.hbck1.lock.file", false);
    int startTimeoutMs = Integer.getInteger(START_TIMEOUT_S, 120) * 1000;
    conf.setInt("hbase.master.start.timeout.localHBaseCluster", startTimeoutMs);
    conf.setInt("hbase.master.init.timeout.localHBaseCluster", startTimeoutMs);
    // Done waiting for RegionServers once all of them checked in, not after 4.5 s regardless.
    conf.setInt("hbase.master.wait.on.regionservers.maxtostart", regionServers);
    // Assignable at its first report, and through its shutdown, a second apart instead of 3 s
    // (upstream's test configuration).
    conf.setInt("hbase.regionserver.msginterval", 1_000);
    MiniZooKeeperCluster zk = new MiniZooKeeperCluster(conf);
    LocalHBaseCluster cluster = null;
    try {
      int port = zk.startup(new File(dir, "zookeeper"));
      conf.setInt(HConstants.ZOOKEEPER_CLIENT_PORT, port);
      cluster = new LocalHBaseCluster(conf, 1, regionServers);
      cluster.startup();
      waitForMaster(cluster);
      return new MiniHBase(zk, cluster, conf, dir);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    } catch (IOException | RuntimeException e) {
      if (cluster != null) {
        cluster.shutdown();
      }
      zk.shutdown();
      throw e;
    }
  }

  private static void waitForMaster(LocalHBaseCluster cluster) throws InterruptedException,
    IOException {
    int seconds = Integer.getInteger(START_TIMEOUT_S, 120);
    long deadline = System.currentTimeMillis() + seconds * 1000L;
    while (cluster.getActiveMaster() == null || !cluster.getActiveMaster().isInitialized()) {
      if (System.currentTimeMillis() > deadline) {
        throw new IOException("The master did not initialize within " + seconds + " s ("
          + START_TIMEOUT_S + ")");
      }
      Thread.sleep(100);
    }
  }

  /** A client configuration for this cluster: the cluster's ZooKeeper, the given settings. */
  public Configuration clientConf() {
    Configuration c = HBaseConfiguration.create();
    c.set(HConstants.ZOOKEEPER_QUORUM, "localhost");
    c.set(HConstants.ZOOKEEPER_CLIENT_PORT, conf.get(HConstants.ZOOKEEPER_CLIENT_PORT));
    return c;
  }

  public Configuration conf() {
    return conf;
  }

  public HRegionServer regionServer() {
    return cluster.getRegionServer(0);
  }

  public HRegionServer regionServer(int i) {
    return cluster.getRegionServer(i);
  }

  @Override
  public void close() throws IOException {
    try {
      cluster.shutdown();
      cluster.join();
    } finally {
      zk.shutdown();
      FileUtil.fullyDelete(dir);
    }
  }
}
