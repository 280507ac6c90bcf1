package io.strata.distribution;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.BlockStoragePolicy;
import org.apache.hadoop.hdfs.protocol.HdfsConstants.DatanodeReportType;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.junit.After;
import org.junit.Test;

/**
 * The rollback of INSTALL.md on real daemons from the tarball: a NameNode and three DataNodes
 * started with {@code bin/daemon} (the overlay, {@code RAM_SSD} configured), files written under
 * {@code RAM_SSD} (a directory's policy and a file's own), then {@code bin/rollback-policies
 * --map RAM_SSD=ONE_SSD --checkpoint}, then the same daemons on the stock jars alone
 * ({@code lib/upstream}: hadoop-hdfs 3.4.2 as released) with every Strata key removed. The stock
 * NameNode starts, every file reads back byte for byte, new files go into the former
 * {@code RAM_SSD} directory, a DataNode's death makes the redundancy monitor place replicas by the
 * files' policies, and a second start replays its own edits: the NameNode stays up throughout.
 * Without the rollback the stock NameNode fails at its first start (edit replay meets id 3,
 * {@code FSDirectory.getStorageTypeDeltas}).
 */
public class RollbackIT {

  private static final int BASE_PORT = 27600;
  private static final int NN_PORT = BASE_PORT + 1;
  private static final int DATANODES = 3;
  private static final int LEN = (5 << 20) / 2;

  private final List<Process> stock = new ArrayList<>();
  private File home;
  private File work;

  @After
  public void stopEverything() throws Exception {
    for (Process p : stock) {
      p.destroy();
    }
    for (Process p : stock) {
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    }
    if (home != null) {
      for (int i = 1; i <= DATANODES; i++) {
        daemon("datanode-" + i, "datanode", "stop");
      }
      daemon("namenode", "namenode", "stop");
    }
  }

