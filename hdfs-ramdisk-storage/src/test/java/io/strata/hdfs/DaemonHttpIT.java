package io.strata.hdfs;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.strata.hdfs.sps.InProcessSatisfier;
import io.strata.hdfs.sps.SatisfierTool;
import io.strata.hdfs.tiermover.TierMover;
import io.strata.hdfs.tiermover.TierMoverTool;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * {@code strata satisfier} and {@code strata tier-mover} serve their figures and health over
 * Hadoop's HTTP server against a real MiniDFSCluster (satisfier mode external): the same figures
 * in {@code /jmx} and {@code /prometheus}, Healthy 1 while they work, and a satisfier that holds a
 * file it cannot place (no DataNode has room on SSD) reported stalled, Healthy 0 with the reason,
 * though it still runs.
 */
public class DaemonHttpIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static MiniDFSCluster cluster;
  private static Configuration conf;
  private static File dir;

  @BeforeClass
  public static void startCluster() throws Exception {
    dir = Files.createTempDirectory("strata-daemon-http").toFile();
    conf = new HdfsConfiguration();
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, dir.getAbsolutePath());
    conf.set(DFSConfigKeys.DFS_STORAGE_POLICY_SATISFIER_MODE_KEY, "external");
    conf.setLong(DFSConfigKeys.DFS_BLOCK_SIZE_KEY, 1 << 20);
    conf.setInt(DFSConfigKeys.DFS_REPLICATION_KEY, 1);
    conf.setInt(DFSConfigKeys.DFS_HEARTBEAT_INTERVAL_KEY, 1);
    conf.setLong(HdfsKeys.SPS_STALL_MS, 2_000);
    conf.set(HdfsKeys.SPS_HTTP_ADDRESS, "127.0.0.1:0");
    conf.set(HdfsKeys.TIERMOVER_HTTP_ADDRESS, "127.0.0.1:0");
    // SSD volumes smaller than a block: a file asked onto SSD cannot be placed.
    cluster = new MiniDFSCluster.Builder(conf, dir).numDataNodes(1).storagesPerDatanode(2)
      .storageTypes(new StorageType[] { StorageType.SSD, StorageType.DISK })
      .storageCapacities(new long[] { 1L << 19, -1 }).build();
    cluster.waitActive();
  }

  @AfterClass
  public static void stopCluster() {
    if (cluster != null) {
      cluster.shutdown(true);
    }
  }

  @Test
  public void satisfierServesFiguresAndReportsAStallAsUnhealthy() throws Exception {
    InProcessSatisfier sps = InProcessSatisfier.start(conf, cluster.getURI());
    try (DaemonHttp http = SatisfierTool.serve(conf, sps)) {
      assertTrue("port 0 took a free port: " + http.uri(), http.uri().getPort() > 0);
      JsonNode bean = waitForBean(http.uri(), "StrataSatisfier",
        b -> b.path("Healthy").asInt(-1) == 1);
      assertEquals(bean.toString(), 1, bean.path("Running").asInt());
      assertEquals(bean.toString(), 0, bean.path("Stalls").asInt());
      assertEquals(bean.toString(), 0, bean.path("FilesHeld").asInt());
      assertEquals(bean.toString(), "ok", bean.path("tag.HealthReason").asText());
      String prom = get(http.uri(), "/prometheus");
      assertEquals(prom, "1", promValue(prom, "strata_satisfier_healthy"));
      assertEquals(prom, "1", promValue(prom, "strata_satisfier_running"));
      assertEquals(prom, "0", promValue(prom, "strata_satisfier_stalls"));
      assertTrue(prom, promLine(prom, "strata_satisfier_healthy").contains("healthreason=\"ok\""));

      DistributedFileSystem fs = cluster.getFileSystem();
      fs.mkdirs(new Path("/ssd"));
      Path file = new Path("/ssd/one");
      try (FSDataOutputStream out = fs.create(file, (short) 1)) {
        out.write(new byte[1 << 20]);
      }
      fs.setStoragePolicy(new Path("/ssd"), "ALL_SSD");
      fs.satisfyStoragePolicy(file);

      long start = System.currentTimeMillis();
      bean = waitForBean(http.uri(), "StrataSatisfier", b -> b.path("Healthy").asInt(-1) == 0);
      System.err.printf("DaemonHttpIT: satisfier reported unhealthy in /jmx %d ms after the "
        + "request (stall setting 2000 ms)%n", System.currentTimeMillis() - start);
      String reason = bean.path("tag.HealthReason").asText();
      assertTrue(bean.toString(), reason.startsWith("stalled"));
      assertTrue(bean.toString(), reason.contains("no live DataNode has room on SSD"));
      assertEquals("it still runs: " + bean, 1, bean.path("Running").asInt());
      assertEquals(bean.toString(), 1, bean.path("Stalled").asInt());
      assertTrue(bean.toString(), bean.path("Stalls").asInt() >= 1);
      assertEquals(bean.toString(), 1, bean.path("FilesHeld").asInt());
      prom = get(http.uri(), "/prometheus");
      assertEquals(prom, "0", promValue(prom, "strata_satisfier_healthy"));
      assertTrue(prom, promLine(prom, "strata_satisfier_healthy")
        .contains("healthreason=\"stalled"));
      assertTrue(prom, Long.parseLong(promValue(prom, "strata_satisfier_stalls")) >= 1);
    } finally {
      sps.close();
    }
  }

  @Test
  public void tierMoverServesFiguresAndIsHealthyWhileFollowing() throws Exception {
    TierMover mover = TierMover.start(conf, cluster.getURI(),
      new File(dir, "tier-mover-state").toPath());
    try (DaemonHttp http = TierMoverTool.serve(conf, mover)) {
      DistributedFileSystem fs = cluster.getFileSystem();
      fs.mkdirs(new Path("/in"));
      fs.mkdirs(new Path("/archive"));
      fs.create(new Path("/in/f"), (short) 1).close();
      fs.rename(new Path("/in/f"), new Path("/archive/f"));
      JsonNode bean = waitForBean(http.uri(), "StrataTierMover",
        b -> b.path("Renames").asInt() >= 1);
      assertEquals(bean.toString(), 1, bean.path("Healthy").asInt());
      assertEquals(bean.toString(), "ok", bean.path("tag.HealthReason").asText());
      assertTrue(bean.toString(), bean.has("TxidsBehind") && bean.has("Queued")
        && bean.has("Moved") && bean.has("Failed"));
      String prom = get(http.uri(), "/prometheus");
      assertEquals(prom, "1", promValue(prom, "strata_tier_mover_healthy"));
      assertTrue(prom, Long.parseLong(promValue(prom, "strata_tier_mover_renames")) >= 1);
      for (String m : new String[] { "txids_behind", "queued", "moved", "failed" }) {
        promValue(prom, "strata_tier_mover_" + m);
      }
    } finally {
      mover.close();
    }
  }

  /** Waits up to 60 s (the JMX view is refreshed at the metrics period) for the bean. */
  private static JsonNode waitForBean(URI uri, String name, Predicate<JsonNode> ok)
    throws Exception {
    long deadline = System.currentTimeMillis() + 60_000;
    JsonNode last = null;
    while (System.currentTimeMillis() < deadline) {
      JsonNode beans = JSON.readTree(get(uri, "/jmx?qry=Hadoop:service=*,name=" + name))
        .path("beans");
      if (beans.size() == 1) {
        last = beans.get(0);
        if (ok.test(last)) {
          return last;
        }
      }
      Thread.sleep(500);
    }
    fail("bean " + name + " not as expected within 60 s: " + last);
    return null;
  }

  private static String promLine(String prom, String metric) {
    Matcher m = Pattern.compile("(?m)^" + metric + "\\{.*$").matcher(prom);
    if (!m.find()) {
      fail(metric + " not in /prometheus:\n" + prom);
    }
    return m.group();
  }

  private static String promValue(String prom, String metric) {
    String line = promLine(prom, metric);
    return line.substring(line.lastIndexOf(' ') + 1);
  }

  private static String get(URI uri, String path) throws IOException {
    HttpURLConnection c = (HttpURLConnection) uri.resolve(path).toURL().openConnection();
    c.setConnectTimeout(10_000);
    c.setReadTimeout(30_000);
    assertEquals(path, 200, c.getResponseCode());
    try (InputStream in = c.getInputStream()) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
