package io.strata.distribution;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.strata.bench.faults.FaultCampaign;
import io.strata.bench.ycsb.HBaseClient26;
import io.strata.bench.ycsb.YcsbRun;
import io.strata.bench.ycsb.YcsbRunner.Phase;
import io.strata.bench.ycsb.YcsbRunner;
import io.strata.bench.ycsb.YcsbWorkloads;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.AfterClass;
import org.junit.Assume;
import org.junit.BeforeClass;
import org.junit.FixMethodOrder;
import org.junit.Test;
import org.junit.runners.MethodSorters;

/**
 * The distribution end to end: the tarball the build made is unpacked into an empty directory and
 * the multi-process cluster is started from the unpacked tree alone ({@code bin/strata-cluster});
 * YCSB (a JVM of its own) loads the first rows, a client in this JVM more; the tarball's HBase
 * shell ({@code bin/shell -n}, another JVM) flips a family's flush policy and is refused an
 * unknown one; flushes and a compaction follow; the tarball's own {@code bin/placement} (another
 * JVM) reports every kind of file on its tier; no daemon listens on every interface;
 * {@code down} leaves no daemon behind; and {@code up} again (without {@code --fresh}) starts on
 * the same data, the table read back whole.
 */
@FixMethodOrder(MethodSorters.NAME_ASCENDING)
public class DistributionClusterIT {
  private static final int BASE_PORT = 27000;
  private static final TableName TABLE = TableName.valueOf("usertable");
  private static final byte[] FAMILY = Bytes.toBytes("d");

  private static File home;
  /** Whether the daemons run in network namespaces of their own, one per host. */
  private static boolean netns;
  private static File clusterDir;
  private static JsonNode status;

  @BeforeClass
  public static void unpackAndStart() throws Exception {
    File tarball = new File(System.getProperty("strata.dist.tarball"));
    assertTrue("no distribution at " + tarball + ": run the package phase", tarball.isFile());
    File work = new File("target/it-work").getAbsoluteFile();
    run(new File("."), 60, "rm", "-rf", work.getPath());
    File unpacked = new File(work, "unpacked");
    assertTrue(unpacked.mkdirs());
    run(unpacked, 120, "tar", "xzf", tarball.getAbsolutePath());
    File[] top = unpacked.listFiles();
    assertEquals("one top directory in the tarball", 1, top.length);
    home = top[0];
    clusterDir = new File(work, "cluster");
    netns = netnsAvailable();
    if (!netns) {
      System.err.println("DistributionClusterIT: not root or no network namespaces here: the "
        + "cluster runs on 127.0.0.1 (as root with iproute2 each host gets its own namespace)");
    }
    List<String> up = upCommand();
    up.add("--fresh");
    run(home, 600, up.toArray(new String[0]));
    File json = new File(work, "status.json");
    run(home, 60, "bin/strata-cluster", "status", "--dir", clusterDir.getPath(), "--json",
      json.getPath());
    status = new ObjectMapper().readTree(json);
  }

  private static List<String> upCommand() {
    List<String> up = new ArrayList<>(List.of("bin/strata-cluster", "up", "--dir",
      // HBase's own default heap: a RegionServer's memstore and block cache shares (0.4 each)
      // fill most of it under the fault campaign's load and read-back, and at 512 MB the live
      // set after a collection came within a few per cent of the limit, where a RegionServer
      // exits on OutOfMemoryError (bin/ starts every daemon with ExitOnOutOfMemoryError).
      clusterDir.getPath(), "--base-port", Integer.toString(BASE_PORT), "--heap", "1024",
      // Every open WAL reserves a 64 MB block on each of its 3 replicas' RAM tiers: with the
      // test's rolls and region moves 17 WALs were live at once, more than 3 x 1024 MB holds,
      // and HDFS rightly put one on its fallback (DISK). The tier is tmpfs: only what is
      // written takes memory.
      "--ram-mb", "2048"));
    if (netns) {
      up.add("--netns");
    }
    return up;
  }

  @AfterClass
  public static void stop() throws Exception {
    if (home != null && !stopped) {
      run(home, 300, "bin/strata-cluster", "down", "--dir", clusterDir.getPath());
    }
  }

  private static boolean stopped;

