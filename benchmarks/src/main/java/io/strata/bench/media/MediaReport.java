package io.strata.bench.media;

import io.strata.bench.common.BenchJson;
import io.strata.bench.common.Charts;
import io.strata.bench.common.RunLabels;
import io.strata.hbase.tiering.TieringKeys;
import java.awt.Color;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hbase.HConstants;
import org.knowm.xchart.CategoryChart;

/**
 * The report directory of {@code strata bench media}: {@code results.json}, {@code report.md}
 * (one row per case, named as in the paper, figures relative to the all-HDD case of the same
 * dataset, data written per tier, the paper's findings checked) and PNG bar charts.
 *
 * <p>The storage-media paper: <i>Optimize Hadoop Cluster Performance with Various Storage Media</i>.
 */
final class MediaReport {
  static final String JSON = "results.json";
  static final String MARKDOWN = "report.md";
  static final String THROUGHPUT_PNG = "throughput.png";
  static final String LATENCY_PNG = "latency.png";
  static final String RELATIVE_PNG = "relative-to-hdd.png";
  static final String WRITTEN_PNG = "data-written.png";
  static final String SSD_SCALING_PNG = "ssd-scaling.png";

  private static final Color RAM_COLOR = new Color(214, 96, 77);
  private static final Color SSD_COLOR = new Color(67, 147, 195);
  private static final Color HDD_COLOR = new Color(110, 110, 110);
  private static final Color AVG_COLOR = new Color(33, 102, 172);
  private static final Color P99_COLOR = new Color(244, 165, 130);
  private static final Color THROUGHPUT_COLOR = new Color(27, 120, 55);

  private final MediaBench.Settings settings;
  private final List<CaseResult> results;
  private final List<StudyFindings.Finding> findings;
  private final SsdScaling scaling;
  /** What results.json is labelled with; null: no labels (a report of samples). */
  private final RunLabels labels;

  MediaReport(MediaBench.Settings settings, List<CaseResult> results) {
    this(settings, results, null);
  }

  MediaReport(MediaBench.Settings settings, List<CaseResult> results, RunLabels labels) {
    this.labels = labels;
    this.settings = settings;
    this.results = results;
    this.findings = new StudyFindings(results).check();
    this.scaling = new SsdScaling(results);
  }

  SsdScaling scaling() {
    return scaling;
  }

  List<StudyFindings.Finding> findings() {
    return findings;
  }

  /** Writes every file; returns the PNGs written (none if this JVM cannot draw text). */
  List<File> write(File dir) throws IOException {
    Files.createDirectories(dir.toPath());
    BenchJson.write(new File(dir, JSON), result());
    List<File> pngs = new ArrayList<>();
    String plotProblem = null;
    try {
      pngs = plots(dir);
    } catch (IOException | RuntimeException | Error e) {
      // Headless AWT without fonts fails here; the figures are in the table and JSON anyway.
      plotProblem = e.toString();
    }
    Files.writeString(new File(dir, MARKDOWN).toPath(), markdown(pngs, plotProblem),
      StandardCharsets.UTF_8);
    if (plotProblem != null) {
      throw new IOException("plots not drawn (" + plotProblem + "); install a font package "
        + "such as fonts-dejavu-core. results.json and report.md are in " + dir);
    }
    return pngs;
  }

  /** The all-HDD case of the same dataset, when it ran. */
  private Optional<CaseResult> baseline(CaseResult r) {
    String name = MediaCases.hddBaseline(r.mediaCase().dataset()).name();
    return results.stream().filter(x -> x.ok() && x.mediaCase().name().equals(name)).findFirst();
  }

  private double relThroughput(CaseResult r) {
    return baseline(r).map(b -> r.throughputOps() / b.throughputOps()).orElse(Double.NaN);
  }

  private double relLatencyAvg(CaseResult r) {
    return baseline(r).map(b -> r.latencyUsAvg() / b.latencyUsAvg()).orElse(Double.NaN);
  }

  private double relLatencyP99(CaseResult r) {
    return baseline(r).map(b -> r.latencyUsP99() / b.latencyUsP99()).orElse(Double.NaN);
  }

