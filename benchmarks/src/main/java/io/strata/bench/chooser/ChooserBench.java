package io.strata.bench.chooser;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.strata.metrics.Latencies;
import io.strata.bench.monitor.BenchMonitor;
import io.strata.cli.CommandLines;
import io.strata.cli.JsonReports;
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
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.Options;
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
  private static final String COMMAND = "strata bench chooser";
  static final int VOLUMES = 4;
  static final int SLOW_INDEX = 2;
  private static final int PROBE_SAMPLES = 50;
  private static final String HEADER = "Writes files through a MiniDFSCluster DataNode with four "
    + "DISK volumes, one of them slowed, with round-robin and with the latency-aware volume "
    + "chooser (one cluster each, one after the other), and reports blocks per volume and write "
    + "throughput.\n\n";

  private ChooserBench() {
  }

  /** What one run does. */
  record Settings(int files, int fileMb, int blockMb, int writers, long delayMs,
    long slowMibPerS, File workDir, long monitorMs) {
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

  static Options options() {
    Options o = new Options();
    o.addOption(null, "files", true, "files written per policy (default 16)");
    o.addOption(null, "file-mb", true, "MiB per file (default 8)");
    o.addOption(null, "block-mb", true, "HDFS block size in MiB (default 1)");
    o.addOption(null, "writers", true, "concurrent writers (default 2)");
    o.addOption(null, "delay-ms", true,
      "delay per I/O operation on the slowed volume, in ms (default 50)");
    o.addOption(null, "slow-mib-per-s", true,
      "also cap the slowed volume's bandwidth at this many MiB/s (default 0: no cap)");
    o.addOption(null, "json", true, "also write the results as JSON to this file");
    BenchMonitor.addOption(o, false);
    o.addOption(null, "work-dir", true,
      "directory for the clusters' data, wiped per run (default $STRATA_WORK/bench/chooser, "
        + "STRATA_WORK defaulting to .strata-work)");
    o.addOption("h", "help", false, "this text");
    return o;
  }

  public static void main(String[] args) {
    CommandLines.runAndHalt(COMMAND, () -> run(args, System.out));
  }

  static int run(String[] args, PrintStream out) throws Exception {
    CommandLines.Parsed<Settings> parsed;
    try {
      parsed = CommandLines.settings(COMMAND, COMMAND + " [options]", HEADER, options(), args,
        ChooserBench::settings);
    } catch (CommandLines.Exit e) {
      return e.code();
    }
    CommandLine cl = parsed.line();
    Settings s = parsed.settings();
    out.printf(Locale.ROOT, "%d DISK volumes, volume %d slowed by %d ms per I/O operation%s; "
      + "%d files x %d MiB, %d MiB blocks, %d writers, replication 1; data in %s%n", VOLUMES,
      SLOW_INDEX, s.delayMs(), s.slowMibPerS() > 0 ? " and capped at " + s.slowMibPerS()
        + " MiB/s" : "", s.files(), s.fileMb(), s.blockMb(), s.writers(), s.workDir());
    List<Outcome> outcomes = new ArrayList<>();
    ProbeCost[] probe = new ProbeCost[1];
    ObjectNode monitoring = new ObjectMapper().createObjectNode();
    try (BenchMonitor monitor = BenchMonitor.start(s.monitorMs(), false)) {
      outcomes.add(measure("round-robin", RoundRobinVolumeChoosingPolicy.class, s, monitor, out,
        null));
      outcomes.add(measure("latency-aware", LatencyAwareVolumeChoosingPolicy.class, s, monitor,
        out, probe));
      out.println();
      out.print(table(outcomes, probe[0]));
      monitor.writeIn(monitoring, s.workDir(), COMMAND, out);
    }
    if (cl.hasOption("json")) {
      File file = new File(cl.getOptionValue("json"));
      ObjectNode doc = json(s, outcomes, probe[0]);
      doc.setAll(monitoring);
      JsonReports.write(file, doc);
      out.println("JSON written to " + file);
    }
    return 0;
  }

  static Settings settings(CommandLine cl) {
    return new Settings((int) CommandLines.wholeNumber(cl, "files", 16, 1),
      (int) CommandLines.wholeNumber(cl, "file-mb", 8, 1),
      (int) CommandLines.wholeNumber(cl, "block-mb", 1, 1),
      (int) CommandLines.wholeNumber(cl, "writers", 2, 1),
      CommandLines.wholeNumber(cl, "delay-ms", 50, 0),
      CommandLines.wholeNumber(cl, "slow-mib-per-s", 0, 0),
      new File(cl.getOptionValue("work-dir", defaultWorkDir())), BenchMonitor.intervalMs(cl));
  }

  private static String defaultWorkDir() {
    return CommandLines.workDir("bench/chooser").getPath();
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

  static String table(List<Outcome> outcomes, ProbeCost probe) {
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT, "%-14s %7s %11s %11s %9s %8s   %s%n", "policy", "blocks",
      "slow blocks", "slow share", "seconds", "MiB/s", "blocks per volume (* slowed)"));
    for (Outcome o : outcomes) {
      StringBuilder perVolume = new StringBuilder();
      o.blocksPerVolume().forEach((vol, n) -> perVolume.append(vol).append('=').append(n)
        .append(vol.equals(o.slowVolume()) ? "* " : " "));
      sb.append(String.format(Locale.ROOT, "%-14s %7d %11d %10.1f%% %9.1f %8.1f   %s%n",
        o.policy(), o.blocks(), o.slowBlocks(), 100 * o.slowShare(), o.seconds(), o.mibPerS(),
        perVolume.toString().trim()));
    }
    if (probe != null) {
      sb.append(String.format(Locale.ROOT, "latency probe (%d B, write+sync+delete) on these "
        + "volumes: mean %.2f ms, p50 %.2f ms, max %.2f ms over %d probes: %.2f%% of a "
        + "volume's time at one probe per %d ms%n", HdfsKeys.CHOOSER_PROBE_BYTES_DEFAULT,
        probe.meanMs(), probe.p50Ms(), probe.maxMs(), probe.samples(),
        100 * probe.meanMs() / HdfsKeys.CHOOSER_PROBE_INTERVAL_MS_DEFAULT,
        HdfsKeys.CHOOSER_PROBE_INTERVAL_MS_DEFAULT));
    }
    return sb.toString();
  }

  static ObjectNode json(Settings s, List<Outcome> outcomes, ProbeCost probe) {
    ObjectMapper mapper = new ObjectMapper();
    ObjectNode doc = mapper.createObjectNode();
    ObjectNode settings = doc.putObject("settings");
    settings.put("volumes", VOLUMES);
    settings.put("storage_type", "DISK");
    settings.put("slow_volume_index", SLOW_INDEX);
    settings.put("delay_ms", s.delayMs());
    settings.put("slow_mib_per_s", s.slowMibPerS());
    settings.put("files", s.files());
    settings.put("file_mb", s.fileMb());
    settings.put("block_mb", s.blockMb());
    settings.put("writers", s.writers());
    settings.put("replication", 1);
    settings.put(HdfsKeys.CHOOSER_PROBE_INTERVAL_MS, HdfsKeys.CHOOSER_PROBE_INTERVAL_MS_DEFAULT);
    settings.put(HdfsKeys.CHOOSER_PROBE_BYTES, HdfsKeys.CHOOSER_PROBE_BYTES_DEFAULT);
    settings.put(HdfsKeys.CHOOSER_SLOW_RATIO, HdfsKeys.CHOOSER_SLOW_RATIO_DEFAULT);
    settings.put(HdfsKeys.CHOOSER_SLOW_MIN_MS, HdfsKeys.CHOOSER_SLOW_MIN_MS_DEFAULT);
    settings.put(HdfsKeys.CHOOSER_EWMA_WEIGHT, HdfsKeys.CHOOSER_EWMA_WEIGHT_DEFAULT);
    ObjectNode policies = doc.putObject("policies");
    for (Outcome o : outcomes) {
      ObjectNode p = policies.putObject(o.policy());
      p.put("class", o.policyClass().getName());
      p.put("slow_share", o.slowShare());
      p.put("mb_per_s", o.mibPerS());
      p.put("slow_volume", o.slowVolume());
      p.put("slow_blocks", o.slowBlocks());
      p.put("blocks", o.blocks());
      ObjectNode perVolume = p.putObject("blocks_per_volume");
      o.blocksPerVolume().forEach(perVolume::put);
      p.put("files", o.files());
      p.put("bytes", o.bytes());
      p.put("seconds", o.seconds());
    }
    if (probe != null) {
      ObjectNode pr = doc.putObject("probe");
      pr.put("samples", probe.samples());
      pr.put("mean_ms", probe.meanMs());
      pr.put("p50_ms", probe.p50Ms());
      pr.put("max_ms", probe.maxMs());
      pr.put("busy_fraction_at_default_interval",
        probe.meanMs() / HdfsKeys.CHOOSER_PROBE_INTERVAL_MS_DEFAULT);
    }
    return doc;
  }
}
