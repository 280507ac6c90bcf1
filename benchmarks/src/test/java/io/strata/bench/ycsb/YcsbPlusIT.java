package io.strata.bench.ycsb;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.strata.bench.monitor.BenchMonitor;
import io.strata.bench.monitor.Monitor;
import io.strata.bench.monitor.RegionServerJmx;
import io.strata.bench.monitor.Timeline;
import io.strata.bench.ycsb.MultiPhaseRun.StepResult;
import io.strata.local.EmbeddedHBase;
import io.strata.local.TestClusters;
import io.strata.local.TieredDfsCluster;
import java.io.File;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.Test;

/**
 * YCSB++'s extensions as {@code strata bench ycsb} runs them, each on small counts, on one
 * embedded tiered cluster: a multi-phase run with the flushes and compactions of each phase, the
 * pre-split comparison, the read-after-write lag with and without client buffering, client
 * processes started together through the ZooKeeper barrier, and YCSB++'s four server-side filters
 * against the same predicate applied in the client.
 */
public class YcsbPlusIT {
  private static Path workDir;
  private static TieredDfsCluster dfs;
  private static EmbeddedHBase hbase;

  // 1 MiB memstores (the smallest HBase accepts) flush during a load of a few MiB, and two
  // store files make a compaction: small runs leave work to settle.
  @ClassRule
  public static final TestClusters.Running CLUSTER = TestClusters.running(
    TestClusters.small("ycsb-plus")
      .hbase("hbase.hregion.memstore.flush.size", Integer.toString(1 << 20))
      .hbase("hbase.hstore.compactionThreshold", "2")
      // What --monitor-ms sets: an info server whose /jmx the monitoring reads.
      .hbase(HConstants.REGIONSERVER_INFO_PORT, "0")
      .hbase("hbase.regionserver.metrics.period", "1000"));

  @BeforeClass
  public static void start() {
    workDir = CLUSTER.config().workDir().toPath().toAbsolutePath();
    dfs = CLUSTER.dfs();
    hbase = CLUSTER.hbase();
  }

  /** The bench's experiments with the bench's own command line. */
  private static YcsbBench.Experiments bench(String name, String... args) throws Exception {
    YcsbBench.Settings s = YcsbBench.settings(args);
    return new YcsbBench.Experiments(hbase, s, workDir.resolve(name));
  }

  private static List<Object> progress = new ArrayList<>();

  @Test
  public void multiPhaseRunRecordsEachPhasesFlushesAndCompactions() throws Exception {
    List<StepResult> steps = bench("phases", "--phases", "load,settle,update-only",
      "--records", "3000", "--operations", "1000", "--threads", "2", "--regions", "2",
      "--settle-quiet-s", "2", "--settle-max-s", "60").phases(progress::add);
    steps.forEach(System.out::println);
    assertEquals(List.of("load", "settle", "workload-update-only"),
      steps.stream().map(s -> s.step().name()).toList());
    StepResult load = steps.get(0);
    StepResult settle = steps.get(1);
    StepResult updates = steps.get(2);

    assertEquals(3000, load.figures().operations());
    assertEquals(0, load.figures().failed());
    LatencySummary insert = load.figures().latenciesUs().get("INSERT");
    assertEquals(3000, insert.count());
    assertTrue(insert.toString(), insert.p50() > 0 && insert.p99() >= insert.p50()
      && insert.p999() >= insert.p99() && insert.p9999() >= insert.p999());
    assertEquals(2, load.activity().regions());
    // about 3.4 MiB into two regions of 1 MiB memstores: flushes, and second files compact
    assertTrue(load.toString(), load.activity().flushes() >= 2);
    assertTrue(load.toString(), load.activity().flushedBytes() > 1_000_000);
    assertTrue(load + "\n" + settle,
      load.activity().compactions() + settle.activity().compactions() >= 1);
    assertTrue(load + "\n" + settle, load.activity().compactedOutputBytes()
      + settle.activity().compactedOutputBytes() > 0);

    // nothing queued or running for the quiet period before the next phase
    assertNull(settle.figures());
    assertTrue(settle.toString(), settle.settle().settled());
    assertFalse(settle.toString(), settle.activity().busy());
    assertTrue(settle.toString(), settle.seconds() >= 2);
    assertTrue(settle.toString(), settle.activity().storeFiles() >= 2);

    assertEquals(1000, updates.figures().operations());
    assertEquals(0, updates.figures().failed());
    assertEquals(1000, updates.figures().latenciesUs().get("UPDATE").count());
  }

