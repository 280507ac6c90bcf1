package io.strata.bench.media;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.strata.bench.monitor.Monitor;
import io.strata.bench.monitor.RegionServerJmx;
import io.strata.bench.monitor.Timeline;
import io.strata.bench.ycsb.HBaseClient26;
import io.strata.bench.ycsb.YcsbReport;
import io.strata.bench.ycsb.YcsbRun;
import io.strata.bench.ycsb.YcsbRunner;
import io.strata.bench.ycsb.YcsbTable;
import io.strata.bench.ycsb.YcsbWorkloads;
import io.strata.hbase.placement.PlacementScanner;
import io.strata.local.EmbeddedHBase;
import io.strata.local.LocalClusterConfig;
import io.strata.local.TieredDfsCluster;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.client.Admin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One case of {@code strata bench media} on the run's tiered HDFS: a fresh HBase with the case's
 * placement keys and root directory, a pre-split table, YCSB's load phase monitored over the
 * machine and the RegionServer's /jmx, then the bytes the DataNodes wrote per storage type and
 * where the files were at the end ({@link CaseResult}). A failed case is a result with its
 * error, never an exception. Not thread-safe: one case at a time.
 */
final class MediaCaseRun {
  private static final Logger LOG = LoggerFactory.getLogger(MediaCaseRun.class);
  /** A YCSB status line: {@code ... 10 sec: 12345 operations; 1234.5 current ops/sec; ...}. */
  private static final Pattern STATUS =
    Pattern.compile("(\\d+ sec: \\d+ operations;[^\\[]*)");

  private MediaCaseRun() {
  }

  static CaseResult run(int index, MediaCase c, TieredDfsCluster dfs, MediaEmulation media,
    MediaBench.Settings s, PrintStream out) {
    MediaScale scale = s.scale();
    String tag = String.format(Locale.ROOT, "[%d/%d %s]", index + 1, s.cases().size(), c.name());
    String root = "/hbase-" + (index + 1) + "-" + c.name();
    long t0 = System.nanoTime();
    LocalClusterConfig config = dfs.config();
    // Every case sets the same keys, so each overrides the previous case's.
    config.hbase(HConstants.HBASE_DIR, dfs.uri() + root);
    Map<String, String> keys = c.hbaseKeys(scale.compactionThresholdBytes());
    keys.putAll(c.studyTuning());
    keys.forEach(config::hbase);
    out.printf(Locale.ROOT, "%s starting HBase: WAL %s, flushed %s, compacted %s/%s, archived %s%n",
      tag, c.wal(), c.flushed(), c.compactedSmall(), c.compactedLarge(), c.archived());
    try {
      placeRoot(dfs, root, c.rest());
    } catch (IOException e) {
      LOG.error("Case {}: cannot prepare {}", c.name(), root, e);
      out.printf(Locale.ROOT, "%s FAILED: cannot prepare %s: %s%n", tag, root, e);
      return CaseResult.failed(c, 0, "cannot prepare " + root + ": " + e);
    }
    LOG.info("Case {}: root {}, keys {}", c.name(), root, keys);
    Path dir = new File(s.out(), "cases/" + c.name()).toPath();
    CaseResult result;
    try (EmbeddedHBase hbase = EmbeddedHBase.start(dfs)) {
      int regions = scale.regions(c.dataset());
      try (Admin admin = hbase.connection().getAdmin()) {
        YcsbTable.create(admin, YcsbTable.DEFAULT_TABLE, YcsbTable.DEFAULT_FAMILY, regions);
      }
      long records = scale.records(c.dataset());
      out.printf(Locale.ROOT, "%s HBase up in %.1f s; YCSB load of %,d records into %d regions, "
        + "%d threads%n", tag, (System.nanoTime() - t0) / 1e9, records, regions, scale.threads());
      Map<StorageType, Long> before = media.bytesWritten();
      YcsbRun run;
      Timeline timeline;
      ScheduledExecutorService progress = progress(dir.resolve("load.err"), tag, out);
      try (Admin admin = hbase.connection().getAdmin();
        Monitor monitor = Monitor.start(Duration.ofMillis(MONITOR_MS), Path.of("/"),
          new RegionServerJmx(admin, Duration.ofSeconds(5)))) {
        monitor.phase("load");
        run = runner(hbase, scale, records, dir).execute(YcsbRunner.Phase.LOAD, dir);
        timeline = monitor.stop();
      } finally {
        progress.shutdownNow();
      }
      timeline.plot(c.name(), dir.resolve("monitor.png").toFile());
      Map<String, Double> resources = resources(timeline);
      Map<StorageType, Long> written = MediaEmulation.difference(media.bytesWritten(), before);
      ObjectNode placement;
      try (FileSystem fs = FileSystem.newInstance(dfs.uri(), dfs.configuration())) {
        placement = new PlacementScanner((org.apache.hadoop.hdfs.DistributedFileSystem) fs,
          hbase.configuration()).scan(hbase.rootDir()).toJson();
      }
      YcsbReport.Operation insert = run.report().operation("INSERT");
      long failed = insert.returnedTotal() - insert.returned("OK");
      result = new CaseResult(c, insert.count(), records, run.report().throughputOpsPerSec(),
        insert.averageUs(), insert.percentileUs(99).orElse(Double.NaN), failed,
        run.report().runTimeMs() / 1000, 0, written, placement, null, resources);
      out.printf(Locale.ROOT, "%s %,.0f ops/s, latency avg %,.0f us, p99 %,.0f us; written "
        + "RAM %s, SSD %s, HDD %s%s%n", tag, result.throughputOps(), result.latencyUsAvg(),
        result.latencyUsP99(), MediaReport.mib(MediaReport.written(result, Medium.RAM)),
        MediaReport.mib(MediaReport.written(result, Medium.SSD)),
        MediaReport.mib(MediaReport.written(result, Medium.HDD)),
        failed > 0 ? "; " + failed + " inserts FAILED" : "");
    } catch (Exception e) {
      LOG.error("Case {} failed", c.name(), e);
      out.printf(Locale.ROOT, "%s FAILED: %s%n", tag, e.getMessage());
      return CaseResult.failed(c, (System.nanoTime() - t0) / 1e9, String.valueOf(e.getMessage()));
    }
    deleteRoot(dfs, root, tag, out);
    double seconds = (System.nanoTime() - t0) / 1e9;
    out.printf(Locale.ROOT, "%s done in %.1f s%n", tag, seconds);
    return new CaseResult(c, result.records(), result.recordsTarget(), result.throughputOps(),
      result.latencyUsAvg(),
      result.latencyUsP99(), result.insertsFailed(), result.loadSeconds(), seconds,
      result.bytesWritten(), result.placement(), null, result.resources());
  }

