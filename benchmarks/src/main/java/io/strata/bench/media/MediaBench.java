package io.strata.bench.media;

import io.strata.bench.monitor.BenchMonitor;
import io.strata.bench.common.BenchCommand;
import io.strata.bench.common.RunLabels;
import io.strata.cli.CommandLines;
import io.strata.hdfs.ramdisk.RamDiskDirectory;
import io.strata.local.LocalClusterConfig;
import io.strata.local.TieredDfsCluster;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code strata bench media}: the storage-media paper's eleven cases (its Table 1) on one
 * machine. One tiered HDFS whose SSD and HDD volumes are emulated ({@link MediaEmulation}) serves
 * every case; each case gets a fresh HBase (the WAL policy is RegionServer-wide) with its
 * placement keys ({@link MediaCases}) and root directory, a pre-split table and YCSB's load
 * phase ({@link MediaCaseRun}). The report ({@link MediaReport}) compares the cases as the paper
 * did.
 *
 * <p>The storage-media paper: <i>Optimize Hadoop Cluster Performance with Various Storage Media</i>.
 */
public final class MediaBench {
  private static final String COMMAND = "strata bench media";
  private static final int DATANODES = 3;
  /** {@link MediaCases#names()} as a constant, for the usage (MediaBenchCliTest holds them). */
  static final String CASE_NAMES = "50G_RAM, 50G_SSD, 50G_HDD, 1T_SSD, 1T_HDD, 1T_RAM_SSD, "
    + "1T_RAM_HDD, 1T_SSD_HDD, 1T_SSD_All_HDD, 1T_RAM_SSD_HDD, 1T_RAM_SSD_All_HDD";
  private static final String HEADER = "Runs the storage-media study's cases (its Table 1) on "
    + "one machine: HDFS with a RAM tier on tmpfs and emulated SSD and HDD volumes (the study's "
    + "device figures), a fresh HBase per case with the case's placement, and YCSB's load "
    + "phase. Writes report.md, results.json and PNG plots to --out.%n%nCases: " + CASE_NAMES
    + "%n%nSSD count (the study's Figures 4 and 5): --ssd-volumes 4,8 "
    + "runs 50G_SSD on 4 and on 8 SSD volumes per DataNode (cases 50G_4SSD, 50G_8SSD), each "
    + "without and with the study's disk-controller cap (1536 MB/s over a DataNode's SSDs; "
    + "cases 50G_4SSD_cap1536, 50G_8SSD_cap1536) unless --controller-cap says otherwise.";

  private MediaBench() {
  }

  /** What a run does. */
  record Settings(MediaScale scale, List<MediaCase> cases, File out, File workDir, int dataNodes,
    File ramDir, boolean ramBacked) {
  }

  /** The command line: picocli's options, turned into {@link Options}. */
  @Command(name = COMMAND, sortOptions = false, description = HEADER)
  static final class Cli extends BenchCommand<Options> {
    @Option(names = "--cases", paramLabel = "A,B",
      description = "comma-separated case names (default: all eleven, in the study's order)")
    String cases;
    @Option(names = "--ssd-volumes", paramLabel = "N,N",
      description = "instead of --cases: the study's SSD-count cases, 50G_SSD on each of these "
        + "numbers of SSD volumes per DataNode (1 to " + SsdSetup.MAX_VOLUMES + "), e.g. 4,8, "
        + "run in that order; named 50G_NSSD")
    String ssdVolumes;
    @Option(names = "--controller-cap", paramLabel = "CAPS",
      description = "with --ssd-volumes: bandwidth shared by each DataNode's SSD volumes, a "
        + "list of none, study (the study's SATA controllers, "
        + SsdSetup.STUDY_CONTROLLER_BYTES_PER_SECOND / 1_000_000 + " MB/s) or MB/s; every "
        + "count runs under every cap, capped cases named 50G_NSSD_capMB (default: none,study)")
    String controllerCap;
    @Option(names = "--warmup",
      description = "load the first case once more before it, unrecorded, so that no measured "
        + "case pays for this JVM's warm-up (the first case of a run is otherwise the slowest; "
        + "default: off)")
    boolean warmup;
    @Option(names = "--scale", paramLabel = "quick|full", defaultValue = "quick",
      description = "quick (default, about a minute per case) or full")
    String scale;
    @Option(names = "--out", paramLabel = "DIR",
      description = "report directory (default $STRATA_WORK/bench/media/report-SCALE)")
    File out;
    @Option(names = "--work-dir", paramLabel = "DIR",
      description = "cluster data, wiped at start (default $STRATA_WORK/bench/media/work)")
    File workDir;
    @Option(names = "--ram-dir", paramLabel = "DIR",
      description = "RAM tier directory (default /dev/shm/strata-USER-ID; must be tmpfs for the "
        + "RAM medium)")
    File ramDir;

