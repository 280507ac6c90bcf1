package io.strata.hbase.rdma;

import static io.strata.hbase.rdma.RdmaRpcMetrics.count;
import static io.strata.hbase.rdma.RpcTestSupport.FAMILY;
import static io.strata.hbase.rdma.RpcTestSupport.QUALIFIER;

import io.strata.rdma.transport.TransportCounters;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RpcClients;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.ipc.HybridRpcClient;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * A hybrid RPC client in its own JVM, started by {@code HybridRpcVerbsIT} against its cluster:
 * connects through the cluster's ZooKeeper configured as a Strata client on the verbs transport,
 * does single Puts, one batched Put and Gets of every row (each value checked), and prints its
 * own counters as one line, {@value #RESULT} followed by {@code name=value} pairs. Exits 0 when
 * every row read back, 1 otherwise.
 *
 * <p>usage: CrossProcessClient ZK_PORT TABLE ROWS MAX_MESSAGE [TRANSPORT] (default verbs)
 */
public final class CrossProcessClient {
  static final String RESULT = "cross-process client:";

  private CrossProcessClient() {
  }

  public static void main(String[] args) throws Exception {
    int zkPort = Integer.parseInt(args[0]);
    TableName name = TableName.valueOf(args[1]);
    int rows = Integer.parseInt(args[2]);
    int maxMessage = Integer.parseInt(args[3]);
    Configuration conf = HBaseConfiguration.create();
    conf.set(HConstants.ZOOKEEPER_QUORUM, "localhost");
    conf.setInt(HConstants.ZOOKEEPER_CLIENT_PORT, zkPort);
    RpcTestSupport.verbsClient(conf, maxMessage);
    if (args.length > 4) {
      conf.set(HybridRpcKeys.TRANSPORT, args[4]);
    }
    int status = 0;
    try (Connection c = ConnectionFactory.createConnection(conf);
      Table t = c.getTable(name)) {
      HybridRpcClient client = (HybridRpcClient) RpcClients.of(c);
      // The first routed call sets the endpoint up (it may go over sockets); wait until it is.
      RoutedCallChecks.connectEndpoint(t);
      for (int i = 0; i < rows; i++) {
        t.put(new Put(row(i)).addColumn(FAMILY, QUALIFIER, value(i)));
      }
      List<Put> batch = new ArrayList<>();
      for (int i = rows; i < 2 * rows; i++) {
        batch.add(new Put(row(i)).addColumn(FAMILY, QUALIFIER, value(i)));
      }
      t.put(batch);
      int wrong = 0;
      for (int i = 0; i < 2 * rows; i++) {
        byte[] got = t.get(new Get(row(i))).getValue(FAMILY, QUALIFIER);
        if (!Arrays.equals(value(i), got)) {
          if (wrong++ < 10) {
            System.out.println("row " + Bytes.toString(row(i)) + ": expected "
              + Bytes.toString(value(i)) + ", read " + (got == null ? null : Bytes.toString(got)));
          }
        }
      }
      if (wrong > 0) {
        System.out.println(wrong + " of " + 2 * rows + " rows read back wrong");
        status = 1;
      }
      TransportCounters ours = RoutedCallChecks.sum(client.endpointCounters());
      System.out.println(RESULT + " rows=" + 2 * rows + " wrong=" + wrong
        + " Get.rdma=" + count("client.Get.rdma") + " Mutate.rdma=" + count("client.Mutate.rdma")
        + " Multi.rdma=" + count("client.Multi.rdma")
        + " Get.sockets=" + count("client.Get.sockets")
        + " Mutate.sockets=" + count("client.Mutate.sockets")
        + " Multi.sockets=" + count("client.Multi.sockets")
        + " endpoints.connected=" + count("client.endpoints.connected")
        + " endpoints.failed=" + count("client.endpoints.failed")
        + " messages.sent=" + ours.messagesSent() + " messages.received="
        + ours.messagesReceived() + " bytes.sent=" + ours.bytesSent() + " bytes.received="
        + ours.bytesReceived());
    }
    System.out.flush();
    // HBase's client leaves non-daemon threads behind: exit explicitly.
    System.exit(status);
  }

  static byte[] row(int i) {
    return Bytes.toBytes(String.format("xproc-%05d", i));
  }

  static byte[] value(int i) {
    return Bytes.toBytes("cross-process-value-" + i);
  }
}