  @Test
  public void rollbackToStockHdfsKeepsEveryFileAndTheNameNodeUp() throws Exception {
    File tarball = new File(System.getProperty("strata.dist.tarball"));
    assertTrue("no distribution at " + tarball + ": run the package phase", tarball.isFile());
    work = Files.createTempDirectory(new File("target").getAbsoluteFile().toPath(), "rollback")
      .toFile();
    Process untar = new ProcessBuilder("tar", "-xzf", tarball.getPath(), "-C", work.getPath())
      .redirectErrorStream(true).start();
    untar.getInputStream().readAllBytes();
    assertTrue(untar.waitFor(300, TimeUnit.SECONDS));
    home = new File(work, tarball.getName().replace("-bin.tar.gz", ""));
    assertTrue(home.toString(), new File(home, "bin/rollback-policies").canExecute());
    assertTrue("the stock hadoop-hdfs jar is in lib/upstream",
      new File(home, "lib/upstream/hadoop-hdfs-3.4.2.jar").isFile());
    for (int p = BASE_PORT; p < BASE_PORT + 50; p++) {
      assertTrue("port " + p + " is taken: another cluster runs here?", free(p));
    }

    // 1. HDFS with Strata: the overlay, RAM_SSD configured, Strata's volume chooser.
    File strataConf = conf("strata-conf", true);
    run(120, strataConf, "bin/daemon", "namenode", "run", "-format", "-nonInteractive");
    daemon("namenode", "namenode", "start");
    for (int i = 1; i <= DATANODES; i++) {
      List<String> args = new ArrayList<>(List.of("datanode", "start"));
      args.addAll(datanodeArgs(i));
      daemon("datanode-" + i, args.toArray(new String[0]));
    }
    DistributedFileSystem fs = client();
    waitForDataNodes(fs, DATANODES, null);
    assertTrue("RAM_SSD is defined", policyNames(fs).contains("RAM_SSD"));

    Path wals = new Path("/hbase/WALs");
    Path store = new Path("/hbase/data/default/t/r/cf");
    fs.mkdirs(new Path(wals, "rs1"));
    fs.mkdirs(store);
    fs.setStoragePolicy(wals, "RAM_SSD");
    fs.setStoragePolicy(store, "HOT");
    Map<Path, byte[]> digests = new LinkedHashMap<>();
    for (int i = 0; i < 4; i++) {
      digests.put(new Path(wals, "rs1/wal." + i), write(fs, new Path(wals, "rs1/wal." + i), i));
    }
    Path own = new Path(store, "hfile-own-policy");
    digests.put(own, write(fs, own, 10));
    fs.setStoragePolicy(own, "RAM_SSD");
    Path plain = new Path(store, "hfile-hot");
    digests.put(plain, write(fs, plain, 11));
    assertTrue("a WAL has a replica on the RAM tier",
      types(fs, new Path(wals, "rs1/wal.0")).contains(StorageType.NVDIMM));

    // 2. The rollback: while the overlay is still in place.
    String out = run(600, strataConf, "bin/rollback-policies", "--map", "RAM_SSD=ONE_SSD",
      "--checkpoint");
    assertTrue(out, out.contains("set ONE_SSD on dir /hbase/WALs (was RAM_SSD (id 3))"));
    assertTrue(out, out.contains("set ONE_SSD on file " + own + " (was RAM_SSD (id 3))"));
    assertTrue(out, out.contains("every replica under the changed entries is on its policy's"));
    assertTrue(out, out.contains("the namespace is saved"));
    run(120, strataConf, "bin/undefined-policies", "--policy", "RAM_SSD", "/");
    fs.close();
    for (int i = 1; i <= DATANODES; i++) {
      daemon("datanode-" + i, "datanode", "stop");
    }
    daemon("namenode", "namenode", "stop");

    // 3. Stock: upstream's jars alone, no Strata key.
    File stockConf = conf("stock-conf", false);
    Process nn = startStock("namenode", stockConf, "org.apache.hadoop.hdfs.server.namenode.NameNode");
    List<Process> dns = new ArrayList<>();
    for (int i = 1; i <= DATANODES; i++) {
      dns.add(startStock("datanode-" + i, stockConf,
        "org.apache.hadoop.hdfs.server.datanode.DataNode", datanodeArgs(i).toArray(new String[0])));
    }
    fs = client();
    waitForDataNodes(fs, DATANODES, nn);
    waitUntil(120, "the stock NameNode out of safe mode", nn, safeModeOff(fs));
    assertFalse("the stock NameNode knows no RAM_SSD", policyNames(fs).contains("RAM_SSD"));
    assertEquals("ONE_SSD", fs.getStoragePolicy(wals).getName());
    assertEquals("ONE_SSD", fs.getStoragePolicy(own).getName());
    assertEquals("HOT", fs.getStoragePolicy(plain).getName());
    readBack(fs, digests);
    for (Path p : digests.keySet()) {
      assertFalse(p + " has no replica left on the RAM tier",
        types(fs, p).contains(StorageType.NVDIMM));
    }

    // New files in the former RAM_SSD directory.
    Path fresh = new Path(wals, "rs1/wal.after");
    digests.put(fresh, write(fs, fresh, 20));
    assertEquals(List.of(StorageType.SSD, StorageType.DISK), distinct(types(fs, fresh)));

    // A DataNode dies: the redundancy monitor chooses targets by each file's policy.
    int victim = -1;
    for (int i = 0; i < DATANODES; i++) {
      if (holdsReplicaOf(fs, i + 1, new Path(wals, "rs1/wal.0"))) {
        victim = i;
      }
    }
    assertTrue("a DataNode holds a replica of the first WAL", victim >= 0);
    dns.get(victim).destroyForcibly();
    final DistributedFileSystem client = fs;
    waitUntil(180, "every block back to two live replicas after datanode-" + (victim + 1)
      + " died", nn, fullyReplicated(client, digests.keySet(), "127.0.0.1:" + (BASE_PORT + 10
        + 10 * (victim + 1))));
    assertTrue("the stock NameNode is up after the redundancy monitor's work", nn.isAlive());
    readBack(fs, digests);

    // A second start of the stock NameNode replays the edits it wrote itself.
    fs.close();
    nn.destroy();
    assertTrue(nn.waitFor(60, TimeUnit.SECONDS));
    stock.remove(nn);
    nn = startStock("namenode", stockConf, "org.apache.hadoop.hdfs.server.namenode.NameNode");
    fs = client();
    final DistributedFileSystem again = fs;
    waitUntil(180, "the restarted stock NameNode out of safe mode", nn, safeModeOff(again));
    readBack(fs, digests);
    Thread.sleep(5000);
    assertTrue("the stock NameNode stays up", nn.isAlive());
    fs.close();
  }