    @Override
    protected Options settings() {
      MediaScale s;
      try {
        s = MediaScale.parse(scale);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("--scale: " + e.getMessage(), e);
      }
      File base = CommandLines.workDir("bench/media");
      return new Options(s, cases(cases, ssdVolumes, controllerCap),
        out != null ? out : new File(base, "report-" + s.optionName()),
        workDir != null ? workDir : new File(base, "work"), ramDir, warmup);
    }
  }

  /** What the command line asks for; {@code ramDir} null: the cluster's default. */
  record Options(MediaScale scale, List<MediaCase> cases, File out, File workDir, File ramDir,
    boolean warmup) {
  }

  public static void main(String[] args) {
    CommandLines.runAndHalt(COMMAND, () -> run(args, System.out));
  }

  static int run(String[] args, PrintStream out) throws Exception {
    return BenchCommand.run(new Cli(), args, out, o -> {
      LocalClusterConfig config = new LocalClusterConfig().workDir(o.workDir());
      if (o.ramDir() != null) {
        config.ramDir(o.ramDir());
      }
      return run(config, o.scale(), o.cases(), o.out(), o.warmup(), out);
    });
  }

  /**
   * As {@link #run(LocalClusterConfig, MediaScale, List, File, boolean, PrintStream)}, without a
   * warm-up.
   */
  static int run(LocalClusterConfig config, MediaScale scale, List<MediaCase> cases, File outDir,
    PrintStream out) throws Exception {
    return run(config, scale, cases, outDir, false, out);
  }

  /**
   * The cases the options name: {@code --cases}, the SSD-count cases of {@code --ssd-volumes}
   * (under each {@code --controller-cap}, by default none and the study's), or all eleven.
   *
   * @throws IllegalArgumentException for a bad value or options that do not go together
   */
  static List<MediaCase> cases(String cases, String ssdVolumes, String controllerCap) {
    if (ssdVolumes != null) {
      if (cases != null) {
        throw new IllegalArgumentException("--ssd-volumes runs its own cases (50G_SSD on each "
          + "SSD count); drop --cases, or run the two separately");
      }
      List<Integer> volumes = SsdSetup.parseVolumes(ssdVolumes);
      List<Long> caps = SsdSetup.parseCaps(controllerCap != null ? controllerCap : "none,study");
      return MediaCases.ssdScaling(volumes, caps);
    }
    if (controllerCap != null) {
      throw new IllegalArgumentException("--controller-cap applies to the SSD-count cases: add "
        + "--ssd-volumes (e.g. 4,8); the other cases have one SSD volume per DataNode");
    }
    return cases != null ? MediaCases.parse(cases) : MediaCases.ALL;
  }

