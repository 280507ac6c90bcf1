package io.strata.hbase.rdma;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.strata.rdma.transport.TransportConf;
import io.strata.rdma.transport.TransportUnavailableException;
import io.strata.rdma.verbs.RdmaAddresses;
import io.strata.rdma.verbs.VerbsTransport;
import java.io.File;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.ipc.HybridRpcServer;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * The hybrid RPC end to end on the verbs transport over a real RDMA device (SoftRoCE rxe0 in
 * dev-support/softroce-test): an HBase master and RegionServer in this JVM (local file system,
 * mini ZooKeeper) with {@link HybridRpcServer} listening on the device's address
 * ({@code strata.rdma.bind.address=auto}), a hybrid client whose Puts, batched Puts and Gets go
 * over verbs, a stock client beside it, responses above the endpoint's limit, endpoints closed
 * under load, and a hybrid client in a second JVM ({@link CrossProcessClient}) whose calls both
 * JVMs count over the endpoint. Skipped where there is no device (fails instead with
 * {@code STRATA_RDMA_REQUIRE_DEVICE=1}).
 */
public class HybridRpcVerbsIT {
  private static final int MAX_MESSAGE = 256 << 10;
  private static final int ROWS = Integer.getInteger("strata.it.rows", 50);
  /** System property: rows the second JVM's client puts singly and in a batch (default 200). */
  static final String CHILD_ROWS = "strata.it.child.rows";
  /** System property: seconds the second JVM may take (default 300). */
  static final String CHILD_TIMEOUT_S = "strata.it.child.timeout.s";
  /** System property: the second JVM's client transport (default verbs; none: sockets only). */
  static final String CHILD_TRANSPORT = "strata.it.child.transport";
  private static MiniHBase cluster;
  private static Connection admin;

  @BeforeClass
  public static void start() throws Exception {
    InetAddress device = null;
    try (VerbsTransport probe = new VerbsTransport(TransportConf.EMPTY)) {
      device = RdmaAddresses.deviceAddressOrSkip(probe);
    } catch (TransportUnavailableException e) {
      RdmaAddresses.skipOrFail(e.getMessage());
    }
    Configuration conf = RpcTestSupport.verbsServer(MAX_MESSAGE);
    cluster = MiniHBase.start("hybrid-rpc-verbs", conf);
    admin = ConnectionFactory.createConnection(cluster.clientConf());
    InetSocketAddress listening = server().getRdmaAddress();
    assertNotNull("the RegionServer's verbs endpoint is not listening (see the WARN above)",
      listening);
    System.out.println("RDMA endpoint on " + listening + " (device address " + device + ")");
  }

  private static Configuration hybridClient() {
    return RpcTestSupport.verbsClient(cluster.clientConf(), MAX_MESSAGE);
  }

  private static HybridRpcServer server() {
    return (HybridRpcServer) cluster.regionServer().getRpcServer();
  }

