package io.strata.bench.dnlocks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.strata.bench.JvmCommand;
import io.strata.bench.monitor.BenchMonitor;
import io.strata.cli.CommandLines;
import io.strata.cli.JsonReports;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.Options;
import org.apache.hadoop.fs.FileUtil;

/**
 * {@code strata bench dn-locks}: how long a DataNode's block creation and finalisation on a fast
 * volume wait while another volume is slow, with upstream HDFS 3.4.2 and with Strata's overlay
 * (patches/hdfs/0002). Each variant runs {@link DnLocksWorkload} in a JVM of its own, one after
 * the other: {@code strata} with this JVM's class path (the overlay jar ahead of hadoop-hdfs),
 * {@code upstream} with the same class path minus the overlay. Prints per variant, load and
 * operation the wait and exec percentiles, and the fast volume's createRbw/finalizeBlock wait.
 * The machine is monitored throughout ({@code --monitor-ms}), each variant's start and load levels
 * marked as its JVM reports them; the plot goes to {@code monitor.png} in the work directory.
 * The DataNode's own metrics are not sampled: it runs in the variant's JVM on a port this one
 * does not learn, and its per-volume I/O metrics need file I/O profiling, which would time the
 * very calls measured.
 */
public final class DnLocksBench {
  static final List<String> VARIANTS = List.of(DnLocksWorkload.UPSTREAM, DnLocksWorkload.STRATA);
  /** The variants' log4j configuration (a resource): the log to a file, errors to the console. */
  static final String LOG_CONFIG = "io/strata/bench/dnlocks/workload-log4j.properties";
  private static final String HEADER = "Times createRbw, createTemporary and finalizeBlock of a "
    + "DataNode with a DISK volume and a RAM tier volume (NVDIMM on tmpfs) while every I/O "
    + "operation on the DISK volume takes --delay-ms, under a light and a heavy load, with upstream HDFS and with Strata's "
    + "overlay (one JVM each, one after the other). Wait: from the call until it took its locks "
    + "(its first file operation); exec: from there to its return.\n\n";

  private DnLocksBench() {
  }

  static Options options() {
    Options o = new Options();
    o.addOption(null, "seconds", true, "seconds per load level and variant (default 20)");
    o.addOption(null, "delay-ms", true,
      "delay per I/O operation on the slow DISK volume, in ms (default 4000)");
    o.addOption(null, "json", true, "also write the results as JSON to this file");
    BenchMonitor.addOption(o, false);
    o.addOption(null, "ram-dir", true, "directory of the RAM volume, on tmpfs, wiped per variant "
      + "(default /dev/shm/strata-$USER-dn-locks)");
    o.addOption(null, "work-dir", true,
      "directory for the clusters' data and the variants' logs, wiped per run (default "
        + "$STRATA_WORK/bench/dn-locks, STRATA_WORK defaulting to .strata-work)");
    o.addOption("h", "help", false, "this text");
    return o;
  }

  public static void main(String[] args) {
    CommandLines.runAndHalt("strata bench dn-locks", () -> run(args, System.out));
  }