  @Test
  public void a_everyDaemonIsItsOwnProcess() throws Exception {
    Set<Long> pids = new HashSet<>();
    List<String> roles = new ArrayList<>();
    for (JsonNode d : status.get("daemons")) {
      assertTrue(d + " alive", d.get("alive").asBoolean());
      assertTrue(d + ": a pid of its own", pids.add(d.get("pid").asLong()));
      assertTrue(ProcessHandle.of(d.get("pid").asLong()).isPresent());
      roles.add(d.get("role").asText());
      // bin/'s daemon hygiene: the JVM carries its pid file's marker (status trusts the pid
      // only then), exits on OutOfMemoryError, and logs to a rolling file and a GC log.
      String cmdline = Files.readString(Path.of("/proc/" + d.get("pid").asLong() + "/cmdline"))
        .replace('\0', ' ');
      assertTrue(cmdline, cmdline.contains(" -Dstrata.pid.file=" + clusterDir.toPath()
        .toRealPath() + "/run/" + d.get("name").asText() + ".pid "));
      assertTrue(cmdline, cmdline.contains(" -XX:+ExitOnOutOfMemoryError "));
      String log = d.get("log").asText();
      assertTrue(log, new File(log).isFile());
      assertTrue(log, new File(log.substring(0, log.length() - 4) + "-gc.log").isFile());
    }
    assertEquals(List.of("zookeeper", "namenode", "datanode", "datanode", "datanode", "satisfier",
      "tier-mover", "master", "regionserver", "regionserver"), roles);
    String nnHost = netns ? "10.213.0.10" : "127.0.0.1";
    assertEquals(nnHost + ":" + BASE_PORT, status.get("zk").asText());
    assertEquals("hdfs://" + nnHost + ":" + (BASE_PORT + 1), status.get("hdfs").asText());
    if (netns) {
      // DataNode N and RegionServer N share host N's address; the NameNode host is another.
      Set<String> hosts = new HashSet<>();
      for (JsonNode d : status.get("daemons")) {
        hosts.add(d.get("host").asText());
      }
      assertEquals(Set.of("10.213.0.10", "10.213.0.11", "10.213.0.12", "10.213.0.13"), hosts);
      // Each host names its peers at once, both ways: a lookup that waited for the machine's
      // resolver (unreachable from the bridge) took 10 s and made `up` take 4 minutes.
      assertEquals("10.213.0.10", resolve("strata-h1", "strata-nn"));
      assertEquals("strata-h2", resolve("strata-nn", "10.213.0.12"));
    }
  }

  /**
   * Every daemon listens on its host's address (or loopback), none on every interface: the
   * sockets each daemon's process holds in LISTEN, from /proc (in its own network namespace
   * with --netns).
   */
  @Test
  public void a2_noDaemonListensOnEveryInterface() throws Exception {
    for (JsonNode d : status.get("daemons")) {
      List<java.net.InetSocketAddress> on = ListeningSockets.of(d.get("pid").asLong());
      System.err.println("DistributionClusterIT: " + d.get("name").asText() + " listens on "
        + on);
      String host = d.get("host").asText();
      for (java.net.InetSocketAddress a : on) {
        assertFalse(d.get("name").asText() + " listens on every interface: " + a + " (of " + on
          + ")", a.getAddress().isAnyLocalAddress());
        assertTrue(d.get("name").asText() + " listens on " + a + ", not on " + host,
          a.getAddress().getHostAddress().equals(host) || a.getAddress().isLoopbackAddress());
      }
      String address = d.get("address").asText();
      if (!address.isEmpty()) {
        int port = Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
        assertTrue(d + " listens on its port: " + on, on.stream().anyMatch(a -> a.getPort() == port
          && a.getAddress().getHostAddress().equals(host)));
      }
    }
  }

  /** {@code getent hosts NAME} inside network namespace strata-HOST, within 3 s. */
  private static String resolve(String host, String name) throws Exception {
    Process p = new ProcessBuilder("ip", "netns", "exec", host, "getent", "hosts", name)
      .redirectErrorStream(true).start();
    long t0 = System.nanoTime();
    assertTrue("resolving " + name + " in " + host + " took over 3 s",
      p.waitFor(3, TimeUnit.SECONDS));
    String[] out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim()
      .split("\\s+");
    assertEquals("getent hosts " + name + " in " + host + ": " + String.join(" ", out), 0,
      p.exitValue());
    System.err.printf("DistributionClusterIT: %s resolves %s in %.1f ms%n", host, name,
      (System.nanoTime() - t0) / 1e6);
    return name.equals(out[0]) ? out[1] : out[0];
  }

