package io.strata.distribution;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.Test;

/**
 * The tarball carries what an operator installs the daemons with: the systemd units
 * (conf/systemd/*.service) and the scripts they run (bin/daemon, bin/satisfier,
 * bin/tier-mover), executable, with the shell library they share (bin/strata-functions.sh),
 * which works on its own.
 */
public class TarballContentsIT {

  @Test
  public void systemdUnitsAndTheirScriptsAreInTheTarball() throws Exception {
    File tarball = new File(System.getProperty("strata.dist.tarball"));
    assertTrue("no distribution at " + tarball + ": run the package phase", tarball.isFile());
    File out = File.createTempFile("tar", ".out", new File("target"));
    Process p = new ProcessBuilder("tar", "--list", "--verbose", "-zf", tarball.getPath())
      .redirectErrorStream(true).redirectOutput(out).start();
    assertTrue(p.waitFor(300, TimeUnit.SECONDS));
    String listing = Files.readString(out.toPath(), StandardCharsets.UTF_8);
    assertEquals(listing, 0, p.exitValue());
    // Entry name (without the top directory) to its mode.
    Map<String, String> modes = new HashMap<>();
    for (String line : listing.split("\n")) {
      String[] f = line.trim().split("\\s+");
      if (f.length >= 6) {
        String name = f[f.length - 1];
        modes.put(name.substring(name.indexOf('/') + 1), f[0]);
      }
    }
    for (String unit : List.of("namenode", "datanode", "satisfier", "tier-mover", "master",
      "regionserver")) {
      String name = "conf/systemd/strata-" + unit + ".service";
      assertEquals(name, "-rw-r--r--", modes.get(name));
    }
    for (String script : List.of("bin/daemon", "bin/satisfier", "bin/tier-mover",
      "bin/strata-env.sh", "bin/strata-functions.sh", "bin/install-check", "bin/rollback-policies",
      "bin/strata-media.sh")) {
      assertEquals(script, "-rwxr-xr-x", modes.get(script));
    }
    for (String snippet : List.of("conf/snippets/hdfs-site.xml", "conf/snippets/hbase-site.xml",
      "conf/shellprofile.d/strata.sh", "conf/media-profile.properties")) {
      assertEquals(snippet, "-rw-r--r--", modes.get(snippet));
    }
  }

  /**
   * The tarball's own bin/install-check, on the tools' class path (lib/tools first), merges
   * Strata's keys into a secure cluster's files (the tools module's sample) and keeps the security
   * coprocessors.
   */
  @Test
  public void installCheckRunsFromTheTarball() throws Exception {
    File tarball = new File(System.getProperty("strata.dist.tarball"));
    File dir = Files.createTempDirectory(new File("target").toPath(), "install-check").toFile();
    Process untar = new ProcessBuilder("tar", "-xzf", tarball.getPath(), "-C", dir.getPath())
      .redirectErrorStream(true).start();
    untar.getInputStream().readAllBytes();
    assertTrue(untar.waitFor(300, TimeUnit.SECONDS));
    File[] top = dir.listFiles(File::isDirectory);
    assertEquals(1, top.length);
    File live = new File("../tools/src/test/resources/secure-cluster");
    File out = new File(dir, "merged");
    Process p = new ProcessBuilder(new File(top[0], "bin/install-check").getPath(), "--conf-dir",
      live.getPath(), "--out", out.getPath(), "--data-dir", "SSD=/data/ssd1/dn")
      .redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(120, TimeUnit.SECONDS));
    assertEquals(output, 0, p.exitValue());
    String hbase = Files.readString(new File(out, "hbase-site.xml").toPath());
    assertTrue(hbase, hbase.contains("<value>org.apache.hadoop.hbase.security.access."
      + "AccessController,io.strata.hbase.tiering.WalDurabilityGuard</value>"));
    assertTrue(output, output.contains("every key merged"));
  }

  /**
   * The tarball's bin/strata-functions.sh, the one shell library of bin/, works on its own (no
   * strata-env.sh, no Java on PATH): log() with its tag, as_root(), and the pid-file supervisor
   * starting a daemon, seeing it alive and stopping it.
   */
  @Test
  public void theShellLibraryWorksAloneFromTheTarball() throws Exception {
    File tarball = new File(System.getProperty("strata.dist.tarball"));
    File dir = Files.createTempDirectory(new File("target").toPath(), "shell-library").toFile();
    Process untar = new ProcessBuilder("tar", "-xzf", tarball.getPath(), "-C", dir.getPath(),
      "--wildcards", "*/bin/*").redirectErrorStream(true).start();
    String untarOut = new String(untar.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(untar.waitFor(300, TimeUnit.SECONDS));
    assertEquals(untarOut, 0, untar.exitValue());
    File[] top = dir.listFiles(File::isDirectory);
    assertEquals(1, top.length);
    File lib = new File(top[0], "bin/strata-functions.sh");
    String pidFile = dir.getCanonicalPath() + "/d.pid";
    String script = ". '" + lib + "'\n"
      + "STRATA_LOG_TAG=t log hello\n"
      + "if [ \"$(id -u)\" = 0 ]; then as_root true; else declare -F as_root >/dev/null; fi"
      + " && echo as_root-ok\n"
      + "strata_start_background '" + pidFile + "' '" + dir + "/d.out' bash -c "
      + "'while :; do sleep 0.2; done' -Dstrata.pid.file='" + pidFile + "' || exit 1\n"
      + "pid=$(strata_daemon_pid '" + pidFile + "') && echo \"alive $pid\"\n"
      + "strata_stop_pid d \"$pid\" '" + pidFile + "' 10 && echo stopped\n"
      + "strata_daemon_pid '" + pidFile + "' || echo gone\n";
    ProcessBuilder pb = new ProcessBuilder("bash", "-c", script).redirectErrorStream(true);
    pb.environment().clear();
    pb.environment().put("PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    assertEquals(out, 0, p.exitValue());
    assertTrue(out, out.startsWith("[t] hello\n"));
    assertTrue(out, out.matches("(?s).*as_root-ok\nalive [1-9][0-9]*\nstopped\ngone\n"));
  }

  /**
   * The shell profile adds the overlay before hadoop-hdfs for the NameNode, DataNode and secondary
   * NameNode only: run with Hadoop's two shell API functions it calls recording their arguments
   * (hadoop-functions.sh itself is not in this tree).
   */
  @Test
  public void theShellProfileTouchesOnlyTheHdfsDaemons() throws Exception {
    String script = "hadoop_add_profile() { echo \"profile $1\"; }\n"
      + "hadoop_add_classpath() { echo \"cp $1 $2\"; }\n"
      + ". src/main/dist/conf/shellprofile.d/strata.sh\n"
      + "for c in namenode datanode secondarynamenode jar classpath dfs balancer; do\n"
      + "  echo \"== $c\"; HADOOP_SUBCMD=$c STRATA_HOME=/s _strata_hadoop_classpath; done\n";
    Process p = new ProcessBuilder("bash", "-c", script).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(30, TimeUnit.SECONDS));
    assertEquals(out, 0, p.exitValue());
    String both = "cp /s/lib/hdfs-overlay/* before\ncp /s/lib/hdfs/* after\n";
    assertEquals("profile strata\n== namenode\n" + both + "== datanode\n" + both
      + "== secondarynamenode\n" + both + "== jar\n== classpath\n== dfs\n== balancer\n", out);
  }
}