  @Test
  public void monitoringRecordsMachineAndRegionServerMetricsOnOnePhasedTimeline()
    throws Exception {
    YcsbBench.Experiments x = bench("monitored", "--phases", "load,flush,settle", "--records",
      "4000", "--threads", "2", "--regions", "2", "--settle-quiet-s", "1", "--settle-max-s", "60");
    Timeline t;
    try (Admin admin = hbase.connection().getAdmin();
      Monitor m = Monitor.start(Duration.ofMillis(250), Path.of("/"),
        new RegionServerJmx(admin, Duration.ofSeconds(5)))) {
      x.monitored(m);
      x.phases(progress::add);
      t = m.stop();
    }
    System.out.println(BenchMonitor.summary(t));
    assertEquals(List.of("load", "flush", "settle"),
      t.phases().stream().map(Timeline.Phase::name).toList());
    double seconds = t.phases().get(2).endS();
    assertTrue(t.t().length + " samples in " + seconds + " s", t.t().length >= seconds / 0.25 / 2);
    assertEquals(t.missing().toString(), 0, (int) t.missing().get("proc"));
    // A RegionServer registers its metrics bean some time after it starts: samples before that
    // are missing, none after.
    double[] memstore = t.series().get("memstore_mb");
    int first = 0;
    while (first < memstore.length && Double.isNaN(memstore[first])) {
      first++;
    }
    assertTrue(Arrays.toString(memstore), first < memstore.length / 2);
    assertEquals(t.missing().toString(), first, (int) t.missing().get("hbase"));

    // The YCSB client process talks to the RegionServer over loopback while it loads.
    Map<String, Double> load = t.means(t.phases().get(0));
    assertTrue(load.toString(), load.get("loopback_mb_s") > 0);
    assertTrue(load.toString(), load.get("cpu_user_pct") > 0 && load.get("cpu_user_pct") <= 100);
    // The RegionServer's own metrics, over /jmx: the load filled memstores, the flush left
    // store files, and the per-interval counters never go backwards.
    double most = 0;
    for (int i = 0; i < t.t().length; i++) {
      if (t.t()[i] <= t.phases().get(0).endS()) {
        most = Math.max(most, memstore[i]);
      }
    }
    assertTrue("memstore during the load " + Arrays.toString(memstore), most > 0);
    double[] files = t.series().get("store_files");
    assertTrue(Arrays.toString(files), files[files.length - 1] >= 2);
    for (String counter : List.of("gc_ms", "blocked_requests", "updates_blocked_ms")) {
      for (double v : t.series().get(counter)) {
        assertTrue(counter + " " + v, Double.isNaN(v) || v >= 0);
      }
    }
    ObjectNode json = new ObjectMapper().createObjectNode();
    t.toJson(json);
    assertEquals(t.t().length, json.get("series").get("memstore_mb").size());
    assertTrue(json.get("phases").get(0).get("means").has("disk_write_mb_s"));
    File png = workDir.resolve("monitor.png").toFile();
    t.plot("YcsbPlusIT", png);
    assertNotNull(ImageIO.read(png));
  }

  @Test
  public void presplitComparisonLoadsIntoSplitAndUnsplitTables() throws Exception {
    PresplitComparison.Result r = bench("presplit", "--presplit-compare", "--records", "3000",
      "--regions", "4", "--threads", "2", "--settle-quiet-s", "1").presplit(progress::add);
    assertEquals(1, r.presplit().size());
    assertEquals(1, r.single().size());
    PresplitComparison.Variant split = r.presplit().get(0);
    PresplitComparison.Variant single = r.single().get(0);
    assertEquals(4, split.regionsAtStart());
    assertTrue(split.toString(), split.activity().regions() >= 4);
    assertEquals(1, single.regionsAtStart());
    for (PresplitComparison.Variant v : List.of(split, single)) {
      assertEquals(v.toString(), 3000, v.load().operations());
      assertEquals(v.toString(), 0, v.load().failed());
      assertEquals(v.toString(), 3000, v.load().latenciesUs().get("INSERT").count());
    }
    assertEquals(split.load().opsPerSec() / single.load().opsPerSec(), r.ratio(), 1e-9);
    try (Admin admin = hbase.connection().getAdmin()) {
      assertFalse(admin.tableExists(TableName.valueOf("ycsb_presplit")));
    }
    System.out.printf("pre-split %s%nsingle %s%nratio %.2f%n", split, single, r.ratio());
  }

