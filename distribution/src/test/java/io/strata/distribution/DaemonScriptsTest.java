package io.strata.distribution;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.log4j.Appender;
import org.apache.log4j.LogManager;
import org.apache.log4j.Logger;
import org.apache.log4j.PropertyConfigurator;
import org.apache.log4j.RollingFileAppender;
import org.junit.After;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * The daemon hygiene of the distribution's bin/ scripts, run from the source tree (no tarball,
 * no cluster needed):
 * <ul>
 * <li>a pid file whose pid now belongs to an unrelated process (a {@code sleep}: pid reuse after
 * a crash) is not taken for the daemon by {@code strata-cluster status|stop|kill|down} nor by a
 * tool's {@code satisfier status|stop}: status says not running and the process is left alone;
 * while a process that does carry the pid file's marker is reported and stopped;</li>
 * <li>the daemons' log4j configuration rolls at a size and keeps a bounded number of files (and
 * so does the launcher's);</li>
 * <li>the JVM options every daemon gets are accepted by the JVM: the GC log is written, and an
 * OutOfMemoryError ends the JVM;</li>
 * <li>a daemon's stdout capture is rotated at each start, keeping five;</li>
 * <li>{@code strata-cluster up} starts on the cluster already in its directory (its data, logs
 * and NameNode metadata kept, no format), refuses a layout that would strand blocks and data
 * without NameNode metadata, and deletes only with {@code --fresh}, saying so;</li>
 * <li>the cluster's ZooKeeper, started on the configuration up writes, listens on the cluster's
 * address only;</li>
 * <li>a daemon in the foreground (for a supervisor) is the pid its pid file names, with the
 * daemon's options, refuses a second copy, and stops on TERM with 143;</li>
 * <li>the systemd units restart their daemon on failure, name a user and a file limit, run a
 * script of bin/ in the foreground that knows the daemon, go into the tarball, and pass
 * {@code systemd-analyze verify} where it is installed.</li>
 * </ul>
 */
public class DaemonScriptsTest {
  private static final Path DIST = Paths.get("src/main/dist").toAbsolutePath();
  private static final Path BIN = DIST.resolve("bin");

  @Rule
  public TemporaryFolder tmp = new TemporaryFolder();

  private final List<Process> started = new ArrayList<>();
  /** Daemons the scripts started in the background (not this JVM's children). */
  private final List<Long> detached = new ArrayList<>();

  @After
  public void killStarted() {
    for (Process p : started) {
      p.destroyForcibly();
    }
    for (long pid : detached) {
      ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
    }
  }

