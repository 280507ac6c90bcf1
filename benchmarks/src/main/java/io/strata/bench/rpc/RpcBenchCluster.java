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
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.AsyncConnection;
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
 * The cluster the RPC benchmark runs against, one per run: the embedded tiered cluster with the
 * hybrid RPC server on the loopback transport (recording stages when asked), a table with one
 * record per value size, and client connections to it — HBase's stock Netty client and the hybrid
 * client, each blocking ({@code Table}) and async ({@code AsyncTable}), and a hybrid async client
 * that does not poll. Every mode measures the same RegionServer and records in the same run.
 * Thread-safe: connections are shared, each measuring thread opens its own {@code Table}.
 */
final class RpcBenchCluster implements Closeable {
  static final TableName TABLE = TableName.valueOf("rpc_bench");
  static final byte[] FAMILY = Bytes.toBytes("f");
  static final byte[] QUALIFIER = Bytes.toBytes("q");
  /** The size of the records of the stage breakdown and the client-thread sweep. */
  static final int VALUE_BYTES = 1024;
  /** The hybrid RPC transport the bench's endpoint path runs on: in-process, no NIC. */
  static final String TRANSPORT = "loopback";

  private static File workDir = new File(".strata-work/bench/rpc");
  private static String delivery = RdmaTransportKeys.LOOPBACK_DELIVERY_DEFAULT;
  private static long handlerPollUs = HybridRpcKeys.Handler.POLL_US_DEFAULT;
  private static long clientPollUs = HybridRpcKeys.Client.POLL_US_DEFAULT;
  private static Map<String, String> extra = Map.of();
  private static RpcBenchCluster instance;

  private final TieredDfsCluster dfs;
  private final EmbeddedHBase hbase;
  private final Connection netty;
  private final Connection rdma;
  private final AsyncConnection nettyAsync;
  private final AsyncConnection rdmaAsync;
  private final AsyncConnection rdmaAsyncUnpolled;

  private RpcBenchCluster(TieredDfsCluster dfs, EmbeddedHBase hbase, Connection netty,
    Connection rdma, AsyncConnection nettyAsync, AsyncConnection rdmaAsync,
    AsyncConnection rdmaAsyncUnpolled) {
    this.dfs = dfs;
    this.hbase = hbase;
    this.netty = netty;
    this.rdma = rdma;
    this.nettyAsync = nettyAsync;
    this.rdmaAsync = rdmaAsync;
    this.rdmaAsyncUnpolled = rdmaAsyncUnpolled;
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

  /** Keys of the cluster and its clients, over the bench's own. */
  static synchronized void hbase(Map<String, String> keys) {
    extra = Map.copyOf(keys);
  }

  /** How long the hybrid client polls for an endpoint call's response. */
  static synchronized void clientPollUs(long us) {
    clientPollUs = us;
  }

  /** Starts the cluster with one record of each of these value sizes (and of 1 KiB). */
  static synchronized RpcBenchCluster start(List<Integer> sizes) throws IOException {
    if (instance == null) {
      instance = startCluster(sizes);
    }
    return instance;
  }

  static synchronized void shutdown() throws IOException {
    if (instance != null) {
      instance.close();
      instance = null;
    }
  }

  private static RpcBenchCluster startCluster(List<Integer> sizes) throws IOException {
    LocalClusterConfig config = new LocalClusterConfig().workDir(workDir)
      .ramBytesPerDataNode(512L << 20).startSatisfier(false).startTierMover(false)
      .hbase("hbase.rpc.server.impl", HybridRpcServer.class.getName())
      .hbase(HybridRpcKeys.TRANSPORT, TRANSPORT)
      .hbase(RdmaTransportKeys.LOOPBACK_DELIVERY, delivery)
      .hbase(HybridRpcKeys.Client.POLL_US, Long.toString(clientPollUs))
      .hbase(HybridRpcKeys.Server.STAGES, "true")
      // Room for 64 KiB values: the records stay in the memstore, as in the paper.
      .hbase(HConstants.HREGION_MEMSTORE_FLUSH_SIZE, Long.toString(512L << 20))
      .hbase(RdmaTransportKeys.MAX_MESSAGE, Integer.toString(1 << 20));
    extra.forEach(config::hbase);
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
      AsyncConnection nettyAsync = connectAsync(hbase, NettyRpcClient.class.getName(), true);
      started.add(0, nettyAsync);
      AsyncConnection rdmaAsync = connectAsync(hbase, HybridRpcClient.class.getName(), true);
      started.add(0, rdmaAsync);
      AsyncConnection rdmaAsyncUnpolled =
        connectAsync(hbase, HybridRpcClient.class.getName(), false);
      started.add(0, rdmaAsyncUnpolled);
      RpcBenchCluster c = new RpcBenchCluster(dfs, hbase, netty, rdma, nettyAsync, rdmaAsync,
        rdmaAsyncUnpolled);
      c.load(sizes);
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

  private static AsyncConnection connectAsync(EmbeddedHBase hbase, String rpcClient,
    boolean poll) throws IOException {
    Configuration conf = HBaseConfiguration.create(hbase.configuration());
    conf.set("hbase.rpc.client.impl", rpcClient);
    conf.setBoolean(HybridRpcKeys.Client.ASYNC_POLL, poll);
    try {
      return ConnectionFactory.createAsyncConnection(conf).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    } catch (ExecutionException e) {
      throw new IOException(e.getCause());
    }
  }

  /** One record per size, as the paper kept one record in the RegionServer's memstore. */
  private void load(List<Integer> sizes) throws IOException {
    try (Admin admin = netty.getAdmin()) {
      admin.createTable(TableDescriptorBuilder.newBuilder(TABLE)
        .setColumnFamily(ColumnFamilyDescriptorBuilder.of(FAMILY)).build());
    }
    try (Table t = netty.getTable(TABLE)) {
      List<Put> puts = new ArrayList<>();
      for (int size : sizes) {
        puts.add(new Put(row(size)).addColumn(FAMILY, QUALIFIER, value(size)));
      }
      puts.add(new Put(row(VALUE_BYTES)).addColumn(FAMILY, QUALIFIER, value(VALUE_BYTES)));
      t.put(puts);
    }
  }

  /** The hybrid client's first routed call sets its endpoint up; wait until it is connected. */
  private void awaitEndpoint() throws IOException {
    long before = RdmaRpcMetrics.count("client.endpoints.connected");
    long deadline = System.currentTimeMillis() + 30_000;
    try (Table t = rdma.getTable(TABLE)) {
      while (RdmaRpcMetrics.count("client.endpoints.connected") == before) {
        t.get(new Get(row(VALUE_BYTES)));
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

  /** The row of the record whose value has this many bytes. */
  static byte[] row(int valueBytes) {
    return Bytes.toBytes(String.format("value-%07d", valueBytes));
  }

  static byte[] value(int bytes) {
    byte[] v = new byte[bytes];
    java.util.Arrays.fill(v, (byte) bytes);
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

  /** The async connection of a mode; {@code polled} false: the hybrid one that does not poll. */
  AsyncConnection asyncConnection(String mode, boolean polled) {
    switch (mode) {
      case RpcBench.NETTY:
        return nettyAsync;
      case RpcBench.RDMA:
        return polled ? rdmaAsync : rdmaAsyncUnpolled;
      default:
        throw new IllegalArgumentException("mode " + mode);
    }
  }

  @Override
  public void close() throws IOException {
    try {
      rdmaAsyncUnpolled.close();
      rdmaAsync.close();
      nettyAsync.close();
      rdma.close();
      netty.close();
      hbase.close();
    } finally {
      dfs.close();
    }
  }
}