  /**
   * Runs the cases on a cluster made from {@code config} (work and RAM directories; the scale
   * sets the rest) and writes the report to {@code outDir}; 0 when every case ran. With
   * {@code warmup}, the first case runs once more before it, and that result is dropped.
   */
  static int run(LocalClusterConfig config, MediaScale scale, List<MediaCase> cases, File outDir,
    boolean warmup, PrintStream out) throws Exception {
    long started = System.nanoTime();
    // Decided as the run starts: the tree may change while it runs.
    String commit = RunLabels.launcherCommit();
    String date = LocalDate.now(ZoneOffset.UTC).toString();
    boolean emulated = false;
    config.dataNodes(DATANODES).ramBytesPerDataNode(scale.ramTierBytes())
      .blockSizeBytes(scale.blockBytes());
    commonHBaseKeys(config, scale);
    out.printf(Locale.ROOT, "[media] %d case(s) at scale %s: \"50G\" = %d MiB, \"1T\" = %d MiB "
      + "of records; RAM tier %d MiB per DataNode in %s; SSD +%d us/op %d MB/s, HDD +%.1f ms/op "
      + "%d MB/s (emulated); report in %s%n", cases.size(), scale.optionName(),
      scale.dataBytes(Dataset.FITS_RAM) >> 20, scale.dataBytes(Dataset.EXCEEDS_RAM) >> 20,
      scale.ramTierBytes() >> 20, config.ramDir(), Medium.SSD.perOperation().toNanos() / 1000,
      Medium.SSD.bytesPerSecond() / 1_000_000, Medium.HDD.perOperation().toNanos() / 1e6,
      Medium.HDD.bytesPerSecond() / 1_000_000, outDir);
    // The SSD volumes of a DataNode are fixed when HDFS starts: one HDFS per count, in turn.
    Map<Integer, List<MediaCase>> byVolumes = new LinkedHashMap<>();
    cases.forEach(c -> byVolumes.computeIfAbsent(c.ssd().volumes(), k -> new ArrayList<>())
      .add(c));
    List<CaseResult> results = new ArrayList<>();
    boolean ramBacked = true;
    for (Map.Entry<Integer, List<MediaCase>> group : byVolumes.entrySet()) {
      int ssdVolumes = group.getKey();
      long hdfsStarted = System.nanoTime();
      config.ssdVolumesPerDataNode(ssdVolumes);
      TieredDfsCluster dfs = TieredDfsCluster.start(config);
      boolean backed = RamDiskDirectory.prepare(config.ramDir(), 0).isRamBacked();
      if (!backed) {
        out.printf(Locale.ROOT, "[media] WARNING: %s is not tmpfs/ramfs: the RAM medium has "
          + "disk speed%n", config.ramDir());
      }
      ramBacked &= backed;
      out.printf(Locale.ROOT, "[media] HDFS up at %s in %.1f s: %d SSD volume(s) per "
        + "DataNode%n", dfs.uri(), (System.nanoTime() - hdfsStarted) / 1e9, ssdVolumes);
      try (MediaEmulation media = MediaEmulation.install(dfs.miniCluster())) {
        emulated |= media.slowsAny();
        int[] found = media.ssdVolumesPerDataNode();
        if (found[0] != ssdVolumes || found[1] != ssdVolumes) {
          throw new IllegalStateException(String.format(Locale.ROOT, "asked for %d SSD volumes "
            + "per DataNode, the DataNodes have %d to %d: the cluster's data dirs are not as "
            + "configured", ssdVolumes, found[0], found[1]));
        }
        for (MediaCase c : group.getValue()) {
          media.controllerCap(c.ssd().controllerBytesPerSecond());
          if (warmup && results.isEmpty()) {
            warmUp(c, dfs, media, settings(scale, cases, outDir, config, backed), out);
          }
          if (!c.ssd().equals(SsdSetup.ONE_VOLUME)) {
            out.printf(Locale.ROOT, "[%d/%d %s] SSDs: %s%s%n", results.size() + 1, cases.size(),
              c.name(), c.ssd().describe(), c.ssd().capped() ? (c.ssd().capBinds()
                ? String.format(Locale.ROOT, " (below the volumes' %,d MB/s together)",
                  ssdVolumes * Medium.SSD.bytesPerSecond() / 1_000_000)
                : " (at or above the volumes' own rates together: it cannot bind)") : "");
          }
          results.add(MediaCaseRun.run(results.size(), c, dfs, media,
            settings(scale, cases, outDir, config, backed), out));
        }
      } finally {
        dfs.close();
      }
    }
    Settings settings = settings(scale, cases, outDir, config, ramBacked);
    MediaReport report = new MediaReport(settings, results, new RunLabels(commit, date,
      RunLabels.clientTransport(config.hbaseOverrides()::get), RunLabels.inProcessIf(emulated)));
    List<File> pngs;
    try {
      pngs = report.write(outDir);
    } catch (IOException e) {
      System.err.println(COMMAND + ": " + e.getMessage());
      return 1;
    }
    out.println();
    out.print(summary(results, report));
    out.printf(Locale.ROOT, "%n[media] done in %.1f s. Report: %s%n",
      (System.nanoTime() - started) / 1e9, new File(outDir, MediaReport.MARKDOWN));
    out.println("[media] results: " + new File(outDir, MediaReport.JSON));
    for (File png : pngs) {
      out.println("[media] plot: " + png);
    }
    long failed = results.stream().filter(r -> !r.ok()).count();
    if (failed > 0) {
      System.err.printf(Locale.ROOT, "%s: %d case(s) failed (see the report)%n", COMMAND, failed);
      return 1;
    }
    return 0;
  }

