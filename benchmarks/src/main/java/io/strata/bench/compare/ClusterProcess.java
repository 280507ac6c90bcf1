package io.strata.bench.compare;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.HBaseConfiguration;

/**
 * One multi-process cluster of the distribution's {@code bin/strata-cluster}, brought up fresh
 * for one configuration and torn down after it (daemons, loop volumes and their blkio throttle
 * lines: {@code down} undoes exactly what {@code up} recorded). The script's output goes to a log
 * file per cluster; a failed {@code up} has already stopped what it started, and its log's tail
 * is in the exception. Not thread-safe.
 */
final class ClusterProcess implements AutoCloseable {
  private static final long UP_TIMEOUT_MIN = 15;
  private static final long DOWN_TIMEOUT_MIN = 10;

  private final File script;
  private final File dir;
  private final File log;
  private final PrintStream out;
  private boolean up;

  private ClusterProcess(File script, File dir, File log, PrintStream out) {
    this.script = script;
    this.dir = dir;
    this.log = log;
    this.out = out;
  }

  /**
   * Runs {@code strata-cluster up --fresh} in {@code dir} with {@code args} (the configuration,
   * media, sizes), its output to {@code log}.
   *
   * @throws IOException when {@code up} fails, with the last lines of its output
   */
  static ClusterProcess up(File distHome, File dir, File log, List<String> args, PrintStream out)
    throws IOException, InterruptedException {
    File script = new File(distHome, "bin/strata-cluster");
    if (!script.canExecute()) {
      throw new IOException("No executable " + script + ": --dist-home must name an unpacked "
        + "distribution (./strata bench compare passes the one ./strata cluster uses)");
    }
    ClusterProcess c = new ClusterProcess(script, dir, log, out);
    List<String> cmd = new ArrayList<>(List.of("up", "--fresh", "--dir", dir.getPath()));
    cmd.addAll(args);
    // Marked up first: a start that fails half-way is still brought down by close().
    c.up = true;
    try {
      c.run(cmd, UP_TIMEOUT_MIN);
    } catch (IOException | InterruptedException | RuntimeException e) {
      c.close();
      throw e;
    }
    return c;
  }

  /** {@code status --json}: daemons, {@code emulation}, {@code probe}, {@code conf}. */
  JsonNode status() throws IOException, InterruptedException {
    File json = new File(dir, "status.json");
    Files.deleteIfExists(json.toPath());
    try {
      run(List.of("status", "--dir", dir.getPath(), "--json", json.getPath()), 2);
    } catch (IOException e) {
      if (!json.isFile()) {
        throw e;
      }
      // Exit 3: a daemon is down; the JSON says which, and the caller decides.
    }
    return new ObjectMapper().readTree(json);
  }

  /** The client configuration of the running cluster: its {@code conf/} site files. */
  Configuration clientConfiguration() {
    Configuration conf = HBaseConfiguration.create();
    File confDir = new File(dir, "conf");
    for (String f : List.of("core-site.xml", "hdfs-site.xml", "hbase-site.xml")) {
      conf.addResource(new Path(new File(confDir, f).toURI()));
    }
    return conf;
  }

  File dir() {
    return dir;
  }

  /** {@code down}: every daemon stopped, loop volumes unmounted, detached and unthrottled. */
  @Override
  public void close() throws IOException {
    if (!up) {
      return;
    }
    up = false;
    try {
      run(List.of("down", "--dir", dir.getPath()), DOWN_TIMEOUT_MIN);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("Interrupted while bringing the cluster in " + dir + " down", e);
    }
  }

  private void run(List<String> args, long timeoutMin) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(script.getPath());
    cmd.addAll(args);
    Files.createDirectories(log.toPath().getParent());
    Files.writeString(log.toPath(), "$ " + String.join(" ", cmd) + "\n", StandardCharsets.UTF_8,
      java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
      .redirectOutput(ProcessBuilder.Redirect.appendTo(log)).start();
    if (!p.waitFor(timeoutMin, TimeUnit.MINUTES)) {
      p.destroy();
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
      throw new IOException("strata-cluster " + args.get(0) + " did not end within " + timeoutMin
        + " minutes (its output: " + log + ")");
    }
    if (p.exitValue() != 0) {
      throw new IOException("strata-cluster " + args.get(0) + " exited with " + p.exitValue()
        + "; last lines of " + log + ":\n" + tail(log, 20));
    }
    out.println("  strata-cluster " + args.get(0) + " done (output: " + log + ")");
  }

  static String tail(File f, int lines) throws IOException {
    List<String> all = Files.readAllLines(f.toPath(), StandardCharsets.UTF_8);
    return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
  }
}