  /** Monitoring interval of the loads. */
  static final long MONITOR_MS = 1000;

  /**
   * The load's means of every monitored series, and the GC milliseconds in all and the largest
   * memstore over it.
   */
  static Map<String, Double> resources(Timeline t) {
    Map<String, Double> r = new LinkedHashMap<>(t.means(t.phases().get(0)));
    double gc = 0;
    double memstore = 0;
    for (int i = 0; i < t.t().length; i++) {
      double g = t.series().get("gc_ms")[i];
      double m = t.series().get("memstore_mb")[i];
      gc += Double.isNaN(g) ? 0 : g;
      memstore = Double.isNaN(m) ? memstore : Math.max(memstore, m);
    }
    r.put("gc_ms_total", gc);
    r.put("memstore_mb_max", memstore);
    return r;
  }

  private static YcsbRunner runner(EmbeddedHBase hbase, MediaScale scale, long records, Path dir)
    throws IOException {
    Files.createDirectories(dir);
    // The paper's 1T_workload: CoreWorkload, 5 fields of 200 bytes, load only.
    return new YcsbRunner(YcsbWorkloads.write(YcsbWorkloads.A, dir))
      .property(HConstants.ZOOKEEPER_QUORUM, "localhost")
      .property(HConstants.ZOOKEEPER_CLIENT_PORT,
        hbase.configuration().get(HConstants.ZOOKEEPER_CLIENT_PORT))
      .property("recordcount", Long.toString(records))
      .property("maxexecutiontime", Integer.toString(scale.loadSeconds()))
      .property("fieldcount", "5")
      .property("fieldlength", "200")
      .property(HBaseClient26.CLIENT_BUFFERING, "true")
      .property(HBaseClient26.WRITE_BUFFER_SIZE, Long.toString(scale.writeBufferBytes()))
      .threads(scale.threads())
      .jvmOption("-Xmx1g")
      .statusIntervalSeconds(5)
      .timeout(scale.caseTimeout());
  }

  /** Prints YCSB's latest status line every 10 s. */
  private static ScheduledExecutorService progress(Path stderr, String tag, PrintStream out) {
    ScheduledExecutorService ex = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "media-progress");
      t.setDaemon(true);
      return t;
    });
    ex.scheduleAtFixedRate(() -> {
      String last = lastStatus(stderr);
      if (last != null) {
        out.printf(Locale.ROOT, "%s   %s%n", tag, last.trim());
      }
    }, 10, 10, TimeUnit.SECONDS);
    return ex;
  }

  static String lastStatus(Path stderr) {
    try {
      if (!Files.exists(stderr)) {
        return null;
      }
      String last = null;
      for (String line : Files.readAllLines(stderr, StandardCharsets.UTF_8)) {
        Matcher m = STATUS.matcher(line);
        if (m.find()) {
          last = m.group(1);
        }
      }
      return last;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /**
   * Creates the case's HBase root with the policy of the case's "other files", so that what
   * Strata does not place itself (descriptors, the master's store, region info) is on them too.
   */
  private static void placeRoot(TieredDfsCluster dfs, String root, Medium rest)
    throws IOException {
    try (FileSystem fs = FileSystem.newInstance(dfs.uri(), dfs.configuration())) {
      org.apache.hadoop.fs.Path p = new org.apache.hadoop.fs.Path(root);
      fs.mkdirs(p);
      fs.setStoragePolicy(p, rest.policy());
    }
  }

  /** Deletes the case's HBase root so that the next case starts on empty volumes. */
  private static void deleteRoot(TieredDfsCluster dfs, String root, String tag, PrintStream out) {
    try (FileSystem fs = FileSystem.newInstance(dfs.uri(), dfs.configuration())) {
      fs.delete(new org.apache.hadoop.fs.Path(root), true);
    } catch (IOException e) {
      LOG.warn("Could not delete {} after its case; the next cases have less space", root, e);
      out.printf(Locale.ROOT, "%s WARNING: could not delete %s: %s%n", tag, root, e);
    }
  }
}