  /** Root, iproute2, and a network namespace can be made here (not inside every container). */
  private static boolean netnsAvailable() throws Exception {
    if (!"root".equals(System.getProperty("user.name")) || !new File("/usr/sbin/ip").canExecute()
      && !new File("/sbin/ip").canExecute()) {
      return false;
    }
    Process p = new ProcessBuilder("sh", "-c",
      "ip netns add strata-it-probe && ip netns del strata-it-probe").redirectErrorStream(true)
      .start();
    return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
  }

  @Test
  public void b_everyKindOfFileOnItsTier() throws Exception {
    Configuration conf = HBaseConfiguration.create();
    conf.set(HConstants.ZOOKEEPER_QUORUM, netns ? "10.213.0.10" : "127.0.0.1");
    conf.setInt(HConstants.ZOOKEEPER_CLIENT_PORT, BASE_PORT);
    try (Connection c = ConnectionFactory.createConnection(conf); Admin admin = c.getAdmin()) {
      admin.createTable(TableDescriptorBuilder.newBuilder(TABLE)
        .setColumnFamily(ColumnFamilyDescriptorBuilder.of(FAMILY)).build());
      // The first rows from YCSB, in a JVM of its own, through the cluster's ZooKeeper.
      Path ycsbDir = new File("target/it-work/ycsb").toPath().toAbsolutePath();
      YcsbRun ycsb = new YcsbRunner(YcsbWorkloads.write(YcsbWorkloads.A, ycsbDir))
        .property(HBaseClient26.COLUMN_FAMILY, Bytes.toString(FAMILY))
        .property(HConstants.ZOOKEEPER_QUORUM, netns ? "10.213.0.10" : "127.0.0.1")
        .property(HConstants.ZOOKEEPER_CLIENT_PORT, Integer.toString(BASE_PORT))
        .property("recordcount", "4000").threads(2).jvmOption("-Xmx384m")
        .timeout(Duration.ofMinutes(4)).execute(Phase.LOAD, ycsbDir.resolve("load"));
      assertEquals(ycsb.stdout().toString(), 4000,
        ycsb.report().operation("INSERT").returned("OK"));
      try (Table t = c.getTable(TABLE)) {
        assertEquals(4000, count(t));
        admin.flush(TABLE);
        load(t, 4000, 8000);
        admin.flush(TABLE);
        // Two flushed files compacted into one; the two are archived.
        admin.majorCompact(TABLE);
        waitUntil(120, "the major compaction", () -> admin.getCompactionState(TABLE)
          == org.apache.hadoop.hbase.client.CompactionState.NONE && storeFiles(admin) == 1);
        // The family's flush policy flipped as an operator does: alter in the HBase shell.
        shell("alter 'usertable', {NAME => 'd', CONFIGURATION => "
          + "{'strata.flush.storage.policy' => 'ONE_SSD'}}");
        assertEquals("ONE_SSD", admin.getDescriptor(TABLE).getColumnFamily(FAMILY)
          .getConfigurationValue("strata.flush.storage.policy"));
        // A policy HDFS does not have: the shell fails naming it, and nothing changed.
        AssertionError refused = assertThrows(AssertionError.class, () -> shell(
          "alter 'usertable', {NAME => 'd', CONFIGURATION => "
            + "{'strata.flush.storage.policy' => 'NO_SUCH_POLICY'}}"));
        assertTrue(refused.getMessage(), refused.getMessage().contains(
          "strata.flush.storage.policy = 'NO_SUCH_POLICY' is not a storage policy"));
        assertEquals("ONE_SSD", admin.getDescriptor(TABLE).getColumnFamily(FAMILY)
          .getConfigurationValue("strata.flush.storage.policy"));
        load(t, 8000, 12000);
        admin.flush(TABLE);
        assertEquals(11999L, Bytes.toLong(t.get(new Get(row(11999))).getValue(FAMILY,
          Bytes.toBytes("n"))));
      }
    }
    // The tarball's own tool, in its own JVM, against the cluster's configuration.
    File report = new File("target/it-work/placement.json").getAbsoluteFile();
    JsonNode[] last = new JsonNode[1];
    waitUntil(180, "archived files on ARCHIVE and every kind on its tier", () -> {
      run(home, 120, List.of("STRATA_CONF_DIR=" + new File(clusterDir, "conf")), "bin/placement",
        "--files", "--json", report.getPath());
      JsonNode doc = new ObjectMapper().readTree(report);
      last[0] = doc;
      // Store files of this table only: hbase:meta's flushes land in "flushed" too.
      Map<String, Map<String, Long>> replicas = new HashMap<>();
      Map<String, Integer> files = new HashMap<>();
      List<Map<String, Long>> walFiles = new ArrayList<>();
      for (JsonNode f : doc.get("files")) {
        String kind = f.get("kind").asText();
        if (!kind.equals("wal") && !f.get("path").asText().contains("/default/usertable/")) {
          continue;
        }
        files.merge(kind, 1, Integer::sum);
        f.get("replicas").fields().forEachRemaining(e -> replicas
          .computeIfAbsent(kind, k -> new HashMap<>()).merge(e.getKey(), e.getValue().asLong(),
            Long::sum));
        if (kind.equals("wal") && f.get("replicas").size() > 0) {
          Map<String, Long> one = new HashMap<>();
          f.get("replicas").fields().forEachRemaining(e -> one.put(e.getKey(),
            e.getValue().asLong()));
          walFiles.add(one);
        }
      }
      return files.getOrDefault("flushed", 0) == 1 && files.getOrDefault("archived", 0) >= 2
        && walsOnRamSsd(walFiles) && only(replicas.get("archived"), "ARCHIVE")
        && only(replicas.get("compacted"), "SSD")
        && replicas.get("flushed").getOrDefault("SSD", 0L) == 1
        && replicas.get("flushed").getOrDefault("DISK", 0L) == 2;
    });
    JsonNode family = last[0].get("families").get("usertable/d");
    assertEquals(last[0].toString(), "ONE_SSD", family.get("flushed").get("policy").asText());
    assertEquals("family strata.flush.storage.policy", family.get("flushed").get("rule").asText());
  }