  /**
   * A daemon stand-in: a JVM that carries the pid file marker and sleeps (or runs out of heap, or
   * hangs in a shutdown hook on TERM, as a daemon stuck closing does).
   */
  public static class Sleeper {
    public static void main(String[] args) throws Exception {
      if (args.length > 0 && args[0].equals("oom")) {
        List<long[]> hog = new ArrayList<>();
        while (true) {
          hog.add(new long[1 << 20]);
        }
      }
      if (args.length > 0 && args[0].equals("stuck-on-term")) {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
          System.out.println("TERM received; the shutdown hook hangs");
          System.out.flush();
          try {
            Thread.sleep(TimeUnit.MINUTES.toMillis(5));
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }));
        System.out.println("sleeping");
        System.out.flush();
      }
      Thread.sleep(TimeUnit.MINUTES.toMillis(5));
    }
  }

  @Test
  public void clusterScriptsLeaveAReusedPidAlone() throws Exception {
    File dir = tmp.newFolder("cluster");
    File run = new File(dir, "run");
    assertTrue(run.mkdirs());
    assertTrue(new File(dir, "logs").mkdirs());
    Files.writeString(new File(dir, "cluster.env").toPath(), "DATANODES=1\nREGIONSERVERS=1\n"
      + "BASE_PORT=29000\nTRANSPORT=none\nRAM_ROOT=" + dir + "/data\nNETNS=0\nHEAP_MB=256\n"
      + "SSD_VOLUMES=1\n");
    // The satisfier crashed; its pid is now an unrelated process's.
    Process unrelated = sleep();
    Files.writeString(new File(run, "satisfier.pid").toPath(), unrelated.pid() + "\n");
    // The tier mover is alive: its JVM carries its pid file's marker.
    File moverPid = new File(run, "tier-mover.pid");
    Process mover = daemonJvm(moverPid);
    Files.writeString(moverPid.toPath(), mover.pid() + "\n");

    File json = new File(dir, "status.json");
    Result status = bash(BIN.resolve("strata-cluster") + " status --dir " + dir + " --json "
      + json);
    assertEquals(status.out, 3, status.code);
    JsonNode satisfier = daemon(json, "satisfier");
    assertFalse("a reused pid is not the satisfier: " + status.out,
      satisfier.get("alive").asBoolean());
    assertTrue(satisfier + ": no pid for a daemon not running", satisfier.get("pid").isNull());
    JsonNode tierMover = daemon(json, "tier-mover");
    assertTrue(status.out, tierMover.get("alive").asBoolean());
    assertEquals(mover.pid(), tierMover.get("pid").asLong());

    Result kill = bash(BIN.resolve("strata-cluster") + " kill satisfier --dir " + dir);
    assertEquals(kill.out, 0, kill.code);
    assertTrue(kill.out, kill.out.contains("satisfier is not running"));
    Result stop = bash(BIN.resolve("strata-cluster") + " stop satisfier --dir " + dir);
    assertEquals(stop.out, 0, stop.code);
    assertTrue(unrelated + " survives kill and stop: " + kill.out + stop.out, unrelated.isAlive());

    Result down = bash(BIN.resolve("strata-cluster") + " down --dir " + dir);
    assertEquals(down.out, 0, down.code);
    assertTrue("down stopped the tier mover: " + down.out, mover.waitFor(30, TimeUnit.SECONDS));
    assertTrue("down left the unrelated process alone: " + down.out, unrelated.isAlive());
    assertFalse(new File(run, "satisfier.pid").exists());
    assertFalse(moverPid.exists());
  }

  @Test
  public void toolDaemonLeavesAReusedPidAlone() throws Exception {
    File runDir = tmp.newFolder("run");
    File logDir = tmp.newFolder("logs");
    String env = "STRATA_PID_DIR=" + runDir + " STRATA_LOG_DIR=" + logDir + " ";
    File pidFile = new File(runDir, "satisfier.pid");
    Process unrelated = sleep();
    Files.writeString(pidFile.toPath(), unrelated.pid() + "\n");

    Result status = bash(env + BIN.resolve("satisfier") + " status");
    assertEquals(status.out, 3, status.code);
    assertTrue(status.out, status.out.contains("satisfier is not running"));
    Result stop = bash(env + BIN.resolve("satisfier") + " stop");
    assertEquals(stop.out, 0, stop.code);
    assertTrue("stop left the unrelated process alone: " + stop.out, unrelated.isAlive());
    assertFalse("the stale pid file is removed", pidFile.exists());

    Process daemon = daemonJvm(pidFile);
    Files.writeString(pidFile.toPath(), daemon.pid() + "\n");
    status = bash(env + BIN.resolve("satisfier") + " status");
    assertEquals(status.out, 0, status.code);
    assertTrue(status.out, status.out.contains("satisfier is running, pid " + daemon.pid()));
    stop = bash(env + BIN.resolve("satisfier") + " stop");
    assertEquals(stop.out, 0, stop.code);
    assertTrue("stop stopped the daemon: " + stop.out, daemon.waitFor(30, TimeUnit.SECONDS));
  }

  /**
   * A daemon started by the supervisor holds no descriptor of its starter but stdin, stdout and
   * stderr: a lock the starter took ({@code flock LOCK strata-cluster up}) is free once the
   * starter ends, while the daemon runs on.
   */
  @Test
  public void daemonDoesNotHoldItsStartersLock() throws Exception {
    File run = tmp.newFolder("lock-run");
    File lock = new File(tmp.getRoot(), "cluster.lock");
    String lib = ". " + BIN.resolve("strata-functions.sh") + " && ";
    String pidFile = run.toPath().toRealPath() + "/sleeper.pid";
    File out = new File(run, "sleeper.out");
    Result start = bash("exec 9>" + lock + " && flock 9 && " + lib + "strata_start_background "
      + pidFile + " " + out + " " + java() + " -Xmx32m -Dstrata.pid.file=" + pidFile + " -cp '"
      + System.getProperty("java.class.path") + "' '" + Sleeper.class.getName() + "'"
      + " && echo \"started $STRATA_STARTED_PID\"");
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("started (\\d+)").matcher(start.out);
    assertTrue(start.out, m.find());
    long pid = Long.parseLong(m.group(1));
    detached.add(pid);
    assertEquals(start.out, 0, start.code);
    assertTrue(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
    File[] fds = new File("/proc/" + pid + "/fd").listFiles();
    if (fds != null) {
      for (File fd : fds) {
        Path target;
        try {
          target = Files.readSymbolicLink(fd.toPath());
        } catch (IOException e) {
          continue;
        }
        assertFalse("the daemon holds its starter's descriptor " + fd.getName() + " -> " + target,
          target.toString().equals(lock.toPath().toRealPath().toString()));
      }
    }
    Result free = bash("flock -n " + lock + " echo free");
    assertEquals("the starter's lock is still held by its daemon: " + free.out, 0, free.code);
    assertTrue(free.out, free.out.contains("free"));
  }

  /**
   * The one supervisor of bin/strata-functions.sh (bin/'s daemons, strata-cluster's, ./strata's
   * checks): a daemon it starts in the background is alive by its pid file; a pid file whose pid
   * is another command (an unrelated process, or another daemon) is not; and stop sends TERM,
   * then KILL to a daemon that does not exit within the time given.
   */
  @Test
  public void sharedSupervisorTrustsOnlyItsDaemonAndKillsOneIgnoringTerm() throws Exception {
    File run = tmp.newFolder("sup-run");
    File logs = tmp.newFolder("sup-logs");
    String lib = ". " + BIN.resolve("strata-functions.sh") + " && ";
    String pidFile = run.toPath().toRealPath() + "/stuck.pid";
    File out = new File(logs, "stuck.out");

    Result start = bash(lib + "strata_start_background " + pidFile + " " + out + " " + java()
      + " -Xmx32m -Dstrata.pid.file=" + pidFile + " -cp '" + System.getProperty("java.class.path")
      + "' '" + Sleeper.class.getName() + "' stuck-on-term && echo \"started $STRATA_STARTED_PID\""
      + " && echo \"alive $(strata_daemon_pid " + pidFile + ")\"");
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("started (\\d+)").matcher(start.out);
    if (m.find()) {
      detached.add(Long.parseLong(m.group(1)));
    }
    assertEquals(start.out, 0, start.code);
    long pid = detached.get(0);
    assertTrue(start.out, start.out.contains("alive " + pid + "\n"));
    assertEquals(pid + "\n", Files.readString(Paths.get(pidFile)));
    assertTrue(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));

    // A stale pid file: its pid now an unrelated command's, or another daemon's (the one above
    // carries stuck.pid's marker, not other.pid's). Neither is taken for other.pid's daemon.
    Process unrelated = sleep();
    File other = new File(run, "other.pid");
    for (long stale : new long[] {unrelated.pid(), pid}) {
      Files.writeString(other.toPath(), stale + "\n");
      Result check = bash(lib + "strata_daemon_pid " + other);
      assertEquals("pid " + stale + " taken for other.pid's daemon: " + check.out, 1, check.code);
      assertEquals("", check.out);
    }

    // stop: TERM, which the daemon takes (its hook runs) but does not exit on; KILL after 2 s.
    // The supervisor returns once the JVM carries its marker, before main has set up the hook.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!Files.readString(out.toPath()).contains("sleeping")) {
      assertTrue("the daemon's hook not set up in 30 s: " + Files.readString(out.toPath()),
        System.nanoTime() < deadline);
      Thread.sleep(100);
    }
    long t0 = System.nanoTime();
    Result stop = bash(lib + "strata_stop_pid stuck " + pid + " " + pidFile + " 2");
    long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    assertEquals(stop.out, 0, stop.code);
    assertTrue(stop.out, stop.out.contains("stuck (pid " + pid + ") did not stop within 2 s of "
      + "TERM: killing it"));
    assertTrue("TERM first: " + Files.readString(out.toPath()),
      Files.readString(out.toPath()).contains("TERM received"));
    assertTrue("KILL only after the 2 s given to TERM: " + took + " ms", took >= 2000);
    assertFalse("the daemon is gone after stop: " + stop.out,
      ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
    assertFalse("the pid file is removed", new File(pidFile).exists());
    assertTrue("the unrelated process is left alone", unrelated.isAlive());
  }

  @Test
  public void daemonLogRollsAtItsCap() throws Exception {
    File log = new File(tmp.getRoot(), "datanode-1.log");
    Properties sys = System.getProperties();
    Properties saved = (Properties) sys.clone();
    try {
      // As bin/ starts a daemon, with a small cap so that the test fills it quickly.
      System.setProperty("strata.root.logger", "INFO,RFA");
      System.setProperty("strata.log.file", log.getPath());
      System.setProperty("strata.log.maxfilesize", "100KB");
      System.setProperty("strata.log.maxbackupindex", "2");
      configure(DIST.resolve("conf/log4j.properties"));
      Logger l = Logger.getLogger("io.strata.test");
      char[] line = new char[1000];
      Arrays.fill(line, 'x');
      for (int i = 0; i < 3000; i++) {
        l.info(new String(line));
      }
      File[] files = tmp.getRoot().listFiles((d, n) -> n.startsWith("datanode-1.log"));
      Arrays.sort(files);
      assertEquals(Arrays.toString(files), 3, files.length);
      long total = 0;
      for (File f : files) {
        assertTrue(f + " is " + f.length() + " bytes", f.length() <= 100 * 1024 + 2048);
        total += f.length();
      }
      assertTrue("3 MB written, " + total + " kept", total <= 3 * (100 * 1024 + 2048));

      // The defaults: each daemon's log at most 64 MB, five older ones.
      System.clearProperty("strata.log.maxfilesize");
      System.clearProperty("strata.log.maxbackupindex");
      RollingFileAppender rfa = rolling(configure(DIST.resolve("conf/log4j.properties")));
      assertEquals(64L << 20, rfa.getMaximumFileSize());
      assertEquals(5, rfa.getMaxBackupIndex());

      // The launcher's logs (.strata-work/logs/NAME.log): at most 256 MB, three older ones.
      RollingFileAppender launcher = rolling(configure(
        Paths.get("../local-cluster/src/main/resources/log4j.properties").toAbsolutePath()));
      assertEquals(256L << 20, launcher.getMaximumFileSize());
      assertEquals(3, launcher.getMaxBackupIndex());
    } finally {
      LogManager.resetConfiguration();
      System.setProperties(saved);
    }
  }

  @Test
  public void daemonJvmOptionsWriteAGcLogAndExitOnOutOfMemory() throws Exception {
    File run = tmp.newFolder("run");
    File logs = tmp.newFolder("logs");
    String classPath = System.getProperty("java.class.path");
    Result r = bash(". " + BIN.resolve("strata-functions.sh") + " && strata_daemon_opts satisfier "
      + run + "/satisfier.pid " + logs + " && printf '%s\\n' \"${STRATA_DAEMON_OPTS[@]}\" && "
      + java() + " -Xmx32m \"${STRATA_DAEMON_OPTS[@]}\" -cp '" + classPath + "' '"
      + Sleeper.class.getName() + "' oom");
    assertTrue(r.out, r.out.contains("-XX:+ExitOnOutOfMemoryError"));
    assertTrue(r.out, r.out.contains("-Dstrata.pid.file=" + run.toPath().toRealPath()
      + "/satisfier.pid"));
    assertTrue(r.out, r.out.contains(":time,uptime:filecount=5,filesize=20M"));
    // ExitOnOutOfMemoryError: exit code 3 instead of a JVM that lives on without heap.
    assertEquals(r.out, 3, r.code);
    assertTrue(r.out, r.out.contains("Terminating due to java.lang.OutOfMemoryError"));
    assertTrue("GC log written", Files.size(logs.toPath().resolve("satisfier-gc.log")) > 0);
  }

  @Test
  public void stdoutCaptureIsRotatedKeepingFive() throws Exception {
    File out = new File(tmp.getRoot(), "master.out");
    StringBuilder script = new StringBuilder(". " + BIN.resolve("strata-functions.sh"));
    for (int i = 1; i <= 8; i++) {
      script.append(" && echo start-").append(i).append(" >").append(out)
        .append(" && strata_rotate ").append(out).append(" 5");
    }
    Result r = bash(script.toString());
    assertEquals(r.out, 0, r.code);
    String[] names = tmp.getRoot().list();
    Arrays.sort(names);
    assertEquals(List.of("master.out.1", "master.out.2", "master.out.3", "master.out.4",
      "master.out.5"), Arrays.asList(names));
    assertEquals("start-8\n", Files.readString(new File(out + ".1").toPath()));
    assertEquals("start-4\n", Files.readString(new File(out + ".5").toPath()));
  }

  @Test
  public void clusterUpKeepsAnExistingClusterUnlessFresh() throws Exception {
    Result help = bash(BIN.resolve("strata-cluster") + " --help");
    assertEquals(help.out, 0, help.code);
    assertFalse("help made the default cluster directory", Files.exists(DIST.resolve("cluster")));
    assertTrue(help.out, help.out.contains("on the data of the cluster already in --dir"));
    assertTrue(help.out, help.out.contains("--fresh"));

    // What down leaves of a cluster: the NameNode's metadata, the DataNodes' blocks, the logs.
    File dir = tmp.newFolder("kept");
    File version = new File(dir, "data/namenode/current/VERSION");
    File block = new File(dir, "data/datanode-1/disk/current/blk_1073741825");
    File oldLog = new File(dir, "logs/namenode.log");
    write(version, "clusterID=CID-kept\n");
    write(block, "a table's cells");
    write(oldLog, "the earlier run\n");
    write(new File(dir, "cluster.env"), "DATANODES=2\nREGIONSERVERS=1\nBASE_PORT=29000\n"
      + "TRANSPORT=none\nRAM_ROOT=" + dir + "/data\nNETNS=0\nHEAP_MB=256\nSSD_VOLUMES=1\n");
    String up = BIN.resolve("strata-cluster") + " up --dir " + dir + " --base-port "
      + freeBasePort() + " --transport none --heap 64 --regionservers 1 ";

    // Fewer DataNodes than the cluster has would strand their blocks: refused, nothing deleted.
    Result fewer = bash(up + "--datanodes 1");
    assertEquals(fewer.out, 2, fewer.code);
    assertTrue(fewer.out, fewer.out.contains("has 2 DataNodes"));
    assertTrue(block.exists());

    // The daemons cannot start from the source tree (no jars): ZooKeeper exits and up stops what
    // it started. What it did to the directory before is what is checked.
    Result kept = bash(up + "--datanodes 2");
    assertEquals(kept.out, 1, kept.code);
    assertTrue(kept.out, kept.out.contains("keeping the cluster in " + dir));
    assertTrue(kept.out, kept.out.contains("zookeeper exited while starting"));
    assertEquals("clusterID=CID-kept\n", Files.readString(version.toPath()));
    assertEquals("a table's cells", Files.readString(block.toPath()));
    assertTrue(Files.readString(oldLog.toPath()).startsWith("the earlier run\n"));
    assertFalse("the NameNode is not formatted again: " + kept.out,
      new File(dir, "logs/namenode-format.log").exists());

    Result fresh = bash(up + "--datanodes 2 --fresh");
    assertEquals(fresh.out, 1, fresh.code);
    assertTrue(fresh.out, fresh.out.contains("--fresh: deleting " + dir + "/data and " + dir
      + "/logs"));
    assertFalse(version.exists());
    assertFalse(block.exists());
    assertFalse(oldLog.exists());
  }

  /**
   * {@code up --config stock|tuned} (strata bench compare's baselines): upstream's own site files,
   * well-formed, with no Strata key, no RAM tier and no Strata daemon; stock declares every
   * volume DISK, tuned each as what it is, with the WAL policy given. A configuration it does not
   * know is refused before anything is written.
   */
  @Test
  public void clusterUpConfigStockAndTunedWriteUpstreamSiteFiles() throws Exception {
    Result bad = bash(BIN.resolve("strata-cluster") + " up --dir " + tmp.newFolder("bad")
      + " --config upstream");
    assertEquals(bad.out, 2, bad.code);
    assertTrue(bad.out, bad.out.contains("--config must be strata, stock or tuned, not 'upstream'"));

    for (String config : List.of("stock", "tuned")) {
      File dir = tmp.newFolder(config);
      // The daemons cannot start from the source tree (no jars): ZooKeeper exits; the site files
      // are written before.
      Result up = bash(BIN.resolve("strata-cluster") + " up --dir " + dir + " --base-port "
        + freeBasePort() + " --transport none --heap 64 --datanodes 1 --regionservers 1"
        + " --config " + config + ("tuned".equals(config) ? " --wal-policy ALL_SSD" : ""));
      assertEquals(up.out, 1, up.code);
      assertTrue(up.out, up.out.contains("--config " + config + ": HBase and HDFS on upstream's"));
      String hdfs = Files.readString(new File(dir, "conf/hdfs-site.xml").toPath());
      String hbase = Files.readString(new File(dir, "conf/hbase-site.xml").toPath());
      for (String xml : List.of(hdfs, hbase)) {
        javax.xml.parsers.DocumentBuilderFactory.newInstance().newDocumentBuilder()
          .parse(new java.io.ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
        assertFalse(xml, xml.contains("<name>strata."));
        assertFalse(xml, xml.contains("io.strata"));
        assertFalse(xml, xml.contains("NVDIMM"));
      }
      String d = dir + "/data/datanode-${strata.datanode}/";
      String dirs = "stock".equals(config)
        ? "[DISK]" + d + "ssd,[DISK]" + d + "disk,[DISK]" + d + "archive"
        : "[SSD]" + d + "ssd,[DISK]" + d + "disk,[ARCHIVE]" + d + "archive";
      assertTrue(hdfs, hdfs.contains("<value>" + dirs + "</value>"));
      assertEquals("tuned".equals(config), hbase.contains(
        "<name>hbase.wal.storage.policy</name>\n    <value>ALL_SSD</value>"));
      String env = Files.readString(new File(dir, "cluster.env").toPath());
      assertTrue(env, env.contains("CONFIG=" + config + "\n"));
      Result status = bash(BIN.resolve("strata-cluster") + " status --dir " + dir);
      assertFalse(status.out, status.out.contains("satisfier"));
      assertFalse(status.out, status.out.contains("tier-mover"));
    }
  }

  @Test
  public void clusterUpLeavesDataWithoutNameNodeMetadataAlone() throws Exception {
    File dir = tmp.newFolder("orphan");
    File block = new File(dir, "data/datanode-1/disk/current/blk_1073741825");
    write(block, "a table's cells");
    Result up = bash(BIN.resolve("strata-cluster") + " up --dir " + dir + " --base-port "
      + freeBasePort() + " --transport none --heap 64 --datanodes 1 --regionservers 1");
    assertEquals(up.out, 2, up.code);
    assertTrue(up.out, up.out.contains("holds data but no NameNode metadata"));
    assertTrue(up.out, up.out.contains("pass --fresh"));
    assertEquals("a table's cells", Files.readString(block.toPath()));
  }

  @Test
  public void clusterZooKeeperListensOnTheClusterAddressOnly() throws Exception {
    File dir = tmp.newFolder("zk");
    int base = freeBasePort();
    Result up = bash(BIN.resolve("strata-cluster") + " up --dir " + dir + " --base-port " + base
      + " --transport none --heap 64 --datanodes 1 --regionservers 1");
    assertEquals(up.out, 1, up.code);
    File cfg = new File(dir, "conf/zoo.cfg");
    assertTrue("up writes ZooKeeper's configuration: " + up.out, cfg.isFile());
    Properties zk = new Properties();
    try (InputStream in = new FileInputStream(cfg)) {
      zk.load(in);
    }
    assertEquals("127.0.0.1", zk.getProperty("clientPortAddress"));
    assertEquals(Integer.toString(base), zk.getProperty("clientPort"));

    // ZooKeeper started on that file as up starts it (this test's class path has it).
    File log = new File(dir, "zookeeper-test.out");
    Process p = new ProcessBuilder(java(), "-Xmx64m", "-Dzookeeper.admin.enableServer=false",
      "-cp", System.getProperty("java.class.path"),
      "org.apache.zookeeper.server.ZooKeeperServerMain", cfg.getPath()).redirectErrorStream(true)
      .redirectOutput(log).start();
    started.add(p);
    List<InetSocketAddress> on = List.of();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (on.stream().noneMatch(a -> a.getPort() == base)) {
      assertTrue("ZooKeeper exited: " + Files.readString(log.toPath()), p.isAlive());
      assertTrue("ZooKeeper not listening on " + base + " within 60 s: " + on,
        System.nanoTime() < deadline);
      Thread.sleep(200);
      on = ListeningSockets.of(p.pid());
    }
    for (InetSocketAddress a : on) {
      assertFalse(a + ": ZooKeeper listens on every interface", a.getAddress().isAnyLocalAddress());
      assertTrue(a + " is not the cluster's address", a.getAddress().isLoopbackAddress());
    }
  }

  @Test
  public void foregroundDaemonIsThePidItsFileNames() throws Exception {
    // The distribution's bin/ and conf/ as unpacked (jvm.options as the build fills it in),
    // with a daemon that sleeps.
    Path home = tmp.newFolder("home").toPath();
    Files.createDirectories(home.resolve("bin"));
    Files.createDirectories(home.resolve("conf"));
    for (String f : new String[] {"strata-env.sh", "strata-functions.sh"}) {
      Files.copy(BIN.resolve(f), home.resolve("bin/" + f));
    }
    Files.copy(DIST.resolve("conf/log4j.properties"), home.resolve("conf/log4j.properties"));
    Files.writeString(home.resolve("conf/jvm.options"), "");
    Path sleeper = home.resolve("bin/sleeper");
    Files.writeString(sleeper, "#!/usr/bin/env bash\nset -euo pipefail\n"
      + ". \"$(dirname \"${BASH_SOURCE[0]}\")/strata-env.sh\"\n"
      + "strata_daemon sleeper hdfs '" + Sleeper.class.getName() + "' \"$@\"\n");
    assertTrue(sleeper.toFile().setExecutable(true));
    File run = tmp.newFolder("fg-run");
    File logs = tmp.newFolder("fg-logs");
    String env = "STRATA_PID_DIR=" + run + " STRATA_LOG_DIR=" + logs + " STRATA_HEAP=32m "
      + "STRATA_UPSTREAM_CP='" + System.getProperty("java.class.path") + "' ";

    ProcessBuilder pb = new ProcessBuilder(sleeper.toString(), "foreground")
      .redirectErrorStream(true).redirectOutput(new File(logs, "foreground.out"));
    pb.environment().put("STRATA_PID_DIR", run.getPath());
    pb.environment().put("STRATA_LOG_DIR", logs.getPath());
    pb.environment().put("STRATA_HEAP", "32m");
    pb.environment().put("STRATA_UPSTREAM_CP", System.getProperty("java.class.path"));
    pb.environment().put("JAVA_HOME", Paths.get(java()).getParent().getParent().toString());
    Process fg = pb.start();
    started.add(fg);
    Result status = bash(env + sleeper + " status");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (status.code != 0) {
      assertTrue("the foreground daemon exited: "
        + Files.readString(new File(logs, "foreground.out").toPath()), fg.isAlive());
      assertTrue(status.out, System.nanoTime() < deadline);
      Thread.sleep(200);
      status = bash(env + sleeper + " status");
    }
    // The process a supervisor started is the JVM (exec): the pid it watches is the daemon's.
    assertTrue(status.out, status.out.contains("sleeper is running, pid " + fg.pid()));
    assertEquals(fg.pid() + "\n", Files.readString(new File(run, "sleeper.pid").toPath()));
    // The daemon's options: its GC log (the JVM creates it while starting, just after the exec
    // that made status see it).
    deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!new File(logs, "sleeper-gc.log").exists()) {
      assertTrue("the daemon's options: GC log", System.nanoTime() < deadline);
      Thread.sleep(100);
    }
    Result second = bash(env + sleeper + " foreground");
    assertEquals(second.out, 1, second.code);
    assertTrue(second.out, second.out.contains("already running, pid " + fg.pid()));
    Result stop = bash(env + sleeper + " stop");
    assertEquals(stop.out, 0, stop.code);
    assertTrue(fg.waitFor(30, TimeUnit.SECONDS));
    // SIGTERM: the JVM's 143, which the units take as a clean stop.
    assertEquals(143, fg.exitValue());
  }

  @Test
  public void systemdUnitsSuperviseEachDaemonInTheForeground() throws Exception {
    File pids = tmp.newFolder("unit-run");
    List<String> units = List.of("strata-namenode", "strata-datanode", "strata-satisfier",
      "strata-tier-mover", "strata-master", "strata-regionserver");
    for (String name : units) {
      Path unit = DIST.resolve("conf/systemd/" + name + ".service");
      assertTrue(unit + " exists", Files.isRegularFile(unit));
      Map<String, Map<String, String>> u = unitSections(unit);
      Map<String, String> service = u.get("Service");
      assertTrue(unit + ": [Unit], [Service], [Install]", u.containsKey("Unit")
        && service != null && u.containsKey("Install"));
      assertEquals(unit + " Restart", "on-failure", service.get("Restart"));
      assertTrue(unit + " RestartSec", service.getOrDefault("RestartSec", "").matches("[1-9][0-9]*"));
      assertTrue(unit + " User", !service.getOrDefault("User", "").isBlank());
      assertTrue(unit + " LimitNOFILE", Long.parseLong(service.get("LimitNOFILE")) >= 65536);
      assertEquals(unit + " SuccessExitStatus", "143", service.get("SuccessExitStatus"));
      assertEquals("multi-user.target", u.get("Install").get("WantedBy"));
      String[] exec = service.get("ExecStart").split("\\s+");
      assertTrue(unit + " runs the tarball's bin/", exec[0].startsWith("/opt/strata/bin/"));
      Path script = BIN.resolve(exec[0].substring("/opt/strata/bin/".length()));
      assertTrue(script + " is executable", Files.isExecutable(script));
      int action = script.getFileName().toString().equals("daemon") ? 2 : 1;
      assertEquals(unit + " in the foreground", "foreground", exec[action]);
      // The script knows the daemon: its status (nothing running here) says so.
      StringBuilder cmd = new StringBuilder("STRATA_PID_DIR=" + pids + " " + script);
      for (int i = 1; i < action; i++) {
        cmd.append(' ').append(exec[i]);
      }
      Result status = bash(cmd + " status");
      assertEquals(status.out, 3, status.code);
      assertTrue(status.out, status.out.contains("is not running"));
    }
    // The tarball's conf/ takes every file of src/main/dist/conf but jvm.options (filtered).
    String assembly = Files.readString(Paths.get("src/main/assembly/bin.xml"));
    assertTrue(assembly.contains("<exclude>bin/**</exclude>\n        <exclude>conf/jvm.options"
      + "</exclude>\n      </excludes>"));

    // systemd's own parser, where this machine has it: with the paths of this source tree.
    if (new ProcessBuilder("sh", "-c", "command -v systemd-analyze").start().waitFor() != 0) {
      System.err.println("DaemonScriptsTest: no systemd-analyze here; units checked by key only");
      return;
    }
    File copy = tmp.newFolder("units");
    StringBuilder verify = new StringBuilder("systemd-analyze verify");
    for (String name : units) {
      String text = Files.readString(DIST.resolve("conf/systemd/" + name + ".service"));
      Path to = copy.toPath().resolve(name + ".service");
      Files.writeString(to, text.replace("/opt/strata/", DIST + "/"));
      verify.append(' ').append(to);
    }
    Result r = bash(verify.toString());
    assertEquals(r.out, 0, r.code);
    for (String line : r.out.split("\n")) {
      assertFalse("systemd-analyze: " + r.out, line.contains(copy.getPath()));
    }
  }

  /** A unit file's sections, each key's last value (comments and blank lines skipped). */
  private static Map<String, Map<String, String>> unitSections(Path unit) throws IOException {
    Map<String, Map<String, String>> sections = new java.util.LinkedHashMap<>();
    Map<String, String> current = null;
    for (String line : Files.readAllLines(unit)) {
      String l = line.trim();
      if (l.isEmpty() || l.startsWith("#") || l.startsWith(";")) {
        continue;
      }
      if (l.startsWith("[") && l.endsWith("]")) {
        current = new java.util.LinkedHashMap<>();
        sections.put(l.substring(1, l.length() - 1), current);
        continue;
      }
      int eq = l.indexOf('=');
      assertTrue(unit + ": not a key=value line: " + line, current != null && eq > 0);
      current.put(l.substring(0, eq).trim(), l.substring(eq + 1).trim());
    }
    return sections;
  }

  private static void write(File f, String text) throws IOException {
    Files.createDirectories(f.getParentFile().toPath());
    Files.writeString(f.toPath(), text);
  }

  /** A base port whose first port is free now (the others are offsets up from it). */
  private static int freeBasePort() throws IOException {
    for (int i = 0; i < 20; i++) {
      try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
        if (s.getLocalPort() < 65000) {
          return s.getLocalPort();
        }
      }
    }
    throw new AssertionError("no free port below 65000");
  }

  private static Appender configure(Path file) throws IOException {
    LogManager.resetConfiguration();
    Properties p = new Properties();
    try (InputStream in = new FileInputStream(file.toFile())) {
      p.load(in);
    }
    // As the daemons run it: into the rolling file.
    if (System.getProperty("strata.log.file") == null) {
      System.setProperty("strata.log.file", file.getParent() + "/unused.log");
    }
    PropertyConfigurator.configure(p);
    Enumeration<?> all = Logger.getRootLogger().getAllAppenders();
    assertTrue(file + ": the root logger has an appender", all.hasMoreElements());
    return (Appender) all.nextElement();
  }

  private static RollingFileAppender rolling(Appender a) {
    assertTrue(a + " is a RollingFileAppender", a instanceof RollingFileAppender);
    return (RollingFileAppender) a;
  }

  private static JsonNode daemon(File json, String name) throws IOException {
    for (JsonNode d : new ObjectMapper().readTree(json).get("daemons")) {
      if (d.get("name").asText().equals(name)) {
        return d;
      }
    }
    throw new AssertionError("no " + name + " in " + Files.readString(json.toPath()));
  }

  private Process sleep() throws IOException {
    Process p = new ProcessBuilder("sleep", "300").start();
    started.add(p);
    return p;
  }

  /** A JVM with the marker bin/ gives a daemon whose pid is in {@code pidFile}. */
  private Process daemonJvm(File pidFile) throws Exception {
    String marker = "-Dstrata.pid.file=" + pidFile.getParentFile().toPath().toRealPath() + "/"
      + pidFile.getName();
    Process p = new ProcessBuilder(java(), "-Xmx32m", marker, "-cp",
      System.getProperty("java.class.path"), Sleeper.class.getName()).start();
    started.add(p);
    return p;
  }

  private static String java() {
    return ProcessHandle.current().info().command().orElse("java");
  }

  private static final class Result {
    final int code;
    final String out;

    Result(int code, String out) {
      this.code = code;
      this.out = out;
    }
  }

  private static Result bash(String script) throws Exception {
    File out = File.createTempFile("daemon-scripts", ".out");
    try {
      ProcessBuilder pb = new ProcessBuilder("bash", "-c", script).redirectErrorStream(true)
        .redirectOutput(out).redirectInput(new File("/dev/null"));
      Map<String, String> env = pb.environment();
      env.put("JAVA_HOME", Paths.get(java()).getParent().getParent().toString());
      Process p = pb.start();
      assertTrue(script + " did not finish in 120 s", p.waitFor(120, TimeUnit.SECONDS));
      String output = Files.readString(out.toPath(), StandardCharsets.UTF_8);
      assertNotEquals(output, 127, p.exitValue());
      return new Result(p.exitValue(), output);
    } finally {
      out.delete();
    }
  }
}
