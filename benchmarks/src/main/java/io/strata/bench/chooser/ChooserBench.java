package io.strata.bench.chooser;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.strata.bench.common.BenchCommand;
import io.strata.bench.common.BenchJson;
import io.strata.bench.common.BenchOptions;
import io.strata.bench.common.RunLabels;
import io.strata.bench.monitor.BenchMonitor;
import io.strata.cli.CommandLines;
import io.strata.metrics.Latencies;
import io.strata.hdfs.HdfsKeys;
import io.strata.hdfs.chooser.LatencyAwareVolumeChoosingPolicy;
import io.strata.hdfs.chooser.LatencyProbe;
import io.strata.hdfs.testing.BlockPlacement;
import io.strata.hdfs.testing.OneDataNodeCluster;
import io.strata.hdfs.testing.SlowVolumes;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.FsDatasetSpi;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.FsVolumeReference;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.FsVolumeSpi;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.RoundRobinVolumeChoosingPolicy;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code strata bench chooser}: one DataNode with four DISK volumes, one of them slowed (a delay
 * per I/O operation, optionally a bandwidth cap), written to by concurrent writers with
 * replication 1; once with upstream's round-robin volume choice and once with Strata's
 * latency-aware one, each on a fresh cluster. Reports where the new blocks went and the write
 * throughput. The machine is monitored throughout ({@code --monitor-ms}), each policy's cluster
 * start, warm-up and measured writes marked; the plot goes to {@code monitor.png} in the work
 * directory. The DataNode's per-volume I/O metrics are not sampled: they need file I/O profiling,
 * which would add its cost to the very writes whose volume choice is measured.
 */
public final class ChooserBench {
  static final String COMMAND = "strata bench chooser";
  static final int VOLUMES = 4;
  static final int SLOW_INDEX = 2;
  private static final int PROBE_SAMPLES = 50;
  private static final String HEADER = "Writes files through a MiniDFSCluster DataNode with four "
    + "DISK volumes, one of them slowed, with round-robin and with the latency-aware volume "
    + "chooser (one cluster each, one after the other), and reports blocks per volume and write "
    + "throughput.";

  private ChooserBench() {
  }

  /** The command line: picocli's options, turned into {@link Settings}. */
  @Command(name = COMMAND, sortOptions = false, description = HEADER)
  static final class Cli extends BenchCommand<Settings> {
    @Option(names = "--files", paramLabel = "N", defaultValue = "16",
      description = "files written per policy (default ${DEFAULT-VALUE})")
    int files;
    @Option(names = "--file-mb", paramLabel = "N", defaultValue = "8",
      description = "MiB per file (default ${DEFAULT-VALUE})")
    int fileMb;
    @Option(names = "--block-mb", paramLabel = "N", defaultValue = "1",
      description = "HDFS block size in MiB (default ${DEFAULT-VALUE})")
    int blockMb;
    @Option(names = "--writers", paramLabel = "N", defaultValue = "2",
      description = "concurrent writers (default ${DEFAULT-VALUE})")
    int writers;
    @Option(names = "--delay-ms", paramLabel = "MS", defaultValue = "50",
      description = "delay per I/O operation on the slowed volume, in ms (default "
        + "${DEFAULT-VALUE})")
    long delayMs;
    @Option(names = "--slow-mib-per-s", paramLabel = "N", defaultValue = "0",
      description = "also cap the slowed volume's bandwidth at this many MiB/s (default 0: no "
        + "cap)")
    long slowMibPerS;
    @Mixin
    BenchOptions.JsonFile json;
    @Mixin
    BenchOptions.Monitoring monitoring;
    @Option(names = "--work-dir", paramLabel = "DIR",
      description = "directory for the clusters' data, wiped per run (default "
        + "$STRATA_WORK/bench/chooser, STRATA_WORK defaulting to .strata-work)")
    File workDir;

