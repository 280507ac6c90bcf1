package io.strata.bench.media;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.strata.cli.JsonReports;
import java.awt.Color;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.fs.StorageType;

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

  private static final Color RAM_COLOR = new Color(214, 96, 77);
  private static final Color SSD_COLOR = new Color(67, 147, 195);
  private static final Color HDD_COLOR = new Color(110, 110, 110);
  private static final Color AVG_COLOR = new Color(33, 102, 172);
  private static final Color P99_COLOR = new Color(244, 165, 130);
  private static final Color THROUGHPUT_COLOR = new Color(27, 120, 55);

  private final MediaBench.Settings settings;
  private final List<CaseResult> results;
  private final List<StudyFindings.Finding> findings;

  MediaReport(MediaBench.Settings settings, List<CaseResult> results) {
    this.settings = settings;
    this.results = results;
    this.findings = new StudyFindings(results).check();
  }

  List<StudyFindings.Finding> findings() {
    return findings;
  }

  /** Writes every file; returns the PNGs written (none if this JVM cannot draw text). */
  List<File> write(File dir) throws IOException {
    Files.createDirectories(dir.toPath());
    JsonReports.write(new File(dir, JSON), json());
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

  ObjectNode json() {
    ObjectMapper mapper = new ObjectMapper();
    ObjectNode doc = mapper.createObjectNode();
    ObjectNode s = doc.putObject("settings");
    MediaScale scale = settings.scale();
    s.put("scale", scale.optionName());
    s.put("datanodes", settings.dataNodes());
    s.put("replication", 3);
    s.put("ram_tier_bytes_per_datanode", scale.ramTierBytes());
    s.put("ram_tier_dir", settings.ramDir().getPath());
    s.put("ram_tier_ram_backed", settings.ramBacked());
    s.put("record_bytes", MediaScale.RECORD_BYTES);
    s.put("ycsb_threads", scale.threads());
    s.put("ycsb_client_buffer_bytes", scale.writeBufferBytes());
    s.put("memstore_flush_bytes", scale.flushBytes());
    s.put("compaction_threshold_bytes", scale.compactionThresholdBytes());
    s.put("hdfs_block_bytes", scale.blockBytes());
    s.put("wal_block_bytes", scale.walBlockBytes());
    s.put("load_seconds_limit", scale.loadSeconds());
    ObjectNode datasets = s.putObject("datasets");
    for (Dataset d : Dataset.values()) {
      ObjectNode n = datasets.putObject(d.studyName());
      n.put("bytes", scale.dataBytes(d));
      n.put("records", scale.records(d));
      n.put("regions", scale.regions(d));
    }
    ObjectNode media = s.putObject("media");
    for (Medium m : Medium.values()) {
      ObjectNode n = media.putObject(m.name());
      n.put("policy", m.policy());
      n.put("emulated", m.emulated());
      n.put("delay_us_per_operation", m.perOperation().toNanos() / 1000.0);
      n.put("bandwidth_bytes_per_s", m.bytesPerSecond());
    }
    s.put("bytes_written_source", "DataNode FileIoProvider hook: WRITE and NATIVE_COPY bytes per "
      + "volume during the load, all DataNodes and replicas");

    ObjectNode cases = doc.putObject("cases");
    for (CaseResult r : results) {
      MediaCase c = r.mediaCase();
      ObjectNode n = cases.putObject(c.name());
      n.put("dataset", c.dataset().studyName());
      n.put("study", c.study());
      ObjectNode placement = n.putObject("placement_keys");
      c.hbaseKeys(scale.compactionThresholdBytes()).forEach(placement::put);
      n.put("ok", r.ok());
      if (!r.ok()) {
        n.put("error", r.error());
        n.put("case_seconds", r.caseSeconds());
        continue;
      }
      n.put("records", r.records());
      n.put("records_target", r.recordsTarget());
      n.put("load_stopped_at_time_limit", r.truncated());
      n.put("throughput_ops", r.throughputOps());
      n.put("latency_us_avg", r.latencyUsAvg());
      n.put("latency_us_p99", r.latencyUsP99());
      putRatio(n, "throughput_vs_hdd", relThroughput(r));
      putRatio(n, "latency_avg_vs_hdd", relLatencyAvg(r));
      putRatio(n, "latency_p99_vs_hdd", relLatencyP99(r));
      n.put("inserts_failed", r.insertsFailed());
      n.put("load_seconds", r.loadSeconds());
      n.put("case_seconds", r.caseSeconds());
      ObjectNode written = n.putObject("bytes_written_per_storage_type");
      r.bytesWritten().forEach((t, b) -> written.put(t.name(), b));
      if (r.placement() != null) {
        n.set("placement_at_end", r.placement());
      }
      ObjectNode res = n.putObject("resources");
      r.resources().forEach((k, v) -> {
        if (Double.isNaN(v)) {
          res.putNull(k);
        } else {
          res.put(k, Math.round(v * 1000) / 1000.0);
        }
      });
    }
    ArrayNode f = doc.putArray("findings");
    for (StudyFindings.Finding x : findings) {
      ObjectNode n = f.addObject();
      n.put("claim", x.claim());
      n.put("study", x.study());
      n.put("strata", x.strata());
      n.put("verdict", x.verdict().text);
    }
    return doc;
  }

  /**
   * The study's Tables 9 to 11 (disk, network, CPU) and its Figure 15 (memstore), per case over
   * its load, from the monitoring timeline and the DataNodes' bytes per medium.
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
        v(m, "updates_blocked_ms") * s / (MediaBench.MONITOR_MS / 1000.0)));
    }
    sb.append("\nMeans over each case's load, sampled every ").append(MediaBench.MONITOR_MS)
      .append(" ms: the media's MB/s are the bytes the DataNodes wrote to them (all replicas) "
        + "over the load time; the machine's disk, loopback traffic (the one-JVM cluster's "
        + "RPC and DataNode pipelines: the study's network columns) and CPU shares from /proc, "
        + "for the whole machine; memstore, queues, GC and blocked updates from the "
        + "RegionServer's /jmx. Each case's timeline is plotted in cases/<case>/monitor.png "
        + "(its memstore panel is the study's Figure 15).\n\n");
    return sb.toString();
  }

  private static double v(Map<String, Double> m, String k) {
    Double x = m.get(k);
    return x == null ? Double.NaN : x;
  }

  private static void putRatio(ObjectNode n, String key, double v) {
    if (Double.isNaN(v)) {
      n.putNull(key);
    } else {
      n.put(key, v);
    }
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

    sb.append("| case | WAL | flushed | compacted small / large | archived | throughput ops/s | vs HDD "
      + "| avg latency µs | vs HDD | p99 latency µs | vs HDD | written RAM | written SSD | "
      + "written HDD | records loaded | load s |\n");
    sb.append("|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (CaseResult r : results) {
      MediaCase c = r.mediaCase();
      sb.append(String.format(Locale.ROOT, "| %s | %s | %s | %s / %s | %s |", c.name(), c.wal(),
        c.flushed(), c.compactedSmall(), c.compactedLarge(), c.archived()));
      if (!r.ok()) {
        sb.append(" failed: ").append(r.error().replace('|', '/').replace('\n', ' '))
          .append(" | | | | | | | | | | |\n");
        continue;
      }
      sb.append(String.format(Locale.ROOT, " %,.0f | %s | %,.0f | %s | %,.0f | %s | %s | %s | %s "
        + "| %,d%s | %.1f |%n", r.throughputOps(), pct(relThroughput(r)), r.latencyUsAvg(),
        pct(relLatencyAvg(r)), r.latencyUsP99(), pct(relLatencyP99(r)),
        mib(written(r, Medium.RAM)), mib(written(r, Medium.SSD)), mib(written(r, Medium.HDD)),
        r.records(), r.truncated() ? String.format(Locale.ROOT, " of %,d *", r.recordsTarget())
          : "", r.loadSeconds()));
    }
    sb.append("\nWritten = bytes the DataNodes wrote to the volumes of each medium during the load "
      + "(block and checksum data, all three replicas, block moves included; HDD = DISK + "
      + "ARCHIVE volumes), the study's Figure 14. * = the load stopped at the scale's time limit ("
      + settings.scale().loadSeconds() + " s) before the whole dataset was in: its throughput "
      + "and latency are over that time. Failed inserts: ");
    long failed = results.stream().filter(CaseResult::ok).mapToLong(CaseResult::insertsFailed)
      .sum();
    sb.append(failed).append(".\n\n");

    sb.append(resourceTable(results));

    if (plotProblem != null) {
      sb.append("Plots not drawn: ").append(plotProblem).append("\n\n");
    }
    for (File png : pngs) {
      sb.append("![").append(png.getName()).append("](").append(png.getName()).append(")\n\n");
    }

    sb.append("## The study's findings, checked\n\n");
    sb.append("| study's finding | study | Strata here | ordering |\n|---|---|---|---|\n");
    for (StudyFindings.Finding f : findings) {
      sb.append("| ").append(f.claim()).append(" | ").append(f.study()).append(" | ")
        .append(f.strata()).append(" | ").append(f.verdict().text).append(" |\n");
    }
    sb.append("\n## Case mapping (Table 1 to Strata's placement keys)\n\n");
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
    sb.append("- Each DataNode has one volume per tier. SSD and HDD volumes are directories on "
      + "this machine's disk, slowed through the DataNode's FileIoProvider fault-injection hook: "
      + "every I/O operation (write, flush, sync, open, rename, delete, read) waits the medium's "
      + "access latency, concurrent operations overlapping as on a device with a queue, and "
      + "read/write bytes are booked on the volume's bandwidth timeline (delays are slept, their "
      + "last 200 µs spun, but on a busy machine a delay still ends late). There is no seek model "
      + "beyond that per-operation latency, no page cache in front of the emulated device (the "
      + "study's note: its SSD/HDD figures profit from the OS cache), and no SATA controller "
      + "limit (the study's 1.5 GB/s for 8 disks).\n");
    sb.append("- The RAM tier is HDFS's NVDIMM type on tmpfs, not slowed; the underlying disk adds "
      + "its own (page-cached) cost to SSD and HDD volumes.\n");
    sb.append("- Strata's settings are the same in every case (the study tuned flusher and "
      + "compaction thread counts per case); the WAL is upstream's default provider, not the "
      + "study's multiwal with 4 groups.\n");
    return sb.toString();
  }

  private static String pct(double ratio) {
    return Double.isNaN(ratio) ? "n/a" : String.format(Locale.ROOT, "%.0f %%", 100 * ratio);
  }

  static String mib(long bytes) {
    return String.format(Locale.ROOT, "%,.0f MiB", bytes / (double) (1 << 20));
  }

  List<File> plots(File dir) throws IOException {
    System.setProperty("java.awt.headless", "true");
    List<CaseResult> ok = results.stream().filter(CaseResult::ok).toList();
    List<String> names = ok.stream().map(r -> r.mediaCase().name()).toList();
    List<File> files = new ArrayList<>();
    if (ok.isEmpty()) {
      return files;
    }
    double[] thr = ok.stream().mapToDouble(CaseResult::throughputOps).toArray();
    File f = new File(dir, THROUGHPUT_PNG);
    BarChart.grouped("YCSB load throughput per case", "operations/s", names,
      List.of(new BarChart.Series("throughput (ops/s)", THROUGHPUT_COLOR, thr)),
      v -> String.format(Locale.ROOT, "%,.0f", v)).write(f);
    files.add(f);

    f = new File(dir, LATENCY_PNG);
    BarChart.grouped("YCSB insert latency per case", "microseconds", names, List.of(
      new BarChart.Series("average", AVG_COLOR,
        ok.stream().mapToDouble(CaseResult::latencyUsAvg).toArray()),
      new BarChart.Series("99th percentile", P99_COLOR,
        ok.stream().mapToDouble(CaseResult::latencyUsP99).toArray())),
      v -> String.format(Locale.ROOT, "%,.0f", v)).write(f);
    files.add(f);

    f = new File(dir, RELATIVE_PNG);
    BarChart.grouped("Relative to the all-HDD case of the same dataset (50G_HDD / 1T_HDD)",
      "% of the HDD case", names, List.of(
        new BarChart.Series("throughput", THROUGHPUT_COLOR,
          ok.stream().mapToDouble(r -> 100 * relThroughput(r)).toArray()),
        new BarChart.Series("average latency", AVG_COLOR,
          ok.stream().mapToDouble(r -> 100 * relLatencyAvg(r)).toArray()),
        new BarChart.Series("p99 latency", P99_COLOR,
          ok.stream().mapToDouble(r -> 100 * relLatencyP99(r)).toArray())),
      v -> String.format(Locale.ROOT, "%.0f %%", v)).reference(100, "HDD = 100 %").write(f);
    files.add(f);

    f = new File(dir, WRITTEN_PNG);
    BarChart.stacked("Data written per tier during the load, all DataNodes (study's Figure 14)",
      "MiB", names, List.of(
        new BarChart.Series("RAM (NVDIMM)", RAM_COLOR,
          ok.stream().mapToDouble(r -> written(r, Medium.RAM) / 1048576.0).toArray()),
        new BarChart.Series("SSD", SSD_COLOR,
          ok.stream().mapToDouble(r -> written(r, Medium.SSD) / 1048576.0).toArray()),
        new BarChart.Series("HDD (DISK, ARCHIVE)", HDD_COLOR,
          ok.stream().mapToDouble(r -> written(r, Medium.HDD) / 1048576.0).toArray())),
      v -> String.format(Locale.ROOT, "%,.0f MiB", v)).write(f);
    files.add(f);
    return files;
  }
}