  /**
   * The quick fault campaign on this cluster: a RegionServer, a DataNode and the tier mover
   * killed with SIGKILL and restarted under a verifying load; nothing acknowledged lost, no
   * Increment applied twice, writes and placement back.
   */
  @Test
  public void b2_quickFaultCampaignLosesNothing() throws Exception {
    // About 3 minutes, part of ./strata test; -Dstrata.chaos.quick=false leaves it out.
    Assume.assumeTrue("quick fault campaign left out (-Dstrata.chaos.quick=false)",
      Boolean.getBoolean("strata.chaos.quick"));
    io.strata.bench.faults.ChaosResult result = new FaultCampaign(new File(home,
      "bin/strata-cluster"), clusterDir, FaultCampaign.Settings.quick(), System.out)
      .run(FaultCampaign.QUICK);
    File report = new File("target/it-work/chaos");
    io.strata.bench.faults.ChaosReport.write(report, result, "strata chaos --quick");
    // The fields as results.json names them.
    JsonNode results = io.strata.bench.common.BenchJson.tree(result);
    assertTrue(new File(report, "report.md").isFile());
    java.awt.image.BufferedImage png = javax.imageio.ImageIO.read(new File(report,
      "throughput.png"));
    assertTrue("throughput.png decodes", png != null && png.getWidth() > 500);
    assertEquals(FaultCampaign.QUICK.size(), results.get("faults").size());
    assertEquals(FaultCampaign.QUICK.size(), results.get("markers").size());
    assertTrue(results.toString(), results.get("acked_per_s").size() > 30);
    for (JsonNode f : results.get("faults")) {
      assertEquals(f.toString(), 0, f.get("lost").asLong());
      assertEquals(f.toString(), 0, f.get("duplicated").asLong());
      assertTrue(f.toString(), f.get("acked_writes").asLong() > 0);
      // The ledger is exact: every write acknowledged before the verification was read back.
      assertEquals(f.toString(), f.get("acked_writes").asLong(), f.get("checked").asLong());
      assertEquals(f.toString(), 0, f.get("unreadable").asLong());
      // Failed or timed-out calls are ambiguous, each read back: landed or not, nothing else.
      assertTrue(f.toString(), f.has("ambiguous"));
      assertEquals(f.toString(), 0, f.get("ambiguous_unresolved").asLong());
      // Reads made while the fault happened: none went back or returned what was never written.
      assertTrue(f.toString(), f.get("reads_checked").asLong() > 0);
      assertEquals(f.toString(), 0, f.get("read_problems").asLong());
      assertTrue(f.toString(), f.get("recovered").asBoolean());
    }
    // The final pass, the load stopped: every write acknowledged, those after the last fault's
    // verification included, read back; every ambiguous one resolved.
    JsonNode fin = results.get("final");
    assertTrue(results.toString(), results.get("final_verified").asBoolean());
    long lastChecked = results.get("faults").get(FaultCampaign.QUICK.size() - 1)
      .get("acked_writes").asLong();
    assertTrue(fin.toString(), fin.get("acked_writes").asLong() > lastChecked);
    assertEquals(fin.toString(), fin.get("acked_writes").asLong(), fin.get("checked").asLong());
    assertEquals(fin.toString(), 0, fin.get("lost").asLong());
    assertEquals(fin.toString(), 0, fin.get("duplicated").asLong());
    assertEquals(fin.toString(), 0, fin.get("read_problems").asLong());
  }

