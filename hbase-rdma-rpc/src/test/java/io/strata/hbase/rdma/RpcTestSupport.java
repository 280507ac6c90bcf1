package io.strata.hbase.rdma;

import io.strata.rdma.transport.RdmaTransportKeys;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Settings and table set-up shared by the RPC tests and, through this module's test jar, the
 * benchmarks' RPC latency program ({@code io.strata.bench.verbs.HybridRpcLatency}).
 */
public final class RpcTestSupport {
  public static final byte[] FAMILY = Bytes.toBytes("f");
  public static final byte[] QUALIFIER = Bytes.toBytes("q");
  public static final String HYBRID_SERVER = "org.apache.hadoop.hbase.ipc.HybridRpcServer";
  public static final String HYBRID_CLIENT = "org.apache.hadoop.hbase.ipc.HybridRpcClient";

  private RpcTestSupport() {
  }

  /**
   * RegionServers with the hybrid RPC server on the loopback transport, receiving on a completion
   * thread as the verbs transport does (clients use the default inline delivery: both run), and
   * handlers that poll their call queue.
   */
  public static Configuration hybridServer() {
    Configuration c = new Configuration(false);
    c.set("hbase.rpc.server.impl", HYBRID_SERVER);
    c.set(HybridRpcKeys.TRANSPORT, "loopback");
    c.set(RdmaTransportKeys.LOOPBACK_DELIVERY, "poller");
    c.set("hbase.region.server.rpc.scheduler.factory.class",
      PollingRpcSchedulerFactory.class.getName());
    return c;
  }

  /**
   * A RegionServer with the hybrid RPC server on the verbs transport, its endpoint on the RDMA
   * device's address ({@code auto}: the RPC address is localhost), endpoint messages up to
   * {@code maxMessage} bytes, handlers that poll their call queue, and a small, quiet cluster
   * (the SoftRoCE guest is an emulated 2-vCPU machine).
   */
  public static Configuration verbsServer(int maxMessage) {
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
  public static Configuration verbsClient(Configuration clientConf, int maxMessage) {
    clientConf.set("hbase.rpc.client.impl", HYBRID_CLIENT);
    return verbs(clientConf, maxMessage);
  }

  private static Configuration verbs(Configuration conf, int maxMessage) {
    conf.set(HybridRpcKeys.TRANSPORT, "verbs");
    conf.setInt(RdmaTransportKeys.MAX_MESSAGE, maxMessage);
    conf.setInt(HybridRpcKeys.Client.CONNECT_TIMEOUT_MS, 30_000);
    return conf;
  }

  /** A client with the hybrid RPC client on the loopback transport. */
  public static Configuration hybridClient(Configuration clientConf) {
    clientConf.set("hbase.rpc.client.impl", HYBRID_CLIENT);
    clientConf.set(HybridRpcKeys.TRANSPORT, "loopback");
    return clientConf;
  }

  public static void createTable(Connection connection, TableName table, String... coprocessors)
    throws IOException {
    TableDescriptorBuilder b = TableDescriptorBuilder.newBuilder(table)
      .setColumnFamily(ColumnFamilyDescriptorBuilder.of(FAMILY));
    for (String cp : coprocessors) {
      b.setCoprocessor(cp);
    }
    try (Admin admin = connection.getAdmin()) {
      admin.createTable(b.build());
    }
  }
}