  /** The site files: with the overlay's keys (strata) or stock, without any Strata key. */
  private File conf(String name, boolean strata) throws IOException {
    File dir = new File(work, name);
    dir.mkdirs();
    Files.writeString(new File(dir, "core-site.xml").toPath(), site(Map.of("fs.defaultFS",
      "hdfs://127.0.0.1:" + NN_PORT)));
    Map<String, String> hdfs = new LinkedHashMap<>();
    hdfs.put("dfs.namenode.name.dir", new File(work, "data/namenode").getPath());
    hdfs.put("dfs.namenode.rpc-address", "127.0.0.1:" + NN_PORT);
    hdfs.put("dfs.namenode.http-address", "127.0.0.1:" + (BASE_PORT + 2));
    hdfs.put("dfs.namenode.secondary.http-address", "127.0.0.1:" + (BASE_PORT + 3));
    hdfs.put("dfs.replication", "2");
    hdfs.put("dfs.blocksize", "1048576");
    hdfs.put("dfs.storage.policy.enabled", "true");
    hdfs.put("dfs.storage.policy.satisfier.mode", "external");
    hdfs.put("dfs.heartbeat.interval", "1");
    // A DataNode is dead after 2 x this + 10 heartbeats.
    hdfs.put("dfs.namenode.heartbeat.recheck-interval", "2000");
    hdfs.put("dfs.namenode.redundancy.interval.seconds", "1");
    hdfs.put("dfs.namenode.reconstruction.pending.timeout-sec", "10");
    hdfs.put("dfs.namenode.safemode.extension", "0");
    hdfs.put("dfs.datanode.round-robin-volume-choosing-policy.additional-available-space", "0");
    if (strata) {
      hdfs.put("dfs.datanode.fsdataset.volume.choosing.policy",
        "io.strata.hdfs.chooser.LatencyAwareVolumeChoosingPolicy");
      hdfs.put("strata.storage.policies", "RAM_SSD");
      hdfs.put("strata.storage.policy.RAM_SSD.id", "3");
      hdfs.put("strata.storage.policy.RAM_SSD.storage-types", "NVDIMM,SSD,SSD");
      hdfs.put("strata.storage.policy.RAM_SSD.creation-fallbacks", "SSD,DISK");
      hdfs.put("strata.storage.policy.RAM_SSD.replication-fallbacks", "SSD,DISK");
    }
    Files.writeString(new File(dir, "hdfs-site.xml").toPath(), site(hdfs));
    Files.writeString(new File(dir, "log4j.properties").toPath(), "log4j.rootLogger=INFO,c\n"
      + "log4j.appender.c=org.apache.log4j.ConsoleAppender\n"
      + "log4j.appender.c.layout=org.apache.log4j.PatternLayout\n"
      + "log4j.appender.c.layout.ConversionPattern=%d %p %c{2}: %m%n\n");
    return dir;
  }

  private static String site(Map<String, String> keys) {
    StringBuilder b = new StringBuilder("<?xml version=\"1.0\"?>\n<configuration>\n");
    keys.forEach((k, v) -> b.append("  <property><name>").append(k).append("</name><value>")
      .append(v).append("</value></property>\n"));
    return b.append("</configuration>\n").toString();
  }

  private List<String> datanodeArgs(int i) {
    File d = new File(work, "data/datanode-" + i);
    int port = BASE_PORT + 10 + 10 * i;
    return List.of("-D", "dfs.datanode.data.dir=[NVDIMM]" + d + "/ram,[SSD]" + d + "/ssd,[DISK]"
      + d + "/disk", "-D", "dfs.datanode.address=127.0.0.1:" + port, "-D",
      "dfs.datanode.http.address=127.0.0.1:" + (port + 1), "-D",
      "dfs.datanode.ipc.address=127.0.0.1:" + (port + 2));
  }