  @Test
  public void c_downLeavesNoDaemonBehind() throws Exception {
    try (Connection c = ConnectionFactory.createConnection(clientConf());
      Table t = c.getTable(TABLE)) {
      rowsBeforeDown = count(t);
    }
    run(home, 300, "bin/strata-cluster", "down", "--dir", clusterDir.getPath());
    stopped = true;
    for (JsonNode d : status.get("daemons")) {
      assertFalse(d + " still running after down",
        ProcessHandle.of(d.get("pid").asLong()).map(ProcessHandle::isAlive).orElse(false));
    }
    // Layer by layer: every RegionServer closed its regions and stopped on TERM, none was
    // killed (TERM to every daemon at once left them retrying a stopped ZooKeeper for 30 s).
    String downLog = Files.readString(new File("target/it-work/commands.log").toPath());
    downLog = downLog.substring(downLog.lastIndexOf("$ bin/strata-cluster down"));
    assertFalse(downLog, downLog.contains("killing it"));
    if (netns) {
      assertFalse("/etc/netns/strata-nn left behind", new File("/etc/netns/strata-nn").exists());
    }
    // down again: nothing to stop, no error
    run(home, 60, "bin/strata-cluster", "down", "--dir", clusterDir.getPath());
  }

  private static int rowsBeforeDown = -1;

  /**
   * up again without --fresh starts on the cluster down left: the NameNode is not formatted
   * again and the table written before reads back whole.
   */
  @Test
  public void d_upAgainKeepsTheTables() throws Exception {
    assertTrue("rows counted before down: " + rowsBeforeDown, rowsBeforeDown > 0);
    File formatLog = new File(clusterDir, "logs/namenode-format.log");
    long formatted = formatLog.lastModified();
    stopped = false;
    long t0 = System.nanoTime();
    run(home, 600, upCommand().toArray(new String[0]));
    System.err.printf("DistributionClusterIT: up again on the kept cluster in %.0f s%n",
      (System.nanoTime() - t0) / 1e9);
    String upLog = Files.readString(new File("target/it-work/commands.log").toPath());
    upLog = upLog.substring(upLog.lastIndexOf("$ bin/strata-cluster up"));
    assertTrue(upLog, upLog.contains("keeping the cluster in "));
    assertEquals("the NameNode was not formatted again", formatted, formatLog.lastModified());
    try (Connection c = ConnectionFactory.createConnection(clientConf());
      Table t = c.getTable(TABLE)) {
      assertEquals(rowsBeforeDown, count(t));
    }
    run(home, 300, "bin/strata-cluster", "down", "--dir", clusterDir.getPath());
    stopped = true;
  }

  private static Configuration clientConf() {
    Configuration conf = HBaseConfiguration.create();
    conf.set(HConstants.ZOOKEEPER_QUORUM, netns ? "10.213.0.10" : "127.0.0.1");
    conf.setInt(HConstants.ZOOKEEPER_CLIENT_PORT, BASE_PORT);
    return conf;
  }

  private static int count(Table t) throws IOException {
    int n = 0;
    try (org.apache.hadoop.hbase.client.ResultScanner scanner = t.getScanner(
      new org.apache.hadoop.hbase.client.Scan())) {
      for (org.apache.hadoop.hbase.client.Result r : scanner) {
        n++;
      }
    }
    return n;
  }

  private static int storeFiles(Admin admin) throws IOException {
    int n = 0;
    for (var server : admin.getClusterMetrics().getLiveServerMetrics().values()) {
      for (var region : server.getRegionMetrics().values()) {
        if (Bytes.toString(region.getRegionName()).startsWith(TABLE.getNameAsString() + ",")) {
          n += region.getStoreFileCount();
        }
      }
    }
    return n;
  }

