package io.strata.bench.dnlocks;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.strata.bench.JvmCommand;
import io.strata.bench.common.BenchCommand;
import io.strata.bench.common.BenchJson;
import io.strata.bench.common.BenchOptions;
import io.strata.bench.common.RunLabels;
import io.strata.bench.monitor.BenchMonitor;
import io.strata.cli.CommandLines;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.fs.FileUtil;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code strata bench dn-locks}: how long a DataNode's block creation and finalisation on a fast
 * volume wait while another volume is slow, with upstream HDFS 3.4.2 and with Strata's overlay
 * (patches/hdfs/0002). Each variant runs {@link DnLocksWorkload} in a JVM of its own
 * ({@link VariantJvm}), one after the other: {@code strata} with this JVM's class path (the
 * overlay jar ahead of hadoop-hdfs), {@code upstream} with the same class path minus the
 * overlay. The table ({@link DnLocksResult#table}) gives per variant, load and operation the
 * wait and exec percentiles, and the fast volume's createRbw/finalizeBlock wait. The machine is
 * monitored throughout ({@code --monitor-ms}), each variant's start and load levels marked as its
 * JVM reports them; the plot goes to {@code monitor.png} in the work directory. The DataNode's
 * own metrics are not sampled: it runs in the variant's JVM on a port this one does not learn,
 * and its per-volume I/O metrics need file I/O profiling, which would time the very calls
 * measured.
 */
public final class DnLocksBench {
  static final String COMMAND = "strata bench dn-locks";
  static final List<String> VARIANTS = List.of(DnLocksWorkload.UPSTREAM, DnLocksWorkload.STRATA);
  private static final String HEADER = "Times createRbw, createTemporary and finalizeBlock of a "
    + "DataNode with a DISK volume and a RAM tier volume (NVDIMM on tmpfs) while every I/O "
    + "operation on the DISK volume takes --delay-ms, under a light and a heavy load, with "
    + "upstream HDFS and with Strata's overlay (one JVM each, one after the other). Wait: from "
    + "the call until it took its locks (its first file operation); exec: from there to its "
    + "return.";

  private DnLocksBench() {
  }

  /** The command line: picocli's options, turned into {@link Settings}. */
  @Command(name = COMMAND, sortOptions = false, description = HEADER)
  static final class Cli extends BenchCommand<Settings> {
    @Option(names = "--seconds", paramLabel = "N", defaultValue = "20",
      description = "seconds per load level and variant (default ${DEFAULT-VALUE})")
    long seconds;
    @Option(names = "--delay-ms", paramLabel = "MS", defaultValue = "4000",
      description = "delay per I/O operation on the slow DISK volume, in ms (default "
        + "${DEFAULT-VALUE})")
    long delayMs;
    @Mixin
    BenchOptions.JsonFile json;
    @Mixin
    BenchOptions.Monitoring monitoring;
    @Option(names = "--ram-dir", paramLabel = "DIR",
      description = "directory of the RAM volume, on tmpfs, wiped per variant (default "
        + "/dev/shm/strata-$USER-dn-locks)")
    File ramDir;
    @Option(names = "--work-dir", paramLabel = "DIR",
      description = "directory for the clusters' data and the variants' logs, wiped per run "
        + "(default $STRATA_WORK/bench/dn-locks, STRATA_WORK defaulting to .strata-work)")
    File workDir;

    @Override
    protected Settings settings() {
      File ram = (ramDir != null ? ramDir : new File("/dev/shm/strata-"
        + System.getProperty("user.name") + "-dn-locks")).getAbsoluteFile();
      if (!ram.getParentFile().isDirectory()) {
        throw new IllegalArgumentException("--ram-dir: " + ram.getParent() + " does not exist; "
          + "name a directory on tmpfs");
      }
      File work = workDir != null ? workDir : CommandLines.workDir("bench/dn-locks");
      return new Settings(atLeast("--seconds", seconds, 1), atLeast("--delay-ms", delayMs, 0),
        work.getAbsoluteFile(), ram, monitoring.intervalMs(), json.file());
    }
  }

  /** What one run does. */
  record Settings(long seconds, long delayMs, File workDir, File ramDir, long monitorMs,
    File json) {
  }

  public static void main(String[] args) {
    CommandLines.runAndHalt(COMMAND, () -> run(args, System.out));
  }

  static int run(String[] args, PrintStream out) throws Exception {
    return BenchCommand.run(new Cli(), args, out, s -> run(s, out));
  }

  /** The labels of a run with settings {@code s} started now. */
  static RunLabels labels(Settings s) {
    return RunLabels.now(RunLabels.NO_RPC, RunLabels.inProcessIf(s.delayMs() > 0));
  }

  static int run(Settings s, PrintStream out) throws Exception {
    // Decided as the run starts: the tree may change while it runs. No HBase RPC; the DISK
    // volume's delay is the DataNode-side hook's (SlowVolumes), when there is one.
    RunLabels labels = labels(s);
    Map<String, List<String>> classPaths;
    try {
      classPaths = VariantJvm.classPaths(JvmCommand.currentClassPath(), VariantJvm.overlayEntry());
    } catch (IllegalStateException e) {
      System.err.println(COMMAND + ": " + e.getMessage());
      return 1;
    }
    FileUtil.fullyDelete(s.workDir());
    if (!s.workDir().mkdirs()) {
      throw new IOException("Cannot create " + s.workDir());
    }
    out.printf(Locale.ROOT, "DataNode with a DISK volume and a RAM volume (%s), DISK slowed by "
      + "%d ms per I/O operation; %d s per load; data and logs in %s%n", s.ramDir(), s.delayMs(),
      s.seconds(), s.workDir());
    DnLocksResult.Variant[] variants = new DnLocksResult.Variant[VARIANTS.size()];
    ObjectNode monitoring = JsonNodeFactory.instance.objectNode();
    DnLocksResult result;
    try (BenchMonitor monitor = BenchMonitor.start(s.monitorMs(), false)) {
      for (int i = 0; i < variants.length; i++) {
        String variant = VARIANTS.get(i);
        monitor.phase(variant + " start");
        variants[i] = new VariantJvm(variant, classPaths.get(variant), s, monitor, out).run();
      }
      result = DnLocksResult.of(labels, DnLocksResult.recorded(s.delayMs(), s.seconds()),
        variants[0], variants[1], null);
      out.println();
      out.print(DnLocksResult.table(result));
      monitor.writeIn(monitoring, s.workDir(), COMMAND, out);
    }
    result = result.monitored(monitoring.get(BenchMonitor.SECTION));
    if (s.json() != null) {
      BenchJson.write(s.json(), result);
      out.println("JSON written to " + s.json());
    }
    return 0;
  }
}
