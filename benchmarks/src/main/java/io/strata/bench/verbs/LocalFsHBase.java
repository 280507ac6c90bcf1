package io.strata.bench.verbs;

import io.strata.hbase.rdma.HybridRpcKeys;
import io.strata.hbase.rdma.PollingRpcSchedulerFactory;
import io.strata.rdma.transport.RdmaTransportKeys;
import io.strata.rdma.transport.TransportCounters;
import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.List;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.LocalHBaseCluster;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionImplementation;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.ipc.HybridRpcClient;
import org.apache.hadoop.hbase.regionserver.HRegionServer;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.zookeeper.MiniZooKeeperCluster;

/**
 * An HBase in this JVM for {@link HybridRpcLatency} — ZooKeeper, a master and one RegionServer,
 * as standalone HBase runs them ({@link LocalHBaseCluster}) — on the local file system under
 * {@value #WORK_DIR} (default {@code target/it-work}): the RPC path is what is measured, HDFS
 * would add nothing to it but load on the emulated guest. With the settings of the hybrid RPC on
 * the verbs transport, and the one upstream internal the measurement needs: the RPC client of a
 * blocking connection, whose endpoints count the bytes they carry.
 */
final class LocalFsHBase implements Closeable {
  /** System property: directory for the cluster's data (default target/it-work). */
  static final String WORK_DIR = "strata.it.work.dir";
  /** System property: seconds to wait for the master to initialize (default 120). */
  static final String START_TIMEOUT_S = "strata.it.start.timeout.s";
  static final byte[] FAMILY = Bytes.toBytes("f");
  static final byte[] QUALIFIER = Bytes.toBytes("q");
  private static final String HYBRID_SERVER = "org.apache.hadoop.hbase.ipc.HybridRpcServer";
  private static final String HYBRID_CLIENT = "org.apache.hadoop.hbase.ipc.HybridRpcClient";
  private final MiniZooKeeperCluster zk;
  private final LocalHBaseCluster cluster;
  private final Configuration conf;
  private final File dir;

  private LocalFsHBase(MiniZooKeeperCluster zk, LocalHBaseCluster cluster, Configuration conf,
    File dir) {
    this.zk = zk;
    this.cluster = cluster;
    this.conf = conf;
    this.dir = dir;
  }

  /** Starts a cluster whose servers use {@code serverConf}'s settings on top of the defaults. */
  static LocalFsHBase start(String name, Configuration serverConf) throws IOException {
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
    // Done waiting for the RegionServer once it checked in, not after 4.5 s regardless.
    conf.setInt("hbase.master.wait.on.regionservers.maxtostart", 1);
    // Assignable at its first report, and through its shutdown, a second apart instead of 3 s
    // (upstream's test configuration).
    conf.setInt("hbase.regionserver.msginterval", 1_000);
    MiniZooKeeperCluster zk = new MiniZooKeeperCluster(conf);
    LocalHBaseCluster cluster = null;
    try {
      int port = zk.startup(new File(dir, "zookeeper"));
      conf.setInt(HConstants.ZOOKEEPER_CLIENT_PORT, port);
      cluster = new LocalHBaseCluster(conf, 1, 1);
      cluster.startup();
      waitForMaster(cluster);
      return new LocalFsHBase(zk, cluster, conf, dir);
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
  Configuration clientConf() {
    Configuration c = HBaseConfiguration.create();
    c.set(HConstants.ZOOKEEPER_QUORUM, "localhost");
    c.set(HConstants.ZOOKEEPER_CLIENT_PORT, conf.get(HConstants.ZOOKEEPER_CLIENT_PORT));
    return c;
  }

  HRegionServer regionServer() {
    return cluster.getRegionServer(0);
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

  /**
   * A RegionServer with the hybrid RPC server on the verbs transport, its endpoint on the RDMA
   * device's address ({@code auto}: the RPC address is localhost), endpoint messages up to
   * {@code maxMessage} bytes, handlers that poll their call queue, and a small, quiet cluster
   * (the SoftRoCE guest is an emulated 2-vCPU machine).
   */
  static Configuration verbsServer(int maxMessage) {
    Configuration c = verbs(new Configuration(false), maxMessage);
    c.set("hbase.rpc.server.impl", HYBRID_SERVER);
    c.set(HybridRpcKeys.Server.BIND_ADDRESS, HybridRpcKeys.Server.BIND_ADDRESS_AUTO);
    c.set("hbase.region.server.rpc.scheduler.factory.class",
      PollingRpcSchedulerFactory.class.getName());
    c.setInt("hbase.regionserver.handler.count", 8);
    c.setInt("hbase.master.handler.count", 4);
    c.setInt("hbase.regionserver.metahandler.count", 2);
    c.setBoolean("hbase.hregion.memstore.mslab.enabled", false);
    c.setInt("hbase.balancer.period", Integer.MAX_VALUE);
    c.setInt("hbase.rpc.timeout", 120_000);
    return c;
  }

  /** A client with the hybrid RPC client on the verbs transport. */
  static Configuration verbsClient(Configuration clientConf, int maxMessage) {
    clientConf.set("hbase.rpc.client.impl", HYBRID_CLIENT);
    return verbs(clientConf, maxMessage);
  }

  private static Configuration verbs(Configuration conf, int maxMessage) {
    conf.set(HybridRpcKeys.TRANSPORT, "verbs");
    conf.setInt(RdmaTransportKeys.MAX_MESSAGE, maxMessage);
    conf.setInt(HybridRpcKeys.Client.CONNECT_TIMEOUT_MS, 30_000);
    return conf;
  }

  /** Creates {@code table} with the one family {@link #FAMILY}. */
  static void createTable(Connection connection, TableName table) throws IOException {
    try (Admin admin = connection.getAdmin()) {
      admin.createTable(TableDescriptorBuilder.newBuilder(table)
        .setColumnFamily(ColumnFamilyDescriptorBuilder.of(FAMILY)).build());
    }
  }

  /**
   * The hybrid RPC client of a blocking connection made with {@link #verbsClient}: upstream
   * keeps {@code ConnectionImplementation#getRpcClient} package-private (listed in
   * docs/upstream-internals.md as {@code refl.connection.getRpcClient}).
   */
  static HybridRpcClient rpcClient(Connection connection) throws IOException {
    try {
      Method m = ConnectionImplementation.class.getDeclaredMethod("getRpcClient");
      m.setAccessible(true);
      return (HybridRpcClient) m.invoke(connection);
    } catch (NoSuchMethodException | IllegalAccessException | InvocationTargetException
      | ClassCastException e) {
      throw new IOException("Cannot read the RPC client of " + connection + " (upstream's "
        + "ConnectionImplementation#getRpcClient): " + e, e);
    }
  }

  /** The counters of all {@code counters} together. */
  static TransportCounters sum(List<TransportCounters> counters) {
    TransportCounters sum = new TransportCounters();
    for (TransportCounters tc : counters) {
      sum.add(tc);
    }
    return sum;
  }
}