  /** Bytes written to the volumes standing for a medium (DISK and ARCHIVE are both HDD). */
  static long written(CaseResult r, Medium m) {
    long sum = 0;
    for (Map.Entry<StorageType, Long> e : r.bytesWritten().entrySet()) {
      if (Medium.of(e.getKey()) == m) {
        sum += e.getValue();
      }
    }
    return sum;
  }

  /** {@code `a=1`, `b=2`}: keys as the report lists them. */
  private static String keyList(Map<String, String> keys) {
    return keys.entrySet().stream().map(e -> "`" + e.getKey() + "=" + e.getValue() + "`")
      .collect(Collectors.joining(", "));
  }

  /** The run as its Result record, results.json's content. */
  MediaResult result() {
    MediaScale scale = settings.scale();
    Map<String, MediaResult.DatasetSize> datasets = new LinkedHashMap<>();
    for (Dataset d : Dataset.values()) {
      datasets.put(d.studyName(), new MediaResult.DatasetSize(scale.dataBytes(d),
        scale.records(d), scale.regions(d)));
    }
    Map<String, MediaResult.Emulated> media = new LinkedHashMap<>();
    for (Medium m : Medium.values()) {
      media.put(m.name(), new MediaResult.Emulated(m.policy(), m.emulated(),
        m.perOperation().toNanos() / 1000.0, m.bytesPerSecond()));
    }
    MediaResult.Recorded recorded = new MediaResult.Recorded(scale.optionName(),
      settings.dataNodes(), 3, scale.ramTierBytes(), settings.ramDir().getPath(),
      settings.ramBacked(), MediaScale.RECORD_BYTES, scale.threads(), scale.writeBufferBytes(),
      scale.flushBytes(), scale.compactionThresholdBytes(), scale.blockBytes(),
      scale.walBlockBytes(), scale.loadSeconds(), datasets, media,
      new MediaResult.Tuning(MediaCase.studyHBaseTuning(), MediaCase.studyDfsTuning()),
      "DataNode FileIoProvider hook: WRITE and NATIVE_COPY bytes per volume during the load, "
        + "all DataNodes and replicas");
    Map<String, MediaResult.Case> cases = new LinkedHashMap<>();
    for (CaseResult r : results) {
      MediaCase c = r.mediaCase();
      Map<String, String> placement = c.hbaseKeys(scale.compactionThresholdBytes());
      Long cap = MediaResult.cap(c.ssd().capped() ? c.ssd().controllerBytesPerSecond() : 0);
      if (!r.ok()) {
        cases.put(c.name(), new MediaResult.Case(c.dataset().studyName(), c.study(),
          c.ssd().volumes(), cap, placement, c.studyTuning(), false, r.error(), null, null, null,
          null, null, null, null, null, null, null, null, r.caseSeconds(), null, null, null));
        continue;
      }
      Map<String, Long> written = new LinkedHashMap<>();
      r.bytesWritten().forEach((t, b) -> written.put(t.name(), b));
      cases.put(c.name(), new MediaResult.Case(c.dataset().studyName(), c.study(),
        c.ssd().volumes(), cap, placement, c.studyTuning(), true, null, r.records(),
        r.recordsTarget(), r.truncated(), r.throughputOps(), r.latencyUsAvg(), r.latencyUsP99(),
        MediaResult.ratio(relThroughput(r)), MediaResult.ratio(relLatencyAvg(r)),
        MediaResult.ratio(relLatencyP99(r)), r.insertsFailed(), r.loadSeconds(), r.caseSeconds(),
        written, r.placement(), MediaResult.resources(r.resources())));
    }
    List<MediaResult.Finding> found = new ArrayList<>();
    for (StudyFindings.Finding x : findings) {
      found.add(new MediaResult.Finding(x.claim(), x.study(), x.strata(), x.verdict().text));
    }
    return MediaResult.of(labels, recorded, cases, scaling.ran() ? scalingResult() : null,
      found);
  }