  /** bin/daemon with its own pid and log directory per daemon name. */
  private void daemon(String name, String... args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add("bin/daemon");
    command.addAll(List.of(args));
    runEnv(120, List.of("STRATA_CONF_DIR=" + new File(work, "strata-conf"), "STRATA_PID_DIR="
      + new File(work, "run/" + name), "STRATA_LOG_DIR=" + new File(work, "logs/" + name),
      "STRATA_HEAP=256m"), command.toArray(new String[0]));
  }

  /** A daemon on upstream's jars alone: lib/upstream and lib/webapps, nothing of Strata. */
  private Process startStock(String name, File conf, String main, String... args)
    throws IOException {
    List<String> command = new ArrayList<>(List.of(
      new File(System.getProperty("java.home"), "bin/java").getPath(), "-Xmx256m", "-cp",
      conf + ":" + home + "/lib/upstream/*:" + home + "/lib/webapps", main));
    command.addAll(List.of(args));
    File log = new File(work, "logs/stock-" + name + ".log");
    log.getParentFile().mkdirs();
    Process p = new ProcessBuilder(command).redirectErrorStream(true)
      .redirectOutput(ProcessBuilder.Redirect.appendTo(log)).start();
    stock.add(p);
    return p;
  }

  private DistributedFileSystem client() throws IOException {
    Configuration conf = new Configuration();
    conf.set("fs.defaultFS", "hdfs://127.0.0.1:" + NN_PORT);
    conf.set("fs.hdfs.impl.disable.cache", "true");
    conf.setLong("dfs.blocksize", 1048576);
    return (DistributedFileSystem) FileSystem.get(conf);
  }