  /** Whether every replica counted is on {@code type} (and there is one). */
  /** Live WALs on RAM_SSD: one replica of each block on NVDIMM, two on SSD. */
  /**
   * Live WALs under RAM_SSD: no WAL replica anywhere but NVDIMM and SSD, and WALs written since
   * the quick fault campaign with one replica on the RAM tier and two on SSD. Per file, not
   * summed: a WAL open when the campaign killed a DataNode went on with the replicas left in its
   * pipeline (two, with three DataNodes there is none to replace the third) and stays so until
   * HDFS re-replicates it after HBase rolls it, so its counts are not the policy's.
   */
  private static boolean walsOnRamSsd(List<Map<String, Long>> walFiles) {
    boolean asPolicy = false;
    for (Map<String, Long> r : walFiles) {
      long ssd = r.getOrDefault("SSD", 0L);
      long nvdimm = r.getOrDefault("NVDIMM", 0L);
      if (ssd + nvdimm != r.values().stream().mapToLong(Long::longValue).sum()) {
        return false;
      }
      asPolicy |= nvdimm > 0 && ssd == 2 * nvdimm;
    }
    return asPolicy;
  }

  private static boolean only(Map<String, Long> replicas, String type) {
    return replicas != null && replicas.getOrDefault(type, 0L) > 0 && replicas.size() == 1;
  }

  private static byte[] row(long i) {
    return Bytes.toBytes(String.format("user%08d", i));
  }

  private static void load(Table t, long from, long to) throws IOException {
    List<Put> batch = new ArrayList<>();
    byte[] value = new byte[1024];
    for (long i = from; i < to; i++) {
      batch.add(new Put(row(i)).addColumn(FAMILY, Bytes.toBytes("v"), value)
        .addColumn(FAMILY, Bytes.toBytes("n"), Bytes.toBytes(i)));
      if (batch.size() == 500) {
        t.put(batch);
        batch.clear();
      }
    }
    t.put(batch);
  }

  interface Check {
    boolean ok() throws Exception;
  }

  private static void waitUntil(int seconds, String what, Check check) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (!check.ok()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(what + " not reached within " + seconds + " s");
      }
      Thread.sleep(2000);
    }
  }

  /**
   * Runs the tarball's HBase shell non-interactively on the cluster's configuration; fails with
   * the shell's output when the shell exits non-zero (-n stops at the first error).
   */
  private static void shell(String script) throws Exception {
    File file = File.createTempFile("shell", ".rb", new File("target/it-work"));
    // As upstream's shell scripts do, the script ends with exit: otherwise the shell goes on to
    // read commands from its standard input (/dev/null in run, so it would end there too).
    Files.writeString(file.toPath(), script + "\nexit\n", StandardCharsets.UTF_8);
    run(home, 180, List.of("STRATA_CONF_DIR=" + new File(clusterDir, "conf"), "STRATA_HEAP=384m"),
      "bin/shell", "-n", file.getAbsolutePath());
  }

  private static void run(File dir, int seconds, String... command) throws Exception {
    run(dir, seconds, List.of(), command);
  }

  /**
   * Runs a command to completion, standard input from /dev/null; its output goes to
   * target/it-work/commands.log, and its last lines into the error when it fails.
   */
  private static void run(File dir, int seconds, List<String> env, String... command)
    throws Exception {
    File log = new File("target/it-work/commands.log").getAbsoluteFile();
    log.getParentFile().mkdirs();
    // Beside it-work, not in it: the first command run removes it-work.
    File out = File.createTempFile("command", ".out", new File("target").getAbsoluteFile());
    ProcessBuilder pb = new ProcessBuilder(command).directory(dir).redirectErrorStream(true)
      .redirectOutput(out).redirectInput(new File("/dev/null"));
    for (String e : env) {
      int eq = e.indexOf('=');
      pb.environment().put(e.substring(0, eq), e.substring(eq + 1));
    }
    Process p = pb.start();
    boolean finished = p.waitFor(seconds, TimeUnit.SECONDS);
    if (!finished) {
      p.destroyForcibly();
    }
    String output = Files.readString(out.toPath(), StandardCharsets.UTF_8);
    out.delete();
    log.getParentFile().mkdirs();
    Files.writeString(log.toPath(), "$ " + String.join(" ", command) + "\n" + output,
      StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.CREATE,
      java.nio.file.StandardOpenOption.APPEND);
    String tail = output.substring(Math.max(0, output.length() - 2000));
    if (!finished) {
      throw new AssertionError(String.join(" ", command) + " did not finish within " + seconds
        + " s (output: " + log + "): " + tail);
    }
    if (p.exitValue() != 0) {
      throw new AssertionError(String.join(" ", command) + " exited " + p.exitValue()
        + " (output: " + log + "): " + tail);
    }
  }
}