  /**
   * Loads {@code c} once, under another name, and drops the result: the first load in a JVM
   * runs on code not yet compiled (its HBase takes about 20 s to start, later ones about 8 s on
   * two cores), which the first measured case would otherwise pay for.
   */
  private static void warmUp(MediaCase c, TieredDfsCluster dfs, MediaEmulation media,
    Settings s, PrintStream out) {
    MediaCase w = c.on(c.ssd(), "warmup-" + c.name(), c.study());
    CaseResult r = MediaCaseRun.run(-1, w, dfs, media, s, out);
    if (r.ok()) {
      out.printf(Locale.ROOT, "[media] warm-up done (%,.0f ops/s, not reported)%n",
        r.throughputOps());
    } else {
      out.printf(Locale.ROOT, "[media] WARNING: the warm-up load failed (%s); the cases run "
        + "anyway, the first of them unwarmed%n", r.error());
    }
  }

  private static Settings settings(MediaScale scale, List<MediaCase> cases, File outDir,
    LocalClusterConfig config, boolean ramBacked) {
    return new Settings(scale, cases, outDir, config.workDir(), DATANODES, config.ramDir(),
      ramBacked);
  }

  /** Keys every case shares: the data scaled down to this machine, as the paper tuned it. */
  static void commonHBaseKeys(LocalClusterConfig config, MediaScale scale) {
    config.hbase("hbase.hregion.memstore.flush.size", Long.toString(scale.flushBytes()));
    // A WAL reserves a whole block on its volume: keep it within a small RAM tier.
    config.hbase("hbase.regionserver.hlog.blocksize", Long.toString(scale.walBlockBytes()));
    // The table is pre-split, as in the paper; no region splits during the load.
    config.hbase("hbase.hregion.max.filesize", Long.toString(100L << 30));
    // The paper's Table 8 (the per-case compaction threads and flushers: MediaCase#studyTuning).
    MediaCase.studyHBaseTuning().forEach(config::hbase);
    MediaCase.studyDfsTuning().forEach(config::dfs);
    // The resource tables (the paper's Tables 9 to 11) and memstore over time (its Figure 15)
    // come from monitoring each load over the RegionServer's /jmx.
    BenchMonitor.hbaseKeys(MediaCaseRun.MONITOR_MS).forEach(config::hbase);
    // One RegionServer in this JVM: the master need not wait 4.5 s for more to check in.
    config.hbase("hbase.master.wait.on.regionservers.timeout", "500");
    config.hbase("hbase.master.wait.on.regionservers.interval", "100");
  }

  static String summary(List<CaseResult> results, MediaReport report) {
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT, "%-20s %12s %12s %12s %10s %10s %10s %8s%n", "case",
      "ops/s", "avg us", "p99 us", "RAM MiB", "SSD MiB", "HDD MiB", "load s"));
    for (CaseResult r : results) {
      if (!r.ok()) {
        sb.append(String.format(Locale.ROOT, "%-20s FAILED: %s%n", r.mediaCase().name(),
          r.error()));
        continue;
      }
      sb.append(String.format(Locale.ROOT, "%-20s %12.0f %12.0f %12.0f %10.0f %10.0f %10.0f "
        + "%8.1f%n", r.mediaCase().name(), r.throughputOps(), r.latencyUsAvg(), r.latencyUsP99(),
        MediaReport.written(r, Medium.RAM) / 1048576.0,
        MediaReport.written(r, Medium.SSD) / 1048576.0,
        MediaReport.written(r, Medium.HDD) / 1048576.0, r.loadSeconds()));
    }
    if (!report.scaling().comparisons().isEmpty()) {
      sb.append("\nSSD count (the study's Figures 4 and 5):\n")
        .append(report.scaling().summary());
    }
    if (!report.findings().isEmpty()) {
      sb.append("\nThe study's findings:\n");
      for (StudyFindings.Finding f : report.findings()) {
        sb.append(String.format(Locale.ROOT, "  [%s] %s (study: %s; here: %s)%n",
          f.verdict().text, f.claim(), f.study(), f.strata()));
      }
    }
    return sb.toString();
  }
}