  private void waitForDataNodes(DistributedFileSystem fs, int n, Process nn) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
    while (true) {
      if (nn != null && !nn.isAlive()) {
        throw new AssertionError("the stock NameNode exited (status " + nn.exitValue()
          + ") while starting; its log: " + tail("logs/stock-namenode.log"));
      }
      try {
        if (fs.getDataNodeStats(DatanodeReportType.LIVE).length == n) {
          return;
        }
      } catch (IOException e) {
        // The NameNode is still starting.
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError(n + " live DataNodes not seen within 180 s; logs in " + work
          + "/logs");
      }
      Thread.sleep(1000);
    }
  }

  private static byte[] write(DistributedFileSystem fs, Path p, int seed) throws Exception {
    byte[] data = new byte[LEN];
    new Random(seed).nextBytes(data);
    try (FSDataOutputStream o = fs.create(p, (short) 2)) {
      o.write(data);
    }
    return MessageDigest.getInstance("SHA-256").digest(data);
  }

  private static void readBack(DistributedFileSystem fs, Map<Path, byte[]> digests)
    throws Exception {
    for (Map.Entry<Path, byte[]> e : digests.entrySet()) {
      byte[] back = new byte[LEN];
      try (FSDataInputStream in = fs.open(e.getKey())) {
        in.readFully(back);
        assertEquals(e.getKey() + " has no more bytes", -1, in.read());
      }
      assertArrayEquals(e.getKey() + " reads back", e.getValue(),
        MessageDigest.getInstance("SHA-256").digest(back));
    }
  }

  private static List<StorageType> types(DistributedFileSystem fs, Path p) throws IOException {
    List<StorageType> t = new ArrayList<>();
    for (LocatedBlock b : fs.getClient().getLocatedBlocks(p.toString(), 0).getLocatedBlocks()) {
      t.addAll(List.of(b.getStorageTypes()));
    }
    return t;
  }

  /** The types among the replicas, in the enum's order (fastest first). */
  private static List<StorageType> distinct(List<StorageType> t) {
    return new ArrayList<>(new java.util.TreeSet<>(t));
  }

  private boolean holdsReplicaOf(DistributedFileSystem fs, int dn, Path p) throws IOException {
    String addr = "127.0.0.1:" + (BASE_PORT + 10 + 10 * dn);
    for (LocatedBlock b : fs.getClient().getLocatedBlocks(p.toString(), 0).getLocatedBlocks()) {
      for (org.apache.hadoop.hdfs.protocol.DatanodeInfo d : b.getLocations()) {
        if (d.getXferAddr().equals(addr)) {
          return true;
        }
      }
    }
    return false;
  }

  /** Every block has two replicas, none of them on the dead DataNode (at xfer address gone). */
  private static java.util.function.BooleanSupplier fullyReplicated(DistributedFileSystem fs,
    Iterable<Path> files, String gone) {
    return () -> {
      try {
        for (Path p : files) {
          for (LocatedBlock b : fs.getClient().getLocatedBlocks(p.toString(), 0)
            .getLocatedBlocks()) {
            int live = 0;
            for (org.apache.hadoop.hdfs.protocol.DatanodeInfo d : b.getLocations()) {
              live += d.getXferAddr().equals(gone) ? 0 : 1;
            }
            if (live < 2) {
              return false;
            }
          }
        }
        return true;
      } catch (IOException e) {
        return false;
      }
    };
  }

  private static java.util.function.BooleanSupplier safeModeOff(DistributedFileSystem fs) {
    return () -> {
      try {
        return !fs.isInSafeMode();
      } catch (IOException e) {
        return false;
      }
    };
  }

  private void waitUntil(int seconds, String what, Process nn,
    java.util.function.BooleanSupplier check) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (!check.getAsBoolean()) {
      if (!nn.isAlive()) {
        throw new AssertionError("the stock NameNode exited (status " + nn.exitValue()
          + ") while waiting for " + what + "; its log: " + tail("logs/stock-namenode.log"));
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError(what + " not reached within " + seconds + " s; logs in " + work
          + "/logs");
      }
      Thread.sleep(1000);
    }
  }

  /** From the log's first ERROR line when it has one, else its end. */
  private String tail(String file) throws IOException {
    String s = Files.readString(new File(work, file).toPath(), StandardCharsets.UTF_8);
    int error = s.indexOf(" ERROR ");
    int from = error >= 0 ? Math.max(0, s.lastIndexOf('\n', error) + 1)
      : Math.max(0, s.length() - 3000);
    return s.substring(from, Math.min(s.length(), from + 3000));
  }

  private static List<String> policyNames(DistributedFileSystem fs) throws IOException {
    List<String> names = new ArrayList<>();
    for (BlockStoragePolicy p : fs.getStoragePolicies()) {
      names.add(p.getName());
    }
    return names;
  }

  private static boolean free(int port) {
    try (java.net.Socket s = new java.net.Socket()) {
      s.connect(new java.net.InetSocketAddress("127.0.0.1", port), 200);
      return false;
    } catch (IOException e) {
      return true;
    }
  }

  private String run(int seconds, File conf, String... command) throws Exception {
    return runEnv(seconds, List.of("STRATA_CONF_DIR=" + conf, "STRATA_LOG_DIR=" + work
      + "/logs/tools", "STRATA_HEAP=256m"), command);
  }

  /** Runs a command of the tarball to completion; fails with its output unless it exits 0. */
  private String runEnv(int seconds, List<String> env, String... command) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(command).directory(home).redirectErrorStream(true)
      .redirectInput(new File("/dev/null"));
    for (String e : env) {
      int eq = e.indexOf('=');
      pb.environment().put(e.substring(0, eq), e.substring(eq + 1));
    }
    File out = File.createTempFile("command", ".out", work);
    pb.redirectOutput(out);
    Process p = pb.start();
    boolean finished = p.waitFor(seconds, TimeUnit.SECONDS);
    if (!finished) {
      p.destroyForcibly();
    }
    String output = Files.readString(out.toPath(), StandardCharsets.UTF_8);
    assertTrue(String.join(" ", command) + " did not finish within " + seconds + " s: " + output,
      finished);
    assertEquals(String.join(" ", command) + ": " + output, 0, p.exitValue());
    assertNotNull(output);
    return output;
  }
}
