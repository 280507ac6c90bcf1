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
 * <li>a daemon's stdout capture is rotated at each start, keeping five.</li>
 * </ul>
 */
public class DaemonScriptsTest {
  private static final Path DIST = Paths.get("src/main/dist").toAbsolutePath();
  private static final Path BIN = DIST.resolve("bin");

  @Rule
  public TemporaryFolder tmp = new TemporaryFolder();

  private final List<Process> started = new ArrayList<>();

  @After
  public void killStarted() {
    for (Process p : started) {
      p.destroyForcibly();
    }
  }

  /** A daemon stand-in: a JVM that carries the pid file marker and sleeps (or runs out of heap). */
  public static class Sleeper {
    public static void main(String[] args) throws Exception {
      if (args.length > 0 && args[0].equals("oom")) {
        List<long[]> hog = new ArrayList<>();
        while (true) {
          hog.add(new long[1 << 20]);
        }
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
    Result r = bash(". " + BIN.resolve("strata-daemon.sh") + " && strata_daemon_opts satisfier "
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
    StringBuilder script = new StringBuilder(". " + BIN.resolve("strata-daemon.sh"));
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