  static int run(String[] args, PrintStream out) throws Exception {
    CommandLine cl;
    try {
      cl = CommandLines.parse("strata bench dn-locks", "strata bench dn-locks [options]",
        HEADER, options(), args);
    } catch (CommandLines.Exit e) {
      return e.code();
    }
    long seconds;
    long delayMs;
    long monitorMs;
    try {
      seconds = CommandLines.wholeNumber(cl, "seconds", 20, 1);
      delayMs = CommandLines.wholeNumber(cl, "delay-ms", 4000, 0);
      monitorMs = BenchMonitor.intervalMs(cl);
    } catch (IllegalArgumentException e) {
      System.err.println("strata bench dn-locks: " + e.getMessage());
      return 2;
    }
    File workDir = new File(cl.getOptionValue("work-dir", defaultWorkDir())).getAbsoluteFile();
    File ramDir = new File(cl.getOptionValue("ram-dir", "/dev/shm/strata-"
      + System.getProperty("user.name") + "-dn-locks")).getAbsoluteFile();
    if (!ramDir.getAbsoluteFile().getParentFile().isDirectory()) {
      System.err.println("strata bench dn-locks: " + ramDir.getParent() + " does not exist; "
        + "name a directory on tmpfs with --ram-dir");
      return 2;
    }
    Map<String, List<String>> classPaths;
    try {
      classPaths = classPaths(JvmCommand.currentClassPath(), overlayEntry());
    } catch (IllegalStateException e) {
      System.err.println("strata bench dn-locks: " + e.getMessage());
      return 1;
    }
    FileUtil.fullyDelete(workDir);
    if (!workDir.mkdirs()) {
      throw new IOException("Cannot create " + workDir);
    }
    out.printf(Locale.ROOT, "DataNode with a DISK volume and a RAM volume (%s), DISK slowed by "
      + "%d ms per I/O operation; %d s per load; data and logs in %s%n", ramDir, delayMs, seconds,
      workDir);
    ObjectMapper mapper = new ObjectMapper();
    ObjectNode doc = mapper.createObjectNode();
    ObjectNode settings = doc.putObject("settings");
    settings.put("delay_ms", delayMs);
    settings.put("seconds_per_load", seconds);
    settings.put("volumes", "DISK (slowed), NVDIMM (RAM tier, tmpfs)");
    ObjectNode loads = settings.putObject("loads");
    for (DnLocksWorkload.Load l : DnLocksWorkload.LOADS) {
      ObjectNode n = loads.putObject(l.name());
      n.put("disk_writers", l.slowWriters());
      n.put("ram_writers", l.fastWriters());
      n.put("ram_transfers", l.transfers());
    }
    try (BenchMonitor monitor = BenchMonitor.start(monitorMs, false)) {
      for (String variant : VARIANTS) {
        File result = new File(workDir, variant + ".json");
        monitor.phase(variant + " start");
        runVariant(variant, classPaths.get(variant), seconds, delayMs, new File(workDir, variant),
          ramDir, result, monitor, out);
        doc.set(variant, mapper.readTree(result));
      }
      out.println();
      out.print(table(doc));
      monitor.writeIn(doc, workDir, "strata bench dn-locks", out);
    }
    if (cl.hasOption("json")) {
      File file = new File(cl.getOptionValue("json"));
      JsonReports.write(file, doc);
      out.println("JSON written to " + file);
    }
    return 0;
  }

  private static String defaultWorkDir() {
    return CommandLines.workDir("bench/dn-locks").getPath();
  }

  /** Where this JVM's FsDatasetImpl comes from: the overlay, if it is in effect. */
  static File overlayEntry() {
    File from = DnLocksWorkload.datasetSource();
    if (!DnLocksWorkload.isPatched(from.getPath())) {
      throw new IllegalStateException("FsDatasetImpl comes from " + from + ", not from the "
        + "strata-hdfs-overlay jar: the overlay must come before hadoop-hdfs on the class path");
    }
    return from;
  }

  /**
   * The class path of each variant: {@code strata} this JVM's, {@code upstream} the same without
   * the overlay (so hadoop-hdfs's own FsDatasetImpl loads).
   */
  static Map<String, List<String>> classPaths(List<String> current, File overlay) {
    List<String> upstream = new ArrayList<>();
    List<String> strata = new ArrayList<>();
    boolean found = false;
    for (String entry : current) {
      String abs = new File(entry).getAbsolutePath();
      strata.add(abs);
      if (new File(entry).getAbsoluteFile().equals(overlay.getAbsoluteFile())) {
        found = true;
      } else {
        upstream.add(abs);
      }
    }
    if (!found) {
      throw new IllegalStateException("the overlay " + overlay + " is not an entry of the class "
        + "path " + current);
    }
    Map<String, List<String>> out = new LinkedHashMap<>();
    out.put(DnLocksWorkload.UPSTREAM, upstream);
    out.put(DnLocksWorkload.STRATA, strata);
    return out;
  }

  /**
   * The phase a variant's output line starts: {@code "VARIANT LOAD"} for its line announcing a
   * load level ({@code "strata: heavy load (...)"}), else null.
   */
  static String phaseOf(String variant, String line) {
    String prefix = variant + ": ";
    int load = line.indexOf(" load (");
    if (!line.startsWith(prefix) || load <= prefix.length()) {
      return null;
    }
    String name = line.substring(prefix.length(), load);
    return name.contains(" ") ? null : variant + " " + name;
  }