  @Test
  public void bulkLoadLoadsEveryRowThroughHFilesPerRegion() throws Exception {
    BulkLoadComparison.Result r = bench("bulkload", "--bulkload-compare", "--records", "3000",
      "--regions", "4", "--threads", "2", "--settle-quiet-s", "1").bulkload(progress::add);
    assertEquals(3000, r.insert().presplit().get(0).load().operations());
    BulkLoadComparison.BulkLoad split = r.presplit().get(0);
    BulkLoadComparison.BulkLoad single = r.single().get(0);
    // Every row there (the comparison counts them), one HFile per region.
    assertEquals(3000, split.rows());
    assertEquals(3000, single.rows());
    assertEquals(split.toString(), 4, split.files());
    assertEquals(single.toString(), 1, single.files());
    assertTrue(r.toString(), split.rowsPerSec() > 0 && single.rowsPerSec() > 0);
    try (Admin admin = hbase.connection().getAdmin()) {
      assertFalse(admin.tableExists(TableName.valueOf("ycsb_bulkload")));
    }
    System.out.println(r);
  }

  @Test
  public void readAfterWriteLagGrowsWithTheClientBuffer() throws Exception {
    List<ReadAfterWriteLag.Result> results = bench("raw", "--raw-lag", "--raw-records", "1500",
      "--raw-buffers-kb", "0,1024", "--raw-target", "1000", "--raw-sample", "1", "--regions", "2")
      .rawLag(progress::add);
    assertEquals(2, results.size());
    ReadAfterWriteLag.Result unbuffered = results.get(0);
    ReadAfterWriteLag.Result buffered = results.get(1);
    assertEquals(0, unbuffered.settings().bufferBytes());
    assertEquals(1024 << 10, buffered.settings().bufferBytes());
    for (ReadAfterWriteLag.Result r : results) {
      // every key written was published, and every published key was seen
      assertEquals(r.toString(), 1500, r.sampled());
      assertEquals(r.toString(), 1500, r.lagUs().count());
    }
    // A 1 MiB buffer holds hundreds of 1 KiB records: at up to 1000 writes/s most keys wait
    // hundreds of milliseconds in it before they are sent.
    assertTrue(results.toString(), buffered.lagUs().p50() > unbuffered.lagUs().p50());
    assertTrue(results.toString(), buffered.lagUs().p99() > 200_000);
    // As YCSB++ counts it: the keys not readable at their first read, and their lag alone.
    for (ReadAfterWriteLag.Result r : results) {
      assertTrue(r.toString(), r.retried() <= r.sampled());
      assertEquals(r.toString(), r.retried(), r.retriedLagUs().count());
      double last = 0;
      for (double[] point : r.retriedCdf()) {
        assertTrue(r.toString(), point[1] >= last && point[0] >= 0);
        last = point[1];
      }
      assertEquals(r.toString(), r.retried() == 0 ? 0 : 1.0, last, 1e-9);
    }
    // Buffered keys wait in the client: most are not there at their first read.
    assertTrue(results.toString(), buffered.retriedShare() > 0.5);
    assertTrue(results.toString(), buffered.retriedShare() > unbuffered.retriedShare());
    java.io.File png = new java.io.File("target/it-work/raw-lag-retried-cdf.png");
    YcsbPlots.lag(results, png);
    assertTrue(javax.imageio.ImageIO.read(png).getWidth() > 100);
    results.forEach(System.out::println);
  }