  /** The SSD-count cases side by side, their ratios, and the paper's. */
  private MediaResult.Scaling scalingResult() {
    List<MediaResult.ScalingCase> rows = new ArrayList<>();
    for (CaseResult r : scaling.cases()) {
      SsdSetup ssd = r.mediaCase().ssd();
      Long cap = MediaResult.cap(ssd.capped() ? ssd.controllerBytesPerSecond() : 0);
      rows.add(r.ok()
        ? new MediaResult.ScalingCase(r.mediaCase().name(), ssd.volumes(), cap, ssd.capBinds(),
          true, null, r.throughputOps(), r.latencyUsAvg(), r.latencyUsP99(), r.records(),
          r.truncated(), SsdScaling.ssdBytesPerSecondPerDataNode(r, settings.dataNodes()))
        : new MediaResult.ScalingCase(r.mediaCase().name(), ssd.volumes(), cap, ssd.capBinds(),
          false, r.error(), null, null, null, null, null, null));
    }
    List<MediaResult.Comparison> comparisons = new ArrayList<>();
    for (SsdScaling.Comparison c : scaling.comparisons()) {
      comparisons.add(new MediaResult.Comparison(c.more().mediaCase().name(),
        c.fewer().mediaCase().name(), MediaResult.cap(c.controllerBytesPerSecond()),
        c.throughputRatio(), c.latencyAvgRatio(), c.latencyP99Ratio(), c.littleGain()));
    }
    List<Long> caps = new ArrayList<>();
    scaling.caps().forEach(c -> caps.add(MediaResult.cap(c)));
    return new MediaResult.Scaling("the study's 50G single-storage SSD case on different numbers "
      + "of SSD volumes per DataNode (its Figures 4 and 5), without and with a controller cap "
      + "shared by a DataNode's SSD volumes", scaling.volumeCounts(), caps,
      Medium.SSD.bytesPerSecond(), SsdSetup.STUDY_CONTROLLER_BYTES_PER_SECOND, rows, comparisons,
      new MediaResult.ScalingStudy("50G_8SSD against 50G_4SSD, on the study's hardware (two "
        + "SATA controllers, 1536 MB/s per node in all)", SsdScaling.STUDY_THROUGHPUT_8_VS_4,
        SsdScaling.STUDY_LATENCY_8_VS_4, null, null, SsdScaling.STUDY_SOURCE, "8 SSDs per node "
        + "barely above 4 in throughput and somewhat lower in latency: far from the doubling "
        + "twice the SSDs could give, because the SATA controllers, not the SSDs, limited the "
        + "disk bandwidth"));
  }