    @Override
    protected Settings settings() {
      return new Settings(atLeast("--files", files, 1), atLeast("--file-mb", fileMb, 1),
        atLeast("--block-mb", blockMb, 1), atLeast("--writers", writers, 1),
        atLeast("--delay-ms", delayMs, 0), atLeast("--slow-mib-per-s", slowMibPerS, 0),
        workDir != null ? workDir : CommandLines.workDir("bench/chooser"),
        monitoring.intervalMs(), json.file());
    }
  }

  /** What one run does. */
  record Settings(int files, int fileMb, int blockMb, int writers, long delayMs,
    long slowMibPerS, File workDir, long monitorMs, File json) {
    long fileBytes() {
      return (long) fileMb << 20;
    }
  }

  /** Where one policy's blocks went and how fast the files were written. */
  record Outcome(String policy, Class<?> policyClass, String slowVolume,
    Map<String, Long> blocksPerVolume, int files, long bytes, double seconds) {
    long blocks() {
      return blocksPerVolume.values().stream().mapToLong(Long::longValue).sum();
    }

    long slowBlocks() {
      return blocksPerVolume.getOrDefault(slowVolume, 0L);
    }

    double slowShare() {
      return blocks() == 0 ? 0 : (double) slowBlocks() / blocks();
    }

    double mibPerS() {
      return bytes / (double) (1 << 20) / seconds;
    }
  }

  /** Cost of one latency probe on this machine's volumes, before any slowdown. */
  record ProbeCost(int samples, double meanMs, double p50Ms, double maxMs) {
  }

  public static void main(String[] args) {
    CommandLines.runAndHalt(COMMAND, () -> run(args, System.out));
  }

  /** The labels of a run with settings {@code s} started now. */
  static RunLabels labels(Settings s) {
    return RunLabels.now(RunLabels.NO_RPC,
      RunLabels.inProcessIf(s.delayMs() > 0 || s.slowMibPerS() > 0));
  }

  static int run(String[] args, PrintStream out) throws Exception {
    return BenchCommand.run(new Cli(), args, out, s -> run(s, out));
  }

  static int run(Settings s, PrintStream out) throws Exception {
    // Decided as the run starts: the tree may change while it runs. No HBase RPC; the slowed
    // volume's delay and cap are the DataNode-side hook's (SlowVolumes), when there are any.
    RunLabels labels = labels(s);
    out.printf(Locale.ROOT, "%d DISK volumes, volume %d slowed by %d ms per I/O operation%s; "
      + "%d files x %d MiB, %d MiB blocks, %d writers, replication 1; data in %s%n", VOLUMES,
      SLOW_INDEX, s.delayMs(), s.slowMibPerS() > 0 ? " and capped at " + s.slowMibPerS()
        + " MiB/s" : "", s.files(), s.fileMb(), s.blockMb(), s.writers(), s.workDir());
    List<Outcome> outcomes = new ArrayList<>();
    ProbeCost[] probe = new ProbeCost[1];
    ObjectNode monitoring = JsonNodeFactory.instance.objectNode();
    try (BenchMonitor monitor = BenchMonitor.start(s.monitorMs(), false)) {
      outcomes.add(measure("round-robin", RoundRobinVolumeChoosingPolicy.class, s, monitor, out,
        null));
      outcomes.add(measure("latency-aware", LatencyAwareVolumeChoosingPolicy.class, s, monitor,
        out, probe));
      monitor.writeIn(monitoring, s.workDir(), COMMAND, out);
    }
    ChooserResult result = ChooserResult.of(labels, s, outcomes, probe[0],
      monitoring.get(BenchMonitor.SECTION));
    out.println();
    out.print(ChooserResult.table(result));
    if (s.json() != null) {
      BenchJson.write(s.json(), result);
      out.println("JSON written to " + s.json());
    }
    return 0;
  }

