package io.strata.bench.rpc;

import io.strata.hbase.rdma.HybridRpcKeys;
import io.strata.hbase.rdma.PollingRpcSchedulerFactory;
import io.strata.hbase.rdma.RdmaRpcMetrics;
import io.strata.local.EmbeddedHBase;
import io.strata.local.LocalClusterConfig;
import io.strata.local.TieredDfsCluster;
import io.strata.rdma.transport.RdmaTransportKeys;
import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.ipc.HybridRpcClient;
import org.apache.hadoop.hbase.ipc.HybridRpcServer;
import org.apache.hadoop.hbase.ipc.NettyRpcClient;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The cluster the RPC benchmark runs against, one per JVM: the embedded tiered cluster with the
 * hybrid RPC server on the loopback transport, a table of 1 KiB rows, and two client connections
 * to it — HBase's stock Netty client and the hybrid client. JMH's benchmark states share it, so
 * every mode measures the same RegionServer and data in the same run.
 */
final class RpcBenchCluster implements Closeable {
  static final TableName TABLE = TableName.valueOf("rpc_bench");
  static final byte[] FAMILY = Bytes.toBytes("f");
  static final byte[] QUALIFIER = Bytes.toBytes("q");
  static final int ROWS = 1000;
  static final int VALUE_BYTES = 1024;

  private static File workDir = new File(".strata-work/bench/rpc");
  private static String delivery = RdmaTransportKeys.LOOPBACK_DELIVERY_DEFAULT;
  private static long handlerPollUs = HybridRpcKeys.Handler.POLL_US_DEFAULT;
  private static long clientPollUs = HybridRpcKeys.Client.POLL_US_DEFAULT;
  private static RpcBenchCluster instance;

  private final TieredDfsCluster dfs;
  private final EmbeddedHBase hbase;
  private final Connection netty;
  private final Connection rdma;

  private RpcBenchCluster(TieredDfsCluster dfs, EmbeddedHBase hbase, Connection netty,
    Connection rdma) {
    this.dfs = dfs;
    this.hbase = hbase;
    this.netty = netty;
    this.rdma = rdma;
  }

  static synchronized void workDir(File dir) {
    workDir = dir;
  }

  /** The loopback transport's delivery mode, on the RegionServer and the hybrid client. */
  static synchronized void delivery(String mode) {
    delivery = mode;
  }

  /**
   * How long idle RegionServer handlers poll their call queue ({@code strata.rpc.handler.poll.us});
   * 0 runs HBase's own scheduler and call queues.
   */
  static synchronized void handlerPollUs(long us) {
    handlerPollUs = us;
  }

  /** How long the hybrid client polls for an endpoint call's response. */
  static synchronized void clientPollUs(long us) {
    clientPollUs = us;
  }

  static synchronized RpcBenchCluster get() throws IOException {
    if (instance == null) {
      instance = start();
    }
    return instance;
  }

  static synchronized void shutdown() throws IOException {
    if (instance != null) {
      instance.close();
      instance = null;
    }
  }

  private static RpcBenchCluster start() throws IOException {
    LocalClusterConfig config = new LocalClusterConfig().workDir(workDir)
      .ramBytesPerDataNode(512L << 20).startSatisfier(false).startTierMover(false)
      .hbase("hbase.rpc.server.impl", HybridRpcServer.class.getName())
      .hbase(HybridRpcKeys.TRANSPORT, "loopback")
      .hbase(RdmaTransportKeys.LOOPBACK_DELIVERY, delivery)
      .hbase(HybridRpcKeys.Client.POLL_US, Long.toString(clientPollUs));
    if (handlerPollUs > 0) {
      config.hbase("hbase.region.server.rpc.scheduler.factory.class",
        PollingRpcSchedulerFactory.class.getName())
        .hbase(HybridRpcKeys.Handler.POLL_US, Long.toString(handlerPollUs));
    }
    List<Closeable> started = new ArrayList<>();
    try {
      TieredDfsCluster dfs = TieredDfsCluster.start(config);
      started.add(dfs);
      EmbeddedHBase hbase = EmbeddedHBase.start(dfs);
      started.add(0, hbase);
      Connection netty = connect(hbase, NettyRpcClient.class.getName());
      started.add(0, netty);
      Connection rdma = connect(hbase, HybridRpcClient.class.getName());
      started.add(0, rdma);
      RpcBenchCluster c = new RpcBenchCluster(dfs, hbase, netty, rdma);
      c.load();
      c.awaitEndpoint();
      return c;
    } catch (IOException | RuntimeException e) {
      for (Closeable c : started) {
        try {
          c.close();
        } catch (IOException suppressed) {
          e.addSuppressed(suppressed);
        }
      }
      throw e;
    }
  }

  private static Connection connect(EmbeddedHBase hbase, String rpcClient) throws IOException {
    Configuration conf = HBaseConfiguration.create(hbase.configuration());
    conf.set("hbase.rpc.client.impl", rpcClient);
    return ConnectionFactory.createConnection(conf);
  }

  private void load() throws IOException {
    try (Admin admin = netty.getAdmin()) {
      admin.createTable(TableDescriptorBuilder.newBuilder(TABLE)
        .setColumnFamily(ColumnFamilyDescriptorBuilder.of(FAMILY)).build());
    }
    try (Table t = netty.getTable(TABLE)) {
      List<Put> puts = new ArrayList<>();
      for (int i = 0; i < ROWS; i++) {
        puts.add(new Put(row(i)).addColumn(FAMILY, QUALIFIER, value(i)));
      }
      t.put(puts);
    }
  }

  /** The hybrid client's first routed call sets its endpoint up; wait until it is connected. */
  private void awaitEndpoint() throws IOException {
    long before = RdmaRpcMetrics.count("client.endpoints.connected");
    long deadline = System.currentTimeMillis() + 30_000;
    try (Table t = rdma.getTable(TABLE)) {
      while (RdmaRpcMetrics.count("client.endpoints.connected") == before) {
        t.get(new Get(row(0)));
        if (System.currentTimeMillis() > deadline) {
          throw new IOException("The hybrid client did not connect an RDMA endpoint in 30 s");
        }
        Thread.sleep(10);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }

  static byte[] row(int i) {
    return Bytes.toBytes(String.format("row-%06d", i));
  }

  static byte[] value(int i) {
    byte[] v = new byte[VALUE_BYTES];
    java.util.Arrays.fill(v, (byte) i);
    return v;
  }

  Connection connection(String mode) {
    switch (mode) {
      case RpcBench.NETTY:
        return netty;
      case RpcBench.RDMA:
        return rdma;
      default:
        throw new IllegalArgumentException("mode " + mode);
    }
  }

  @Override
  public void close() throws IOException {
    try {
      rdma.close();
      netty.close();
      hbase.close();
    } finally {
      dfs.close();
    }
  }
}