  @AfterClass
  public static void stop() throws Exception {
    if (admin != null) {
      admin.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  /** Put, batched Puts (Multi) and Get over verbs, counted on both sides; every row back. */
  @Test
  public void getPutAndMultiGoOverVerbs() throws Exception {
    RoutedCallChecks.getPutAndMulti(cluster, admin, hybridClient(), TableName.valueOf("routed"),
      ROWS);
  }

  @Test
  public void stockClientUsesSocketsUnchanged() throws Exception {
    RoutedCallChecks.stockClientUnchanged(admin, cluster.clientConf(),
      TableName.valueOf("stock_client"));
  }

  /** RDMA WRITE-sized responses over verbs; responses above the limit re-sent over sockets. */
  @Test
  public void oversizedResponsesFallBackOrFailClearly() throws Exception {
    RoutedCallChecks.oversizedResponses(cluster, admin, hybridClient(),
      TableName.valueOf("oversized"), MAX_MESSAGE);
  }

  /**
   * The RegionServer closes every verbs endpoint every 500 ms under two writers: nothing lost,
   * nothing applied twice.
   */
  @Test
  public void closingEndpointsUnderLoadLosesAndRepeatsNothing() throws Exception {
    RoutedCallChecks.killUnderLoad(admin, hybridClient(), TableName.valueOf("fallback"), 2,
      Integer.getInteger("strata.it.kill.ops", 100), 500, () -> server().closeRdmaConnections());
    assertTrue(RdmaRpcMetrics.count("server.endpoints.accepted") > 1);
  }

  /**
   * A hybrid client in another JVM ({@link CrossProcessClient}: this JVM's {@code java}, class
   * path and JVM options) through the cluster's ZooKeeper: its Puts, batched Put and Gets of every
   * row are counted over the endpoint by the client itself (not over sockets) and by this
   * RegionServer's endpoint counters during its run.
   */
  @Test
  public void clientInAnotherProcessGoesOverVerbs() throws Exception {
    TableName name = TableName.valueOf("cross_process");
    RpcTestSupport.createTable(admin, name);
    int rows = Integer.getInteger(CHILD_ROWS, 200);
    int timeoutS = Integer.getInteger(CHILD_TIMEOUT_S, 300);
    long gets = RdmaRpcMetrics.count("server.Get.calls");
    long mutates = RdmaRpcMetrics.count("server.Mutate.calls");
    long multis = RdmaRpcMetrics.count("server.Multi.calls");
    long accepted = RdmaRpcMetrics.count("server.endpoints.accepted");
    long bytesReceived = RdmaRpcMetrics.SERVER_BYTES_RECEIVED.getCount();

    List<String> cmd = new ArrayList<>();
    cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (!arg.startsWith("-agentlib") && !arg.startsWith("-javaagent")
        && !arg.startsWith("-Xdebug") && !arg.startsWith("-Xrunjdwp")) {
        cmd.add(arg);
      }
    }
    cmd.add("-Xmx384m");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(CrossProcessClient.class.getName());
    cmd.add(cluster.conf().get(HConstants.ZOOKEEPER_CLIENT_PORT));
    cmd.add(name.getNameAsString());
    cmd.add(Integer.toString(rows));
    cmd.add(Integer.toString(MAX_MESSAGE));
    cmd.add(System.getProperty(CHILD_TRANSPORT, "verbs"));
    File out = File.createTempFile("cross-process-client", ".log");
    long start = System.nanoTime();
    Process child = new ProcessBuilder(cmd).redirectErrorStream(true)
      .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
      .redirectOutput(out).start();
    String output = "";
    try {
      boolean exited = child.waitFor(timeoutS, TimeUnit.SECONDS);
      if (!exited) {
        child.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      }
      output = new String(Files.readAllBytes(out.toPath()), StandardCharsets.UTF_8);
      if (!exited) {
        fail("the client JVM did not exit within " + timeoutS + " s (" + CHILD_TIMEOUT_S
          + "); its output:\n" + output);
      }
      assertEquals("the client JVM's exit status; its output:\n" + output, 0, child.exitValue());
      Map<String, Long> counted = result(output);
      String why = "the client JVM's counters " + counted + "; its output:\n" + output;
      long childGets = counted.getOrDefault("Get.rdma", -1L);
      long childMutates = counted.getOrDefault("Mutate.rdma", -1L);
      long childMultis = counted.getOrDefault("Multi.rdma", -1L);
      assertEquals(why, 0L, (long) counted.getOrDefault("wrong", -1L));
      assertTrue("Gets over the endpoint in the client JVM; " + why, childGets >= 2L * rows);
      assertTrue("Puts over the endpoint in the client JVM; " + why, childMutates >= rows);
      assertTrue("the batch over the endpoint in the client JVM; " + why, childMultis >= 1);
      assertTrue("endpoint messages in the client JVM; " + why,
        counted.getOrDefault("messages.sent", -1L) >= childGets + childMutates + childMultis);
      long serverGets = RdmaRpcMetrics.count("server.Get.calls") - gets;
      long serverMutates = RdmaRpcMetrics.count("server.Mutate.calls") - mutates;
      long serverMultis = RdmaRpcMetrics.count("server.Multi.calls") - multis;
      String server = "the RegionServer counted Get " + serverGets + ", Mutate " + serverMutates
        + ", Multi " + serverMultis + " over endpoints, "
        + (RdmaRpcMetrics.count("server.endpoints.accepted") - accepted)
        + " endpoints accepted; " + why;
      assertTrue(server, serverGets >= childGets);
      assertTrue(server, serverMutates >= childMutates);
      assertTrue(server, serverMultis >= childMultis);
      assertTrue(server, RdmaRpcMetrics.count("server.endpoints.accepted") > accepted);
      assertTrue(server, RdmaRpcMetrics.SERVER_BYTES_RECEIVED.getCount() - bytesReceived
        > 2L * rows * CrossProcessClient.value(0).length);
      System.out.println("client JVM (" + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start)
        + " s): " + counted + "; server: Get.calls +" + serverGets + " Mutate.calls +"
        + serverMutates + " Multi.calls +" + serverMultis + " endpoints.accepted +"
        + (RdmaRpcMetrics.count("server.endpoints.accepted") - accepted) + " bytes.received +"
        + (RdmaRpcMetrics.SERVER_BYTES_RECEIVED.getCount() - bytesReceived));
    } catch (AssertionError | RuntimeException e) {
      if (output.isEmpty() && out.exists()) {
        output = new String(Files.readAllBytes(out.toPath()), StandardCharsets.UTF_8);
      }
      System.out.println("--- the client JVM's output:\n" + output + "--- end");
      throw e;
    } finally {
      if (child.isAlive()) {
        child.destroyForcibly();
      }
      out.delete();
    }
  }

  /** The {@link CrossProcessClient#RESULT} line's {@code name=value} pairs. */
  private static Map<String, Long> result(String output) {
    Map<String, Long> counted = new HashMap<>();
    for (String line : output.split("\n")) {
      if (line.startsWith(CrossProcessClient.RESULT)) {
        for (String pair : line.substring(CrossProcessClient.RESULT.length()).trim().split(" ")) {
          int eq = pair.indexOf('=');
          counted.put(pair.substring(0, eq), Long.parseLong(pair.substring(eq + 1)));
        }
      }
    }
    assertTrue("no line \"" + CrossProcessClient.RESULT + "\" from the client JVM:\n" + output,
      !counted.isEmpty());
    return counted;
  }
}