  /** The report's section on the SSD-count cases; empty when none ran. */
  String scalingMarkdown() {
    if (!scaling.ran()) {
      return "";
    }
    StringBuilder sb = new StringBuilder("## SSD count: 4 vs 8 SSDs per DataNode (the study's "
      + "Figures 4 and 5)\n\n");
    sb.append(String.format(Locale.ROOT, "50G_SSD on %s SSD volumes per DataNode, each %d MB/s "
      + "and +%d µs per operation; \"cap\" = one bandwidth shared by all SSD volumes of a "
      + "DataNode, as the study's two SATA controllers (1536 MB/s per node, about %.1f SSDs' "
      + "worth) were. The cap is not scaled: neither are the per-volume rates (the bench "
      + "shrinks data, not rates), and each DataNode here stands for one of the study's "
      + "nodes.%n%n", scaling.volumeCounts().stream().map(String::valueOf)
        .reduce((a, b) -> a + " and " + b).orElse(""), Medium.SSD.bytesPerSecond() / 1_000_000,
      Medium.SSD.perOperation().toNanos() / 1000,
      SsdSetup.STUDY_CONTROLLER_BYTES_PER_SECOND / (double) Medium.SSD.bytesPerSecond()));
    sb.append("| case | SSD volumes per DataNode | controller cap | throughput ops/s | avg "
      + "latency µs | p99 latency µs | SSD written per DataNode MB/s | records loaded |\n");
    sb.append("|---|---:|---|---:|---:|---:|---:|---:|\n");
    for (CaseResult r : scaling.cases()) {
      SsdSetup ssd = r.mediaCase().ssd();
      String cap = ssd.capped() ? String.format(Locale.ROOT, "%,d MB/s%s",
        ssd.controllerMegabytesPerSecond(), ssd.capBinds() ? "" : " (cannot bind)") : "none";
      if (!r.ok()) {
        sb.append(String.format(Locale.ROOT, "| %s | %d | %s | failed: %s | | | | |%n",
          r.mediaCase().name(), ssd.volumes(), cap,
          r.error().replace('|', '/').replace('\n', ' ')));
        continue;
      }
      sb.append(String.format(Locale.ROOT, "| %s | %d | %s | %,.0f | %,.0f | %,.0f | %.1f | "
        + "%,d%s |%n", r.mediaCase().name(), ssd.volumes(), cap, r.throughputOps(),
        r.latencyUsAvg(), r.latencyUsP99(),
        SsdScaling.ssdBytesPerSecondPerDataNode(r, settings.dataNodes()) / 1e6, r.records(),
        r.truncated() ? String.format(Locale.ROOT, " of %,d *", r.recordsTarget()) : ""));
    }
    sb.append("\n| comparison | controller cap | throughput | avg latency | p99 latency | "
      + "little gain (throughput within +" + Math.round(100 * SsdScaling.LITTLE_GAIN)
      + " %) |\n|---|---|---:|---:|---:|---|\n");
    for (SsdScaling.Comparison c : scaling.comparisons()) {
      sb.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s |%n", c.label(),
        c.controllerBytesPerSecond() == 0 ? "none" : String.format(Locale.ROOT, "%,d MB/s",
          c.controllerBytesPerSecond() / 1_000_000), pct(c.throughputRatio()),
        pct(c.latencyAvgRatio()), pct(c.latencyP99Ratio()), c.littleGain() ? "yes" : "no"));
    }
    sb.append(String.format(Locale.ROOT, "| study: 50G_8SSD vs 50G_4SSD | 1,536 MB/s (its "
      + "hardware) | %s | %s (latency) | n/a | yes |%n%n", pct(SsdScaling.STUDY_THROUGHPUT_8_VS_4),
      pct(SsdScaling.STUDY_LATENCY_8_VS_4)));
    sb.append("The study's row is ").append(SsdScaling.STUDY_SOURCE)
      .append(". Its Figures 4 and 5 show 8 SSDs per node barely above 4 in throughput and "
        + "somewhat lower in latency: far from what twice the SSDs could give, because the "
        + "controllers, not the SSDs, limited the disk bandwidth. \"SSD written per DataNode\" "
        + "is what a DataNode's SSD volumes took in on average over the load (all replicas). "
        + "* = the load stopped at the time limit.\n\n");
    double share = scaling.largestCapShare(settings.dataNodes());
    if (!Double.isNaN(share)) {
      sb.append(String.format(Locale.ROOT, "Could the cap bind? The capped cases' SSD writes "
        + "took at most %.2f %% of their controller cap per DataNode on average over the load%s"
        + "%n%n", 100 * share, share < 0.5 ? ": the cap cannot have limited them, and a "
          + "difference between a capped case and its uncapped twin is not the cap's doing."
          : ": the cap may have limited them."));
    }
    return sb.toString();
  }

  /**
   * The study's Tables 9 to 11 (disk, network, CPU) and its Figure 15 (memstore), per case over
   * its load, from the monitoring timeline and the DataNodes' bytes per medium. From the
   * cases' own measurements: results.json rounds the means to 1/1000, and a figure rounded twice
   * may show one digit off.
   */
  static String resourceTable(List<CaseResult> results) {
    StringBuilder sb = new StringBuilder("## Resources during the load (the study's Tables 9 to "
      + "11, Figure 15)\n\n");
    sb.append("| case | written RAM MB/s | written SSD MB/s | written HDD MB/s | machine disk "
      + "write MB/s | loopback MB/s | CPU user % | CPU system % | iowait % | memstore MiB mean "
      + "/ max | flush queue | compaction queue | GC ms in all | updates blocked ms |\n");
    sb.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (CaseResult r : results) {
      if (!r.ok() || r.resources().isEmpty()) {
        continue;
      }
      Map<String, Double> m = r.resources();
      double s = r.loadSeconds();
      sb.append(String.format(Locale.ROOT, "| %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.0f | %.0f "
        + "| %.1f | %.1f / %.1f | %.1f | %.1f | %.0f | %.0f |%n", r.mediaCase().name(),
        written(r, Medium.RAM) / 1e6 / s, written(r, Medium.SSD) / 1e6 / s,
        written(r, Medium.HDD) / 1e6 / s, v(m, "disk_write_mb_s"), v(m, "loopback_mb_s"),
        v(m, "cpu_user_pct"), v(m, "cpu_system_pct"), v(m, "cpu_iowait_pct"),
        v(m, "memstore_mb"), v(m, "memstore_mb_max"), v(m, "flush_queue"),
        v(m, "compaction_queue"), v(m, "gc_ms_total"),
        v(m, "updates_blocked_ms") * s / (MediaCaseRun.MONITOR_MS / 1000.0)));
    }
    sb.append("\nMeans over each case's load, sampled every ").append(MediaCaseRun.MONITOR_MS)
      .append(" ms: the media's MB/s are the bytes the DataNodes wrote to them (all replicas) "
        + "over the load time; the machine's disk, loopback traffic (the one-JVM cluster's "
        + "RPC and DataNode pipelines: the study's network columns) and CPU shares from /proc, "
        + "for the whole machine; memstore, queues, GC and blocked updates from the "
        + "RegionServer's /jmx. Each case's timeline is plotted in cases/<case>/monitor.png "
        + "(its memstore panel is the study's Figure 15).\n\n");
    return sb.toString();
  }

  /** Bytes a case of the record wrote to the volumes standing for a medium. */
  static long written(MediaResult.Case r, Medium m) {
    long sum = 0;
    for (Map.Entry<String, Long> e : r.bytesWritten().entrySet()) {
      if (Medium.of(StorageType.valueOf(e.getKey())) == m) {
        sum += e.getValue();
      }
    }
    return sum;
  }

  /**
   * The report's table of the cases and the note under it, from the run's record: per case its
   * media (from its placement keys), load figures, ratios to the all-HDD case, bytes written per
   * medium; a failed case its error.
   */
  static String caseTable(MediaResult result) {
    StringBuilder sb = new StringBuilder();
    sb.append("| case | WAL | flushed | compacted small / large | archived | throughput ops/s | vs HDD "
      + "| avg latency µs | vs HDD | p99 latency µs | vs HDD | written RAM | written SSD | "
      + "written HDD | records loaded | load s |\n");
    sb.append("|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    long failed = 0;
    for (Map.Entry<String, MediaResult.Case> e : result.cases().entrySet()) {
      MediaResult.Case r = e.getValue();
      Map<String, String> k = r.placementKeys();
      sb.append(String.format(Locale.ROOT, "| %s | %s | %s | %s / %s | %s |", e.getKey(),
        MediaResult.medium(k.get(HConstants.WAL_STORAGE_POLICY)),
        MediaResult.medium(k.get(TieringKeys.FLUSH_POLICY)),
        MediaResult.medium(k.get(TieringKeys.COMPACTION_SMALL_POLICY)),
        MediaResult.medium(k.get(TieringKeys.COMPACTION_LARGE_POLICY)),
        MediaResult.medium(k.get(TieringKeys.ARCHIVE_POLICY))));
      if (!r.ok()) {
        sb.append(" failed: ").append(r.error().replace('|', '/').replace('\n', ' '))
          .append(" | | | | | | | | | | |\n");
        continue;
      }
      failed += r.insertsFailed();
      sb.append(String.format(Locale.ROOT, " %,.0f | %s | %,.0f | %s | %,.0f | %s | %s | %s | %s "
        + "| %,d%s | %.1f |%n", r.throughputOps(), pct(r.throughputVsHdd()), r.latencyUsAvg(),
        pct(r.latencyAvgVsHdd()), r.latencyUsP99(), pct(r.latencyP99VsHdd()),
        mib(written(r, Medium.RAM)), mib(written(r, Medium.SSD)), mib(written(r, Medium.HDD)),
        r.records(), Boolean.TRUE.equals(r.loadStoppedAtTimeLimit())
          ? String.format(Locale.ROOT, " of %,d *", r.recordsTarget()) : "", r.loadSeconds()));
    }
    sb.append("\nWritten = bytes the DataNodes wrote to the volumes of each medium during the load "
      + "(block and checksum data, all three replicas, block moves included; HDD = DISK + "
      + "ARCHIVE volumes), the study's Figure 14. * = the load stopped at the scale's time limit ("
      + result.settings().loadSecondsLimit() + " s) before the whole dataset was in: its "
      + "throughput and latency are over that time. Failed inserts: ");
    sb.append(failed).append(".\n\n");
    return sb.toString();
  }

  /** A ratio of the record: "n/a" when JSON null (no all-HDD case to compare with). */
  private static String pct(com.fasterxml.jackson.databind.JsonNode ratio) {
    return ratio == null || !ratio.isNumber() ? "n/a" : pct(ratio.asDouble());
  }

  private static double v(Map<String, Double> m, String k) {
    Double x = m.get(k);
    return x == null ? Double.NaN : x;
  }

  String markdown(List<File> pngs, String plotProblem) {
    MediaScale scale = settings.scale();
    StringBuilder sb = new StringBuilder();
    sb.append("# The storage-media study on Strata (scale ").append(scale.optionName())
      .append(")\n\n");
    sb.append(String.format(Locale.ROOT, "YCSB load (study's record: 5 fields x 200 B), %d "
      + "client threads with a %d KiB client-side write buffer each, against one RegionServer on "
      + "%d DataNodes (replication 3) in one JVM. RAM tier: %d MiB per DataNode in %s%s. "
      + "Datasets: \"50G\" = %d MiB (%,d records, %d regions), \"1T\" = %d MiB (%,d records, %d "
      + "regions). Memstore flush %d MiB, small/large compaction threshold %d MiB (the study's "
      + "1.5 GB), HDFS blocks %d MiB (WALs %d MiB).%n%n", scale.threads(), scale.writeBufferBytes() >> 10,
      settings.dataNodes(), scale.ramTierBytes() >> 20, settings.ramDir(),
      settings.ramBacked() ? " (tmpfs)" : " (NOT RAM-backed)",
      scale.dataBytes(Dataset.FITS_RAM) >> 20, scale.records(Dataset.FITS_RAM),
      scale.regions(Dataset.FITS_RAM), scale.dataBytes(Dataset.EXCEEDS_RAM) >> 20,
      scale.records(Dataset.EXCEEDS_RAM), scale.regions(Dataset.EXCEEDS_RAM),
      scale.flushBytes() >> 20, scale.compactionThresholdBytes() >> 20, scale.blockBytes() >> 20,
      scale.walBlockBytes() >> 20));
    sb.append("Media are **emulated** (see the end): SSD = +80 µs per DataNode I/O operation and "
      + "446 MB/s per volume, HDD = +6.7 ms and 127 MB/s (the study's Table 13), RAM = tmpfs at "
      + "this machine's speed. \"vs HDD\" is relative to the all-HDD case of the same dataset "
      + "(50G_HDD or 1T_HDD).\n\n");

    // The cases and their resources from the run's record, as results.json holds them.
    MediaResult result = result();
    sb.append(caseTable(result));

    sb.append(scalingMarkdown());
    sb.append(resourceTable(results));

    if (plotProblem != null) {
      sb.append("Plots not drawn: ").append(plotProblem).append("\n\n");
    }
    for (File png : pngs) {
      sb.append("![").append(png.getName()).append("](").append(png.getName()).append(")\n\n");
    }

    if (!findings.isEmpty()) {
      sb.append("## The study's findings, checked\n\n");
      sb.append("| study's finding | study | Strata here | ordering |\n|---|---|---|---|\n");
      for (StudyFindings.Finding f : findings) {
        sb.append("| ").append(f.claim()).append(" | ").append(f.study()).append(" | ")
          .append(f.strata()).append(" | ").append(f.verdict().text).append(" |\n");
      }
      sb.append("\n");
    }
    sb.append("## Case mapping (Table 1 to Strata's placement keys)\n\n");
    sb.append("| case | study's Table 1 | `hbase.wal.storage.policy` | `strata.oldwal.storage.policy` "
      + "| `strata.flush.storage.policy` | `strata.compaction.storage.policy.small` / `.large` | "
      + "`strata.archive.storage.policy` |\n|---|---|---|---|---|---|---|\n");
    for (CaseResult r : results) {
      MediaCase c = r.mediaCase();
      sb.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s / %s | %s |%n",
        c.name(), c.study(), c.wal().policy(), c.oldWal().policy(), c.flushed().policy(),
        c.compactedSmall().policy(), c.compactedLarge().policy(), c.archived().policy()));
    }
    sb.append("\n## What is emulated, and what is not\n\n");
    sb.append("- One machine, one JVM: NameNode, 3 DataNodes, HBase master and one RegionServer "
      + "share its cores; YCSB runs in a JVM of its own. The study had 3 DataNode/RegionServer "
      + "hosts with 8 disks each and 200 client threads.\n");
    sb.append(scaling.ran() ? "- Each DataNode has one volume per tier, the SSD tier as many "
      + "as the case names (a directory each, all on this machine's one disk). SSD and HDD volumes"
      : "- Each DataNode has one volume per tier. SSD and HDD volumes are directories on "
      + "this machine's disk, slowed through the DataNode's FileIoProvider fault-injection hook: "
      + "every I/O operation (write, flush, sync, open, rename, delete, read) waits the medium's "
      + "access latency, concurrent operations overlapping as on a device with a queue, and "
      + "read/write bytes are booked on the volume's bandwidth timeline (delays are slept, their "
      + "last 200 µs spun, but on a busy machine a delay still ends late). There is no seek model "
      + "beyond that per-operation latency, no page cache in front of the emulated device (the "
      + "study's note: its SSD/HDD figures profit from the OS cache), and "
      + (scaling.ran() ? "a SATA controller limit only in the _cap cases (a bandwidth timeline "
        + "all SSD volumes of a DataNode book their bytes on too; a transfer ends when both its "
        + "volume's and the controller's timeline have passed it).\n"
        : "no SATA controller limit (the study's 1.5 GB/s for 8 disks).\n"));
    sb.append("- The RAM tier is HDFS's NVDIMM type on tmpfs, not slowed; the underlying disk adds "
      + "its own (page-cached) cost to SSD and HDD volumes.\n");
    sb.append("- Every case runs the study's tuning (its Table 8): ")
      .append(keyList(MediaCase.studyHBaseTuning())).append(", ")
      .append(keyList(MediaCase.studyDfsTuning()))
      .append("; per case, as the study chose them, 8 small-compaction threads and 15 flushers "
        + "when SSD holds any of its data, 3 and 5 otherwise (`tuning` per case in "
        + JSON + ").\n");
    return sb.toString();
  }

  private static String pct(double ratio) {
    return Double.isNaN(ratio) ? "n/a" : String.format(Locale.ROOT, "%.0f %%", 100 * ratio);
  }

  static String mib(long bytes) {
    return String.format(Locale.ROOT, "%,.0f MiB", bytes / (double) (1 << 20));
  }

  /**
   * Each larger SSD count relative to the fewest under the same cap, with the study's 8 vs 4
   * beside them.
   */
  CategoryChart scalingChart() {
    List<String> names = new ArrayList<>();
    List<Double> thr = new ArrayList<>();
    List<Double> avg = new ArrayList<>();
    List<Double> p99 = new ArrayList<>();
    for (SsdScaling.Comparison c : scaling.comparisons()) {
      names.add(c.chartLabel());
      thr.add(100 * c.throughputRatio());
      avg.add(100 * c.latencyAvgRatio());
      p99.add(100 * c.latencyP99Ratio());
    }
    names.add("study: 8 vs 4 SSD");
    thr.add(100 * SsdScaling.STUDY_THROUGHPUT_8_VS_4);
    avg.add(100 * SsdScaling.STUDY_LATENCY_8_VS_4);
    // The study's text gives one latency figure, no percentile.
    p99.add(Double.NaN);
    CategoryChart c = Charts.bars("More SSDs per DataNode, relative to the fewest under the same "
      + "controller cap (study's Figs. 4, 5)", "% of the fewer-SSD case", names, List.of(
        new Charts.BarSeries("throughput", THROUGHPUT_COLOR, array(thr)),
        new Charts.BarSeries("average latency", AVG_COLOR, array(avg)),
        new Charts.BarSeries("p99 latency", P99_COLOR, array(p99))), false,
      v -> String.format(Locale.ROOT, "%.0f %%", v));
    Charts.reference(c, 100, "fewer SSDs = 100 %");
    return c;
  }

  private static double[] array(List<Double> values) {
    return values.stream().mapToDouble(Double::doubleValue).toArray();
  }

  List<File> plots(File dir) throws IOException {
    List<CaseResult> ok = results.stream().filter(CaseResult::ok).toList();
    List<String> names = ok.stream().map(r -> r.mediaCase().name()).toList();
    List<File> files = new ArrayList<>();
    if (ok.isEmpty()) {
      return files;
    }
    double[] thr = ok.stream().mapToDouble(CaseResult::throughputOps).toArray();
    File f = new File(dir, THROUGHPUT_PNG);
    Charts.write(Charts.bars("YCSB load throughput per case", "operations/s", names,
      List.of(new Charts.BarSeries("throughput (ops/s)", THROUGHPUT_COLOR, thr)), false,
      v -> String.format(Locale.ROOT, "%,.0f", v)), f);
    files.add(f);

    f = new File(dir, LATENCY_PNG);
    Charts.write(Charts.bars("YCSB insert latency per case", "microseconds", names, List.of(
      new Charts.BarSeries("average", AVG_COLOR,
        ok.stream().mapToDouble(CaseResult::latencyUsAvg).toArray()),
      new Charts.BarSeries("99th percentile", P99_COLOR,
        ok.stream().mapToDouble(CaseResult::latencyUsP99).toArray())), false,
      v -> String.format(Locale.ROOT, "%,.0f", v)), f);
    files.add(f);

    f = new File(dir, RELATIVE_PNG);
    // Nothing to draw without an all-HDD case of the same dataset (e.g. the SSD-count cases).
    boolean baselines = ok.stream().anyMatch(r -> !Double.isNaN(relThroughput(r)));
    if (baselines) {
      CategoryChart c = Charts.bars("Relative to the all-HDD case of the same dataset (50G_HDD / 1T_HDD)",
        "% of the HDD case", names, List.of(
          new Charts.BarSeries("throughput", THROUGHPUT_COLOR,
            ok.stream().mapToDouble(r -> 100 * relThroughput(r)).toArray()),
          new Charts.BarSeries("average latency", AVG_COLOR,
            ok.stream().mapToDouble(r -> 100 * relLatencyAvg(r)).toArray()),
          new Charts.BarSeries("p99 latency", P99_COLOR,
            ok.stream().mapToDouble(r -> 100 * relLatencyP99(r)).toArray())), false,
        v -> String.format(Locale.ROOT, "%.0f %%", v));
      Charts.reference(c, 100, "HDD = 100 %");
      Charts.write(c, f);
      files.add(f);
    }

    if (!scaling.comparisons().isEmpty()) {
      f = new File(dir, SSD_SCALING_PNG);
      Charts.write(scalingChart(), f);
      files.add(f);
    }

    f = new File(dir, WRITTEN_PNG);
    Charts.write(Charts.bars("Data written per tier during the load, all DataNodes (study's Figure 14)",
      "MiB", names, List.of(
        new Charts.BarSeries("RAM (NVDIMM)", RAM_COLOR,
          ok.stream().mapToDouble(r -> written(r, Medium.RAM) / 1048576.0).toArray()),
        new Charts.BarSeries("SSD", SSD_COLOR,
          ok.stream().mapToDouble(r -> written(r, Medium.SSD) / 1048576.0).toArray()),
        new Charts.BarSeries("HDD (DISK, ARCHIVE)", HDD_COLOR,
          ok.stream().mapToDouble(r -> written(r, Medium.HDD) / 1048576.0).toArray())), true,
      v -> String.format(Locale.ROOT, "%,.0f MiB", v)), f);
    files.add(f);
    return files;
  }
}
