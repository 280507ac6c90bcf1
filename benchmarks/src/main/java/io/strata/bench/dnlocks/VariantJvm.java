package io.strata.bench.dnlocks;

import io.strata.bench.JvmCommand;
import io.strata.bench.common.BenchJson;
import io.strata.bench.monitor.BenchMonitor;
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
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One variant of {@code strata bench dn-locks} in a JVM of its own: the class path decides which
 * FsDatasetImpl it loads. Its output is passed on, its load levels marked as phases of the
 * monitor, and its result read back from the JSON file it writes.
 */
final class VariantJvm {
  /** The variants' log4j configuration (a resource): the log to a file, errors to the console. */
  static final String LOG_CONFIG = "io/strata/bench/dnlocks/workload-log4j.properties";

  private final String variant;
  private final List<String> classPath;
  private final DnLocksBench.Settings s;
  private final BenchMonitor monitor;
  private final PrintStream out;

  VariantJvm(String variant, List<String> classPath, DnLocksBench.Settings s,
    BenchMonitor monitor, PrintStream out) {
    this.variant = variant;
    this.classPath = classPath;
    this.s = s;
    this.monitor = monitor;
    this.out = out;
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

  /** Runs the variant's JVM to its end and reads what it measured. */
  DnLocksResult.Variant run() throws IOException, InterruptedException {
    File dir = new File(s.workDir(), variant);
    File result = new File(s.workDir(), variant + ".json");
    File log = new File(s.workDir(), variant + ".log");
    List<String> cmd = new ArrayList<>();
    cmd.add(JvmCommand.javaExecutable());
    cmd.addAll(JvmCommand.moduleFlags(ManagementFactory.getRuntimeMXBean().getInputArguments()));
    cmd.add("-Xmx1g");
    cmd.add("-Dstrata.log.file=" + log);
    cmd.add("-Dlog4j.configuration=" + LOG_CONFIG);
    cmd.add("-Xlog:gc:file=" + new File(s.workDir(), variant + "-gc.log"));
    cmd.add("-cp");
    cmd.add(String.join(File.pathSeparator, classPath));
    cmd.add(DnLocksWorkload.class.getName());
    cmd.addAll(List.of("--variant", variant, "--out", result.getPath(), "--seconds",
      Long.toString(s.seconds()), "--delay-ms", Long.toString(s.delayMs()), "--work-dir",
      dir.getPath(), "--ram-dir", s.ramDir().getPath()));
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
    return BenchJson.read(result, DnLocksResult.Variant.class);
  }
}
