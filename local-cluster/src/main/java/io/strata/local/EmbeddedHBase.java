package io.strata.local;

import io.strata.hbase.tiering.TieringKeys;
import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.LocalHBaseCluster;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.master.HMaster;
import org.apache.hadoop.hbase.regionserver.HRegionServer;
import org.apache.hadoop.hbase.regionserver.MetricsRegionServerSource;
import org.apache.hadoop.hbase.security.User;
import org.apache.hadoop.hbase.security.access.AccessController;
import org.apache.hadoop.hbase.util.JVMClusterUtil;
import org.apache.hadoop.hbase.zookeeper.MiniZooKeeperCluster;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * HBase on the tiered HDFS: a ZooKeeper server, a master and RegionServers in this JVM, started
 * the way {@code hbase master start} starts a standalone HBase ({@link LocalHBaseCluster}), with
 * the root directory {@code /hbase} on the given HDFS.
 */
public final class EmbeddedHBase implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedHBase.class);
  /** The metrics system prefix HBase's sources are registered under (upstream's literal). */
  private static final String METRICS_SYSTEM = "HBase";

  /** The HBase root directory on HDFS. */
  public static final String ROOT_DIR = "/hbase";

  /** Strata's placement settings, shipped in strata-hbase-server. */
  public static final String TIERING_SITE = "strata-tiering-site.xml";

  /**
   * The keys that load HBase's {@link AccessController} where it has to run (the master keeps
   * {@code hbase:acl} and checks DDL, the regions check reads and writes, the RegionServers check
   * their own operations) and turn authorization on, as HBase's security guide sets them; what
   * {@link LocalClusterConfig#accessControl(boolean)} adds before the {@code --hbase} overrides.
   */
  public static final Map<String, String> ACCESS_CONTROL = Map.of(
    User.HBASE_SECURITY_AUTHORIZATION_CONF_KEY, "true",
    "hbase.coprocessor.master.classes", AccessController.class.getName(),
    "hbase.coprocessor.region.classes", AccessController.class.getName(),
    "hbase.coprocessor.regionserver.classes", AccessController.class.getName());

  private final TieredDfsCluster dfs;
  private final MiniZooKeeperCluster zk;
  private final LocalHBaseCluster cluster;
  private final Configuration conf;
  private final Connection connection;

  private EmbeddedHBase(TieredDfsCluster dfs, MiniZooKeeperCluster zk, LocalHBaseCluster cluster,
    Configuration conf, Connection connection) {
    this.dfs = dfs;
    this.zk = zk;
    this.cluster = cluster;
    this.conf = conf;
    this.connection = connection;
  }

  public static EmbeddedHBase start(TieredDfsCluster dfs) throws IOException {
    return start(dfs, "", dfs.config().accessControl());
  }

  /**
   * A second (third, ...) HBase on the same HDFS: its own root directory {@code /hbase-<name>}
   * and ZooKeeper ({@code zookeeper-<name>} in the work dir); {@code accessControl} in place of
   * the config's. An empty name is {@link #start(TieredDfsCluster)}'s cluster.
   */
  public static EmbeddedHBase start(TieredDfsCluster dfs, String name, boolean accessControl)
    throws IOException {
    if (!name.matches("[a-z0-9-]*")) {
      throw new IllegalArgumentException("An embedded HBase's name is lower-case letters, digits "
        + "and '-' (it names its root directory), not '" + name + "'");
    }
    String suffix = name.isEmpty() ? "" : "-" + name;
    LocalClusterConfig config = dfs.config();
    Configuration conf = HBaseConfiguration.create(dfs.configuration());
    if (config.tieredPlacement()) {
      conf.addResource(TIERING_SITE);
      // Archiving renames files: the tier mover, when it runs, moves them with no HBase help.
      conf.setBoolean(TieringKeys.REQUEST_MOVES, dfs.tierMover() == null);
    }
    conf.set("fs.defaultFS", dfs.uri().toString());
    conf.set(HConstants.HBASE_DIR, dfs.uri() + ROOT_DIR + suffix);
    conf.setBoolean(HConstants.CLUSTER_DISTRIBUTED, false);
    conf.setBoolean(LocalHBaseCluster.ASSIGN_RANDOM_PORTS, true);
    conf.setInt(HConstants.MASTER_INFO_PORT, -1);
    conf.setInt(HConstants.REGIONSERVER_INFO_PORT, -1);
    conf.set(HConstants.ZOOKEEPER_QUORUM, "localhost");
    // Each open WAL reserves a whole block on its volume: 64 MiB (upstream: 2 x the HDFS block
    // size) keeps the live WALs of master, meta and RegionServers within a small RAM tier.
    conf.setLong("hbase.regionserver.hlog.blocksize", 64L << 20);
    // The embedded cluster is for looking at placement: archive compacted-away files soon.
    conf.setInt("hbase.hfile.compaction.discharger.interval", 5_000);
    // LocalHBaseCluster gives the master 30 s to become active; on a busy 2-core machine its
    // start (meta, namespace, the RAM tier's first WAL blocks) took longer, and the whole run
    // failed with "Master not active after 30000ms". A slow start is not a failure here.
    conf.setInt("hbase.master.start.timeout.localHBaseCluster", 300_000);
    // The master otherwise waits out hbase.master.wait.on.regionservers.timeout (4.5 s) at every
    // start even when every RegionServer has checked in; this cluster knows how many it starts
    // (upstream's mini cluster sets the same key).
    conf.setInt("hbase.master.wait.on.regionservers.maxtostart", config.regionServers());
    // A RegionServer becomes assignable at its first report to the master and steps through its
    // shutdown between reports, one every hbase.regionserver.msginterval (3 s); upstream's own
    // test configuration reports every second, which this in-process cluster can afford too.
    conf.setInt("hbase.regionserver.msginterval", 1_000);
    if (accessControl) {
      // Added to the coprocessors already loaded (Strata's validator and WAL durability guard),
      // not in their place.
      ACCESS_CONTROL.forEach((key, value) -> {
        String loaded = conf.getTrimmed(key);
        conf.set(key, loaded == null || loaded.isEmpty() || !key.startsWith("hbase.coprocessor.")
          ? value : loaded + "," + value);
      });
    }
    config.hbaseOverrides().forEach(conf::set);

    File zkDir = new File(config.workDir(), "zookeeper" + suffix);
    FileUtil.fullyDelete(zkDir);
    MiniZooKeeperCluster zk = new MiniZooKeeperCluster(conf);
    LocalHBaseCluster cluster = null;
    try {
      int port = zk.startup(zkDir);
      conf.setInt(HConstants.ZOOKEEPER_CLIENT_PORT, port);
      // The metrics system names every source's JMX bean after the last prefix it was
      // initialized with, and HBase initializes it as "HBase" only once per JVM: after an HDFS
      // restart in this JVM the NameNode's and DataNodes' prefixes win, and the RegionServer's
      // bean is no longer Hadoop:service=HBase,... where /jmx readers look. Initialize it again
      // (shutdown() gives the reference back once the cluster is down).
      DefaultMetricsSystem.initialize(METRICS_SYSTEM);
      cluster = new LocalHBaseCluster(conf, 1, config.regionServers());
      startup(cluster);
      Connection connection = ConnectionFactory.createConnection(conf);
      LOG.info("HBase up: root {}, ZooKeeper localhost:{}", conf.get(HConstants.HBASE_DIR), port);
      return new EmbeddedHBase(dfs, zk, cluster, conf, connection);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      shutdown(zk, cluster);
      throw new IOException("Interrupted while starting ZooKeeper", e);
    } catch (IOException | RuntimeException e) {
      shutdown(zk, cluster);
      throw e;
    }
  }

  /**
   * {@link LocalHBaseCluster#startup()}, but giving up as soon as every master has aborted:
   * upstream's start goes on waiting for a master that will never come up (e.g. one the WAL
   * durability check refused) until {@code hbase.master.init.timeout.localHBaseCluster} ends,
   * 200 s by default, and then reports only "Master not initialized".
   */
  private static void startup(LocalHBaseCluster cluster) throws IOException {
    Thread starter = Thread.currentThread();
    Object lock = new Object();
    boolean[] starting = { true };
    List<String> aborted = new ArrayList<>();
    Thread watcher = new Thread(() -> {
      while (true) {
        synchronized (lock) {
          if (!starting[0]) {
            return;
          }
          List<String> names = abortedMasters(cluster);
          if (!names.isEmpty()) {
            aborted.addAll(names);
            starter.interrupt();
            return;
          }
        }
        try {
          Thread.sleep(200);
        } catch (InterruptedException e) {
          return;
        }
      }
    }, "embedded-hbase-start-watch");
    watcher.setDaemon(true);
    watcher.start();
    IOException failure = null;
    try {
      cluster.startup();
    } catch (IOException e) {
      failure = e;
    } finally {
      synchronized (lock) {
        starting[0] = false;
        if (!aborted.isEmpty()) {
          // The interrupt was this method's own, not the caller's.
          Thread.interrupted();
        }
      }
      watcher.interrupt();
    }
    if (!aborted.isEmpty()) {
      throw new IOException("HBase master " + aborted + " aborted while starting; its log says "
        + "why (ABORTING master)", failure);
    }
    if (failure != null) {
      throw failure;
    }
  }

  /** The masters that have aborted, or none unless every master has. */
  private static List<String> abortedMasters(LocalHBaseCluster cluster) {
    List<String> names = new ArrayList<>();
    for (JVMClusterUtil.MasterThread t : cluster.getMasters()) {
      if (!t.getMaster().isAborted()) {
        return List.of();
      }
      names.add(String.valueOf(t.getMaster().getServerName()));
    }
    return names;
  }

  /** The HDFS this HBase runs on. */
  public TieredDfsCluster dfs() {
    return dfs;
  }

  public Configuration configuration() {
    return conf;
  }

  public Connection connection() {
    return connection;
  }

  public Path rootDir() {
    return new Path(conf.get(HConstants.HBASE_DIR));
  }

  /** The ZooKeeper quorum a client outside this JVM connects to, as host:port. */
  public String zookeeperQuorum() {
    return "localhost:" + conf.get(HConstants.ZOOKEEPER_CLIENT_PORT);
  }

  public HMaster master() {
    return cluster.getActiveMaster();
  }

  public HRegionServer regionServer(int index) {
    return cluster.getRegionServer(index);
  }

  public int regionServerCount() {
    return cluster.getRegionServers().size();
  }

  /**
   * Starts one more RegionServer in this cluster with {@code overrides} on top of its
   * configuration, e.g. to see how a RegionServer with other settings starts; the caller waits
   * for it (the thread ends if it aborts) and stops it.
   */
  public JVMClusterUtil.RegionServerThread startRegionServer(Map<String, String> overrides)
    throws IOException {
    Configuration c = new Configuration(conf);
    overrides.forEach(c::set);
    JVMClusterUtil.RegionServerThread t =
      cluster.addRegionServer(c, cluster.getRegionServers().size());
    t.start();
    return t;
  }

  @Override
  public void close() throws IOException {
    try {
      connection.close();
    } finally {
      shutdown(zk, cluster);
    }
  }

  private static void shutdown(MiniZooKeeperCluster zk, LocalHBaseCluster cluster)
    throws IOException {
    try {
      if (cluster != null) {
        cluster.shutdown();
        cluster.join();
        // A stopped RegionServer leaves its metrics source registered, and the next one started
        // in this JVM cannot take the name: /jmx would go on serving the stopped server's values.
        DefaultMetricsSystem.instance().unregisterSource(
          MetricsRegionServerSource.METRICS_JMX_CONTEXT);
        // The reference start() took; HDFS's and HBase's own keep the system running.
        DefaultMetricsSystem.shutdown();
      }
    } finally {
      zk.shutdown();
    }
  }
}