  private static void runVariant(String variant, List<String> classPath, long seconds,
    long delayMs, File dir, File ramDir, File result, BenchMonitor monitor, PrintStream out)
    throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(JvmCommand.javaExecutable());
    cmd.addAll(JvmCommand.moduleFlags(ManagementFactory.getRuntimeMXBean().getInputArguments()));
    cmd.add("-Xmx1g");
    File log = new File(dir.getParentFile(), variant + ".log");
    cmd.add("-Dstrata.log.file=" + log);
    cmd.add("-Dlog4j.configuration=" + LOG_CONFIG);
    cmd.add("-Xlog:gc:file=" + new File(dir.getParentFile(), variant + "-gc.log"));
    cmd.add("-cp");
    cmd.add(String.join(File.pathSeparator, classPath));
    cmd.add(DnLocksWorkload.class.getName());
    cmd.addAll(List.of("--variant", variant, "--out", result.getPath(), "--seconds",
      Long.toString(seconds), "--delay-ms", Long.toString(delayMs), "--work-dir",
      dir.getPath(), "--ram-dir", ramDir.getPath()));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
      StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        String phase = phaseOf(variant, line);
        if (phase != null) {
          monitor.phase(phase);
        }
        out.println("  " + line);
      }
    }
    if (!p.waitFor(10, TimeUnit.MINUTES)) {
      p.destroyForcibly().waitFor();
      throw new IOException(variant + " did not finish within 10 minutes; log: " + log);
    }
    if (p.exitValue() != 0 || !result.isFile()) {
      throw new IOException(variant + " failed (exit " + p.exitValue() + "); log: " + log);
    }
  }

  /** The report's table: per variant, load, volume and operation. */
  static String table(JsonNode doc) {
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT, "%-9s %-6s %-5s %-16s %7s %10s %10s %10s %10s %10s%n",
      "variant", "load", "vol", "operation", "ops", "wait p50", "wait p99", "wait max",
      "exec p99", "exec max"));
    for (String variant : VARIANTS) {
      JsonNode v = doc.get(variant);
      v.get("loads").fields().forEachRemaining(load -> load.getValue().get("ops").fields()
        .forEachRemaining(vol -> vol.getValue().fields().forEachRemaining(op -> {
          JsonNode o = op.getValue();
          sb.append(String.format(Locale.ROOT,
            "%-9s %-6s %-5s %-16s %7d %10.2f %10.2f %10.2f %10.2f %10.2f%n", variant,
            load.getKey(), vol.getKey().equals(DnLocksWorkload.FAST) ? "RAM" : "DISK",
            op.getKey(), o.get("count").asInt(), o.get("wait_ms_p50").asDouble(),
            o.get("wait_ms_p99").asDouble(), o.get("wait_ms_max").asDouble(),
            o.get("exec_ms_p99").asDouble(), o.get("exec_ms_max").asDouble()));
        })));
    }
    sb.append("(ms; wait: call to its first file operation, after its locks; exec: from there to "
      + "its return)\n");
    for (String variant : VARIANTS) {
      JsonNode v = doc.get(variant);
      StringBuilder perLoad = new StringBuilder();
      v.get("loads").fields().forEachRemaining(load -> {
        perLoad.append(String.format(Locale.ROOT, "; %s p99 %.2f max %.2f (GC %d ms)",
          load.getKey(), load.getValue().get("fast_wait_ms_p99").asDouble(),
          load.getValue().get("fast_wait_ms_max").asDouble(),
          load.getValue().get("gc_ms").asLong()));
        int errors = load.getValue().get("errors").asInt();
        if (errors > 0) {
          perLoad.append(" (").append(errors).append(" failed operations: ")
            .append(load.getValue().path("first_error").asText()).append(')');
        }
      });
      sb.append(String.format(Locale.ROOT, "%-9s RAM createRbw+finalizeBlock wait ms: p99 %.2f "
          + "max %.2f%s  [FsDatasetImpl from %s]%n", variant,
        v.get("fast_wait_ms_p99").asDouble(), v.get("fast_wait_ms_max").asDouble(), perLoad,
        new File(v.get("fsdataset_impl_from").asText()).getName()));
    }
    return sb.toString();
  }
}
