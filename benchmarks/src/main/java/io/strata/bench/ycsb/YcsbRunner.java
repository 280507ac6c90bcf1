package io.strata.bench.ycsb;

import io.strata.bench.JvmCommand;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs YCSB's client ({@code site.ycsb.Client}) in a JVM of its own, because it ends with {@code
 * System.exit}: same Java, same classpath and the same {@code --add-opens}/{@code --add-exports}
 * flags as this JVM, with {@link HBaseClient26} as the binding. The output goes to files in a
 * directory given per phase; the report is parsed into a {@link YcsbRun}.
 *
 * <p>Latencies are measured with HdrHistogram and reported at the 50th, 99th, 99.9th and 99.99th
 * percentiles unless the properties say otherwise.
 */
public final class YcsbRunner {
  /** YCSB's two phases. */
  public enum Phase {
    /** Insert {@code recordcount} records ({@code -load}). */
    LOAD("-load", "load"),
    /** Run {@code operationcount} operations of the workload's mix ({@code -t}). */
    TRANSACTIONS("-t", "run");

    private final String flag;
    private final String fileName;

    Phase(String flag, String fileName) {
      this.flag = flag;
      this.fileName = fileName;
    }

    public String flag() {
      return flag;
    }
  }

  public static final String CLIENT_CLASS = "site.ycsb.Client";

  private final Path workloadFile;
  private final Map<String, String> properties = new LinkedHashMap<>();
  private final List<String> jvmOptions = new ArrayList<>();
  private String db = HBaseClient26.class.getName();
  private int threads = 1;
  private int target;
  private int statusIntervalSeconds = 10;
  private Duration timeout = Duration.ofMinutes(30);

  public YcsbRunner(Path workloadFile) {
    this.workloadFile = workloadFile;
    properties.put(HBaseClient26.COLUMN_FAMILY, YcsbTable.DEFAULT_FAMILY);
    properties.put("measurementtype", "hdrhistogram");
    properties.put("hdrhistogram.percentiles", "50,99,99.9,99.99");
  }

  /** A YCSB property ({@code -p}), over the workload file's; e.g. {@code recordcount}. */
  public YcsbRunner property(String key, String value) {
    properties.put(key, value);
    return this;
  }

  public YcsbRunner properties(Map<String, String> values) {
    properties.putAll(values);
    return this;
  }

  /** The binding class; {@link HBaseClient26} by default. */
  public YcsbRunner db(String className) {
    this.db = className;
    return this;
  }

  public YcsbRunner threads(int n) {
    this.threads = n;
    return this;
  }

  /** Operations per second to aim at over all threads; 0 (default) for as many as possible. */
  public YcsbRunner target(int opsPerSecond) {
    this.target = opsPerSecond;
    return this;
  }

  public YcsbRunner statusIntervalSeconds(int seconds) {
    this.statusIntervalSeconds = seconds;
    return this;
  }

  /** How long a phase may take before its process is killed. */
  public YcsbRunner timeout(Duration d) {
    this.timeout = d;
    return this;
  }

  /** An extra option for the YCSB JVM, e.g. {@code -Xmx1g}. */
  public YcsbRunner jvmOption(String option) {
    jvmOptions.add(option);
    return this;
  }

  /**
   * Runs {@code phase} with its output in {@code dir}; fails if YCSB exits non-zero, leaves no
   * report or ran no operation at all.
   */
  public YcsbRun execute(Phase phase, Path dir) throws IOException, InterruptedException {
    Files.createDirectories(dir);
    Path stdout = dir.resolve(phase.fileName + ".out");
    Path stderr = dir.resolve(phase.fileName + ".err");
    Path report = dir.resolve(phase.fileName + ".txt");
    Files.deleteIfExists(report);
    List<String> command = command(phase, dir);
    ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile())
      .redirectOutput(stdout.toFile()).redirectError(stderr.toFile());
    long start = System.nanoTime();
    Process p = pb.start();
    boolean finished = false;
    try {
      finished = p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } finally {
      if (!finished) {
        p.destroy();
        if (!p.waitFor(10, TimeUnit.SECONDS)) {
          p.destroyForcibly().waitFor();
        }
      }
    }
    if (!finished) {
      throw new IOException("YCSB " + phase + " did not finish within " + timeout
        + "; output in " + dir + tail(stderr));
    }
    Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
    YcsbReport parsed = Files.exists(report) ? YcsbReport.parse(report) : null;
    String problem = problem(p.exitValue(), parsed);
    if (problem != null) {
      throw new IOException("YCSB " + phase + " " + problem + "; output in " + dir + tail(stderr));
    }
    return new YcsbRun(command, p.exitValue(), elapsed, stdout, stderr, report, parsed);
  }

  private static String problem(int exitCode, YcsbReport report) {
    if (exitCode != 0) {
      return "exited with " + exitCode;
    }
    if (report == null || !report.complete()) {
      return "left no complete report";
    }
    // YCSB exits 0 when a binding fails to initialise; its client thread ends without a word.
    if (report.operations().isEmpty()) {
      return "ran no operation";
    }
    return null;
  }

  /** The command line of {@code phase}, with the report and logs in {@code dir}. */
  public List<String> command(Phase phase, Path dir) {
    List<String> cmd = new ArrayList<>();
    cmd.add(JvmCommand.javaExecutable());
    cmd.addAll(JvmCommand.moduleFlags(ManagementFactory.getRuntimeMXBean().getInputArguments()));
    // The client's logging (log4j.properties of strata-local-cluster) goes to this file.
    cmd.add("-Dstrata.log.file=" + dir.toAbsolutePath().resolve(phase.fileName + ".log"));
    cmd.addAll(jvmOptions);
    cmd.add("-cp");
    // Absolute entries: YCSB runs in its output directory.
    cmd.add(JvmCommand.absoluteClassPath(System.getProperty("java.class.path")));
    cmd.add(CLIENT_CLASS);
    cmd.add("-db");
    cmd.add(db);
    cmd.add("-P");
    cmd.add(workloadFile.toAbsolutePath().toString());
    properties.forEach((k, v) -> {
      cmd.add("-p");
      cmd.add(k + "=" + v);
    });
    cmd.add("-p");
    cmd.add("exporter=site.ycsb.measurements.exporter.TextMeasurementsExporter");
    cmd.add("-p");
    cmd.add("exportfile=" + dir.toAbsolutePath().resolve(phase.fileName + ".txt"));
    cmd.add("-p");
    cmd.add("status.interval=" + statusIntervalSeconds);
    cmd.add("-threads");
    cmd.add(Integer.toString(threads));
    if (target > 0) {
      cmd.add("-target");
      cmd.add(Integer.toString(target));
    }
    cmd.add("-s");
    cmd.add(phase.flag);
    return cmd;
  }

  private static String tail(Path file) {
    try {
      List<String> lines =
        new String(Files.readAllBytes(file), StandardCharsets.UTF_8).lines().toList();
      List<String> last = lines.subList(Math.max(0, lines.size() - 20), lines.size());
      return last.isEmpty() ? "" : "; last lines of " + file.getFileName() + ":\n"
        + String.join("\n", last);
    } catch (IOException e) {
      return "";
    }
  }
}