  @Test
  public void serverSideFiltersReturnWhatTheClientSideFindsAtTheGivenSelectivity()
    throws Exception {
    FilterComparison.Result r = bench("filters", "--filter-compare", "--records", "1000",
      "--regions", "2", "--filter-lengths", "1,10,100", "--filter-selectivities", "1,10,50,100",
      "--filter-reps", "4", "--ycsb", "fieldlength=20").filters(progress::add);
    r.cells().forEach(System.out::println);
    r.summary().forEach(System.out::println);
    assertEquals(3 * 4 * 4, r.cells().size());
    assertTrue(r.disagreements().toString(), r.disagreements().isEmpty());
    for (FilterComparison.Cell c : r.cells()) {
      String what = c.toString();
      assertEquals(what, 4, c.scans());
      assertEquals(what, 4L * c.scanRows(), c.rowsScanned());
      // both sides found what the data holds, the same rows
      assertEquals(what, c.expected(), c.server().matched());
      assertEquals(what, c.expected(), c.client().matched());
      assertEquals(what, c.server().rows(), c.client().rows());
      long perRow = c.filter().selectsRows() ? 1 : 100;
      // each row holds exactly k % of its 100 fields' markers; rows' markers are exact over any
      // 100 consecutive rows, and over any 10 at multiples of 10 %
      boolean exact = !c.filter().selectsRows() || c.scanRows() % 100 == 0
        || c.scanRows() % 10 == 0 && c.selectivity() % 10 == 0;
      if (exact) {
        assertEquals(what, c.rowsScanned() * perRow * c.selectivity() / 100, c.expected());
      }
      if (c.filter().selectsRows()) {
        assertEquals(what, c.expected(), c.server().rows());
      } else {
        assertEquals(what, c.rowsScanned(), c.server().rows()); // every row has a match
      }
      // the client got every cell of the rows scanned; the server only what passed
      long rowBytes = c.client().bytes() / c.rowsScanned();
      assertTrue(what, rowBytes > 100 * 20);
      assertEquals(what, c.scannedBytes(), c.client().bytes());
      if (c.selectivity() == 100) {
        assertEquals(what, c.client().bytes(), c.server().bytes());
      } else {
        assertTrue(what, c.server().bytes() < c.client().bytes());
      }
      if (c.filter().selectsRows()) {
        assertEquals(what, c.expected() * rowBytes, c.server().bytes());
      }
      assertTrue(what, c.server().msPerScan() > 0 && c.client().msPerScan() > 0);
      assertEquals(what, c.client().msPerScan() / c.server().msPerScan(), c.ratio(), 1e-9);
    }
    // over the 400 rows scanned at 100 rows, 1 % of the rows and 1 % of the cells
    FilterComparison.Cell rows1 = cell(r, FilterComparison.Kind.ROW_BY_COLUMN, 100, 1);
    assertEquals(4, rows1.expected());
    assertEquals(400, cell(r, FilterComparison.Kind.VALUE, 100, 1).expected());

    com.fasterxml.jackson.databind.JsonNode json = io.strata.bench.common.BenchJson.tree(
      new YcsbResult(null, null, null, null, null, null, null, null, null, null,
        YcsbResult.Filter.all(r),
        YcsbResult.FiltersSummary.of(r), null, null));
    assertEquals(48, json.get("filters").size());
    com.fasterxml.jackson.databind.JsonNode first = json.get("filters").get(0);
    for (String field : List.of("filter", "hbase_filter", "scan_rows", "selectivity",
      "rows_matched", "ratio", "mb_scanned_per_scan")) {
      assertTrue(field + " in " + first, first.has(field));
    }
    for (String field : List.of("ms_per_scan", "bytes", "matched")) {
      assertTrue(field + " in " + first, first.get("server").has(field));
      assertTrue(field + " in " + first, first.get("client").has(field));
    }
    assertEquals("row-key", first.get("filter").asText());
    assertEquals(1, first.get("scan_rows").asInt());
    assertEquals(0.01, first.get("selectivity").asDouble(), 1e-9);
    assertTrue(json.get("filters_summary").get("agree").asBoolean());
    assertEquals(16, json.get("filters_summary").get("server_pays_from").size());

    java.io.File dir = new java.io.File("target/it-work/filters");
    List<java.io.File> pngs = YcsbPlots.filters(r, dir);
    assertEquals(4, pngs.size());
    for (java.io.File png : pngs) {
      java.awt.image.BufferedImage img = javax.imageio.ImageIO.read(png);
      assertTrue(png.toString(), img != null && img.getWidth() > 100);
    }
    try (Admin admin = hbase.connection().getAdmin()) {
      assertFalse(admin.tableExists(TableName.valueOf("ycsb_filter")));
    }
  }

  private static FilterComparison.Cell cell(FilterComparison.Result r,
    FilterComparison.Kind kind, int rows, int selectivity) {
    return r.cells().stream().filter(c -> c.filter() == kind && c.scanRows() == rows
      && c.selectivity() == selectivity).findFirst().orElseThrow();
  }

  @Test
  public void coordinatedClientsStartTogether() throws Exception {
    long staggerMs = 5000;
    List<StepResult> steps = bench("coordinated", "--phases", "load", "--clients", "2",
      "--threads", "1", "--records", "2000", "--regions", "2", "--stagger-ms",
      Long.toString(staggerMs)).phases(progress::add);
    PhaseFigures f = steps.get(0).figures();
    assertEquals(2, f.clients());
    assertEquals(2, f.runs().size());
    for (YcsbRun run : f.runs()) {
      assertEquals(1000, run.report().operation("INSERT").returned("OK"));
    }
    assertEquals(2000, f.operations());
    assertEquals(2000, f.latenciesUs().get("INSERT").count());
    // The second process started 5 s after the first, yet both began within a fraction of that.
    assertTrue(f.toString(), f.jvmStartSpreadMs() >= staggerMs * 0.9);
    assertTrue(f.toString(), f.startSpreadMs() < 500);
    assertTrue(f.toString(), f.startSpreadMs() < f.jvmStartSpreadMs() / 10);
    int rows = 0;
    try (Table t = hbase.connection().getTable(YcsbTable.DEFAULT_TABLE);
      ResultScanner scanner = t.getScanner(new Scan().setFilter(
        new FirstKeyOnlyFilter()))) {
      for (Result ignored : scanner) {
        rows++;
      }
    }
    assertEquals(2000, rows);
    System.out.println(f);
  }
}