  static Outcome measure(String name, Class<?> policy, Settings s, BenchMonitor monitor,
    PrintStream out, ProbeCost[] probeCost) throws Exception {
    File base = new File(s.workDir(), name);
    FileUtil.fullyDelete(base);
    monitor.phase(name + " start");
    out.printf(Locale.ROOT, "%s: starting HDFS%n", name);
    MiniDFSCluster cluster = OneDataNodeCluster.start(
      OneDataNodeCluster.conf(base, policy, (long) s.blockMb() << 20), base, new long[VOLUMES]);
    try {
      DataNode dn = cluster.getDataNodes().get(0);
      DistributedFileSystem fs = cluster.getFileSystem();
      Map<String, String> names = volumeNames(dn);
      String slowId = new ArrayList<>(names.keySet()).get(SLOW_INDEX);
      if (probeCost != null) {
        monitor.phase(name + " probe cost");
        probeCost[0] = probeCost(dn, cluster.getConfiguration(0));
      }
      try (SlowVolumes slow = SlowVolumes.install(dn)) {
        // The DataNode has been writing before its volume slows down.
        monitor.phase(name + " warm-up");
        write(fs, "/warmup", Math.min(2, s.files()), s, null);
        slow.slow(slowId, Duration.ofMillis(s.delayMs()), s.slowMibPerS() << 20);
        out.printf(Locale.ROOT, "%s: writing %d files with %s slowed%n", name, s.files(),
          names.get(slowId));
        monitor.phase(name + " writes");
        long t0 = System.nanoTime();
        List<Path> files = write(fs, "/bench", s.files(), s, out);
        double seconds = (System.nanoTime() - t0) / 1e9;
        Map<String, Long> byId = BlockPlacement.blocksPerVolume(dn, fs, files);
        Map<String, Long> blocks = new LinkedHashMap<>();
        byId.forEach((id, n) -> blocks.put(names.getOrDefault(id, id), n));
        Outcome o = new Outcome(name, policy, names.get(slowId), blocks, files.size(),
          files.size() * s.fileBytes(), seconds);
        out.printf(Locale.ROOT, "%s: %d blocks in %.1f s, %.1f%% on the slowed volume%n", name,
          o.blocks(), seconds, 100 * o.slowShare());
        return o;
      }
    } finally {
      monitor.phase(name + " stop");
      cluster.shutdown(true);
    }
  }

  /** Storage ID to the volume's directory name (data1, data2, ...), in the DataNode's order. */
  private static Map<String, String> volumeNames(DataNode dn) throws IOException {
    Map<String, String> names = new LinkedHashMap<>();
    try (FsDatasetSpi.FsVolumeReferences refs = dn.getFSDataset().getFsVolumeReferences()) {
      for (FsVolumeSpi v : refs) {
        File dir = LatencyProbe.directory(v);
        names.put(v.getStorageID(), dir != null ? dir.getName() : v.getStorageID());
      }
    }
    return names;
  }

  /** Runs {@value #PROBE_SAMPLES} probes on each volume, one after the other. */
  private static ProbeCost probeCost(DataNode dn, Configuration conf) throws IOException {
    byte[] payload = new byte[HdfsKeys.chooserProbeBytes(conf)];
    Latencies nanos = new Latencies();
    try (FsDatasetSpi.FsVolumeReferences refs = dn.getFSDataset().getFsVolumeReferences()) {
      for (FsVolumeSpi v : refs) {
        try (FsVolumeReference ref = v.obtainReference()) {
          for (int i = 0; i < PROBE_SAMPLES; i++) {
            nanos.record(LatencyProbe.run(ref.getVolume(), LatencyProbe.directory(v), payload));
          }
        }
      }
    }
    return new ProbeCost((int) nanos.count(), nanos.mean() / 1e6, nanos.percentile(50) / 1e6,
      nanos.max() / 1e6);
  }

  private static List<Path> write(DistributedFileSystem fs, String dir, int count, Settings s,
    PrintStream progress) throws Exception {
    long[] lastReport = { System.nanoTime() };
    return OneDataNodeCluster.write(fs, dir, count, s.fileBytes(), (long) s.blockMb() << 20,
      s.writers(), done -> {
        if (progress != null && System.nanoTime() - lastReport[0] > 10_000_000_000L) {
          progress.printf(Locale.ROOT, "  %d/%d files%n", done, count);
          lastReport[0] = System.nanoTime();
        }
      });
  }
}
