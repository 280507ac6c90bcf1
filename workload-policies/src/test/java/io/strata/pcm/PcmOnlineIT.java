package io.strata.pcm;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.strata.local.TestClusters;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.HRegionServer;
import org.apache.hadoop.hbase.regionserver.HStore;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.ClassRule;
import org.junit.Test;

/**
 * PCM end to end on the embedded tiered HDFS and HBase: {@code strata pcm watch --execute} sees a
 * bulk load into an empty table, classifies it BL once the class holds, and applies the BL policy
 * online while the load goes on (the open regions carry the new values; no row is lost); the
 * heap shares are table values for PcmHeapTuner (not loaded here) and the written restart plan
 * keeps the heap size and memstore lower limit; {@code revert} restores the descriptor. On a
 * second table, point reads and range reads are told apart (RO-Read, RO-Scan), and on a third,
 * updates and inserts (WO-Update, WO-Insert).
 */
public class PcmOnlineIT {
  private static final byte[] FAMILY = Bytes.toBytes("f");

  @ClassRule
  public static final TestClusters.Running CLUSTER = TestClusters.running(
    // RegionServers report their counters to the master twice a second (default every 3 s), so
    // a one-second monitor interval sees fresh counts. The RegionServer's info server is on (a
    // random port) for the Get/Scan split from its /jmx, and InsertSampler is loaded for the
    // insert/update split.
    TestClusters.small("pcm").regionServers(1).hbase("hbase.regionserver.msginterval", "500")
      .hbase("hbase.regionserver.info.port", "0")
      .hbase("hbase.coprocessor.region.classes", InsertSampler.class.getName()));

  /** What {@code strata pcm SUB --table T [--state DIR]} passes to the tool. */
  private static PcmTool.Request request(TableName table, File state) {
    PcmTool.Request r = new PcmTool.Request();
    r.table = table.getNameAsString();
    r.state = state;
    return r;
  }

  @Test
  public void bulkLoadIsClassifiedAndItsPolicyAppliedOnlineAndReverted() throws Exception {
    TableName name = TableName.valueOf("pcm_load");
    Admin admin = CLUSTER.hbase().connection().getAdmin();
    admin.createTable(TableDescriptorBuilder.newBuilder(name)
      .setColumnFamily(ColumnFamilyDescriptorBuilder.of(FAMILY)).build());
    TableDescriptor original = admin.getDescriptor(name);
    File work = new File("target/pcm-it/" + System.nanoTime());
    File state = new File(work, "state");
    File json = new File(work, "watch.json");

    Configuration conf = new Configuration(CLUSTER.hbase().configuration());
    conf.setLong(PcmKeys.INTERVAL_MS, 1000);
    conf.setInt(PcmKeys.WINDOW_SAMPLES, 3);
    conf.setInt(PcmKeys.STABLE_WINDOWS, 3);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong written = new AtomicLong();
    try {
      // The watch's first sample sees the empty table; the load starts after it.
      PcmTool.Request watchRequest = request(name, state);
      watchRequest.execute = true;
      watchRequest.maxSamples = 10L;
      watchRequest.json = json;
      Future<Integer> watch = pool.submit(() -> PcmTool.run("watch", watchRequest, conf));
      Thread.sleep(500);
      Future<?> load = pool.submit(() -> {
        try (Table t = CLUSTER.hbase().connection().getTable(name)) {
          byte[] value = new byte[200];
          while (!stop.get()) {
            List<Put> batch = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
              long row = written.get() + i;
              batch.add(new Put(Bytes.toBytes(String.format("row%09d", row)))
                .addColumn(FAMILY, Bytes.toBytes("q"), value));
            }
            t.put(batch);
            written.addAndGet(batch.size());
          }
        }
        return null;
      });
      assertEquals(Integer.valueOf(0), watch.get(3, TimeUnit.MINUTES));
      stop.set(true);
      load.get(1, TimeUnit.MINUTES);
    } finally {
      stop.set(true);
      pool.shutdownNow();
    }

    JsonNode report = new ObjectMapper().readTree(json);
    assertEquals("[\"BL\"]", report.path("applied").toString());
    assertTrue(report.toString(), report.path("executed").asBoolean());
    long x = report.path("recommendation").path("x").asLong();
    assertTrue("X " + x, x >= 1);

    // The descriptor carries the BL policy.
    TableDescriptor after = admin.getDescriptor(name);
    assertEquals(128L * x << 20, after.getMemStoreFlushSize());
    assertEquals("org.apache.hadoop.hbase.regionserver.ConstantSizeRegionSplitPolicy",
      after.getRegionSplitPolicyClassName());
    assertEquals(Long.toString(Math.max(2, x)),
      after.getValue("hbase.hregion.memstore.block.multiplier"));
    ColumnFamilyDescriptor f = after.getColumnFamily(FAMILY);
    assertEquals(Long.toString(3 * x), f.getConfigurationValue("hbase.hstore.compaction.min"));
    assertEquals(Long.toString(10 * x), f.getConfigurationValue("hbase.hstore.blockingStoreFiles"));
    assertEquals("ONE_SSD", f.getValue("strata.flush.storage.policy"));

    // The open region was reopened with it: its store runs on the new values.
    HRegionServer rs = CLUSTER.hbase().regionServer(0);
    List<HRegion> regions = rs.getRegions(name);
    assertFalse(regions.isEmpty());
    for (HRegion r : regions) {
      assertEquals(128L * x << 20, r.getTableDescriptor().getMemStoreFlushSize());
      HStore store = r.getStore(FAMILY);
      assertEquals(10 * x, store.getBlockingFileCount());
      assertEquals(Long.toString(3 * x),
        store.getReadOnlyConfiguration().get("hbase.hstore.compaction.min"));
    }

    // The heap shares are table values for PcmHeapTuner (not loaded here: the servers' shares stay
    // as they were); the plan says they are applied online and gives the site values for servers
    // without the tuner; the memstore lower limit needs a restart.
    assertEquals("0.6", after.getValue(PcmKeys.TABLE_MEMSTORE_SHARE));
    assertEquals("0.1", after.getValue(PcmKeys.TABLE_BLOCKCACHE_SHARE));
    assertEquals("BL", after.getValue(PcmKeys.TABLE_CLASS));
    File plan = new File(state, "pcm_load.restart-plan.txt");
    String text = new String(Files.readAllBytes(plan.toPath()), StandardCharsets.UTF_8);
    assertTrue(text, text.contains("#   hbase.regionserver.global.memstore.size = 0.6"));
    assertTrue(text, text.contains("#   hfile.block.cache.size = 0.1"));
    assertTrue(text, text.contains(
      "<name>hbase.regionserver.global.memstore.size.lower.limit</name>"));
    assertNotEquals("0.6", rs.getConfiguration().get("hbase.regionserver.global.memstore.size"));
    assertNotEquals("0.1", rs.getConfiguration().get("hfile.block.cache.size"));

    // No row lost across the online change.
    assertEquals(written.get(), count(name));

    // Revert restores every value.
    File revert = new File(state, "pcm_load.revert.json");
    assertTrue(revert.isFile());
    assertEquals(0, PcmTool.run("revert", request(name, state), conf));
    TableDescriptor reverted = admin.getDescriptor(name);
    assertEquals(0, TableDescriptor.COMPARATOR.compare(original, reverted));
    assertNull(reverted.getColumnFamily(FAMILY).getValue("strata.flush.storage.policy"));
    assertFalse(revert.exists());
    for (HRegion r : rs.getRegions(name)) {
      assertEquals(original.getMemStoreFlushSize(), r.getTableDescriptor().getMemStoreFlushSize());
    }
    assertEquals(written.get(), count(name));
  }

  /**
   * {@code apply --class BL --create}: a table that does not exist yet is created pre-split into
   * the policy's P regions (N per RegionServer) over the given key range, with the policy's
   * values; revert unsets them.
   */
  @Test
  public void aNewTableIsCreatedPreSplitWithThePolicy() throws Exception {
    TableName name = TableName.valueOf("pcm_new");
    Admin admin = CLUSTER.hbase().connection().getAdmin();
    File state = new File("target/pcm-it/" + System.nanoTime(), "state");
    File json = new File(state.getParentFile(), "create.json");
    Configuration conf = new Configuration(CLUSTER.hbase().configuration());
    PcmTool.Request create = request(name, state);
    create.workloadClass = "BL";
    create.create = "f";
    create.keyRange = "row000000000,row000100000";
    create.execute = true;
    create.json = json;
    assertEquals(0, PcmTool.run("apply", create, conf));
    JsonNode report = new ObjectMapper().readTree(json);
    int p = report.path("recommendation").path("preSplitRegions").asInt();
    // BL: 4 regions per RegionServer, one RegionServer here.
    assertEquals(4, p);
    assertEquals(p, admin.getRegions(name).size());
    assertEquals(p, report.path("regions").asInt());
    TableDescriptor td = admin.getDescriptor(name);
    long x = report.path("recommendation").path("x").asLong();
    assertEquals(128L * x << 20, td.getMemStoreFlushSize());
    assertEquals("org.apache.hadoop.hbase.regionserver.ConstantSizeRegionSplitPolicy",
      td.getRegionSplitPolicyClassName());
    assertEquals("ONE_SSD", td.getColumnFamily(FAMILY).getValue("strata.flush.storage.policy"));
    // The split points are the range's ends and points evenly between them (byte order): the
    // first region ends at the range's start, the last begins at its end.
    List<org.apache.hadoop.hbase.client.RegionInfo> regions = new ArrayList<>(
      admin.getRegions(name));
    regions.sort(org.apache.hadoop.hbase.client.RegionInfo.COMPARATOR);
    byte[] lo = Bytes.toBytes("row000000000");
    byte[] hi = Bytes.toBytes("row000100000");
    assertEquals(0, Bytes.compareTo(lo, regions.get(0).getEndKey()));
    assertEquals(0, Bytes.compareTo(hi, regions.get(p - 1).getStartKey()));
    for (int i = 1; i < p - 2; i++) {
      byte[] split = regions.get(i).getEndKey();
      assertTrue(Bytes.toStringBinary(split),
        Bytes.compareTo(lo, split) < 0 && Bytes.compareTo(split, hi) < 0);
    }
    // A second --create of the same table is refused; revert unsets the policy's values.
    PcmTool.Request again = request(name, state);
    again.workloadClass = "BL";
    again.create = "f";
    again.execute = true;
    assertEquals(2, PcmTool.run("apply", again, conf));
    assertEquals(0, PcmTool.run("revert", request(name, state), conf));
    assertNull(admin.getDescriptor(name).getColumnFamily(FAMILY)
      .getValue("strata.flush.storage.policy"));
  }

  /**
   * {@code apply --class BL --execute} on a table that already holds data in one region: the
   * policy's P regions (4 per RegionServer) are made online by splitting at quantiles of the
   * table's own keys, so rows written with a skew (nine in ten under one prefix) end spread
   * evenly over the regions, none lost; the report says what was split.
   */
  @Test
  public void aLoadedTableIsResplitForBulkLoadAtItsOwnKeys() throws Exception {
    TableName name = TableName.valueOf("pcm_resplit");
    Admin admin = CLUSTER.hbase().connection().getAdmin();
    admin.createTable(TableDescriptorBuilder.newBuilder(name)
      .setColumnFamily(ColumnFamilyDescriptorBuilder.of(FAMILY)).build());
    int rows = 20_000;
    try (Table t = CLUSTER.hbase().connection().getTable(name)) {
      List<Put> batch = new ArrayList<>();
      for (int i = 0; i < rows; i++) {
        // nine rows in ten under "a": evenly spaced split points would leave most in one region
        String key = i % 10 == 9 ? String.format("z%08d", i) : String.format("a%08d", i);
        batch.add(new Put(Bytes.toBytes(key)).addColumn(FAMILY, Bytes.toBytes("q"),
          new byte[100]));
        if (batch.size() == 1000) {
          t.put(batch);
          batch.clear();
        }
      }
    }
    admin.flush(name);
    assertEquals(1, admin.getRegions(name).size());

    File state = new File("target/pcm-it/" + System.nanoTime(), "state");
    File json = new File(state.getParentFile(), "resplit.json");
    Configuration conf = new Configuration(CLUSTER.hbase().configuration());
    PcmTool.Request apply = request(name, state);
    apply.workloadClass = "BL";
    apply.execute = true;
    apply.json = json;
    assertEquals(0, PcmTool.run("apply", apply, conf));

    List<org.apache.hadoop.hbase.client.RegionInfo> regions = new ArrayList<>(
      admin.getRegions(name));
    assertEquals("BL: 4 regions per RegionServer, one RegionServer", 4, regions.size());
    long total = 0;
    for (org.apache.hadoop.hbase.client.RegionInfo r : regions) {
      long n = 0;
      try (Table t = CLUSTER.hbase().connection().getTable(name); ResultScanner sc = t.getScanner(
        new Scan().withStartRow(r.getStartKey()).withStopRow(r.getEndKey())
          .setFilter(new org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter()))) {
        for (Result ignored : sc) {
          n++;
        }
      }
      total += n;
      // a quarter each, within the sample's error
      assertTrue(r.getRegionNameAsString() + " holds " + n + " of " + rows + " rows",
        n > rows / 4 * 0.7 && n < rows / 4 * 1.3);
    }
    assertEquals(rows, total);
    assertEquals(rows, count(name));
    JsonNode report = new ObjectMapper().readTree(json);
    assertEquals(report.toString(), 1, report.path("resplit").path("regions_before").asInt());
    assertEquals(report.toString(), 4, report.path("resplit").path("regions_after").asInt());
    assertEquals(report.toString(), 3, report.path("resplit").path("points").size());
    // Fig. 3's advice for a write class on one RegionServer
    assertEquals(report.toString(), 4,
      report.path("recommendation").path("clientThreads").path("threads").asInt());
  }

  /**
   * Read loads on a loaded table whose regions PCM has not reopened: point reads are RO-Read and
   * range reads RO-Scan, told apart by the Get/Scan split from the RegionServer's /jmx.
   */
  @Test
  public void pointAndRangeReadsAreToldApart() throws Exception {
    TableName name = TableName.valueOf("pcm_read");
    long rows = 20_000;
    Admin admin = loadedTable(name, rows);
    // The RegionServer publishes a new table's request metrics within its metrics period.
    JmxRequestCounters jmx = new JmxRequestCounters(5000);
    awaitOnJmx("request metrics of " + name, () -> jmx.readOps(name, servers(admin)));
    File work = new File("target/pcm-it/" + System.nanoTime());
    Configuration conf = jmxWindowConf();

    JsonNode gets = classifyUnder(name, conf, new File(work, "gets.json"), t -> {
      java.util.Random rnd = new java.util.Random(7);
      List<org.apache.hadoop.hbase.client.Get> batch = new ArrayList<>();
      for (int i = 0; i < 50; i++) {
        batch.add(new org.apache.hadoop.hbase.client.Get(Bytes.toBytes(
          String.format("row%09d", (long) (rnd.nextDouble() * rows)))));
      }
      for (Result r : t.get(batch)) {
        assertFalse(r.isEmpty());
      }
    });
    assertEquals("RO-Read", gets.path("class").asText());
    // The Get/Scan split comes from /jmx, refreshed every 10 s: on a loaded machine a refresh
    // can slip past a window's end, leaving that window's share unknown (RO-Read by rule). It
    // must be known in one of the last windows at least, and under one half where known.
    JsonNode windows = gets.path("windows");
    int known = 0;
    for (int i = Math.max(0, windows.size() - 5); i < windows.size(); i++) {
      JsonNode w = windows.get(i);
      if (w.path("scanShare").isNumber()) {
        known++;
        assertTrue(w.toString(), w.path("scanShare").asDouble() < 0.5);
      }
    }
    assertTrue("no Get/Scan split in the last windows: " + windows, known > 0);
    JsonNode last;

    // The RegionServer serves /jmx values up to one metrics period (10 s) old: a pause of a
    // period between the phases keeps Gets of the first out of the second's window.
    Thread.sleep(11_000);
    JsonNode scans = classifyUnder(name, conf, new File(work, "scans.json"), t -> {
      java.util.Random rnd = new java.util.Random(11);
      byte[] start = Bytes.toBytes(String.format("row%09d", (long) (rnd.nextDouble() * rows)));
      try (ResultScanner rs = t.getScanner(new Scan().withStartRow(start).setLimit(100)
        .setCaching(20))) {
        for (Result r : rs) {
          assertFalse(r.isEmpty());
        }
      }
    });
    assertEquals("RO-Scan", scans.path("class").asText());
    last = scans.path("windows").get(scans.path("windows").size() - 1);
    assertTrue(last.toString(), last.path("scanShare").asDouble() >= 0.5);
  }

  /**
   * Write loads on a loaded table: Puts to rows that exist are WO-Update and Puts of new rows
   * WO-Insert, told apart by InsertSampler's counts from the RegionServer's /jmx. Without the
   * sampler both were WO-Insert.
   */
  @Test
  public void updatesAndInsertsAreToldApart() throws Exception {
    TableName name = TableName.valueOf("pcm_write");
    long rows = 20_000;
    Admin admin = loadedTable(name, rows);
    JmxRequestCounters jmx = new JmxRequestCounters(5000);
    awaitOnJmx("InsertSampler counts of " + name, () -> jmx.insertCounts(name, servers(admin)));
    File work = new File("target/pcm-it/" + System.nanoTime());
    Configuration conf = jmxWindowConf();
    long readsBefore = readRequests(name);

    JsonNode updates = classifyUnder(name, conf, new File(work, "updates.json"), t -> {
      java.util.Random rnd = new java.util.Random(13);
      List<Put> batch = new ArrayList<>();
      for (int i = 0; i < 50; i++) {
        batch.add(new Put(Bytes.toBytes(String.format("row%09d", (long) (rnd.nextDouble()
          * rows)))).addColumn(FAMILY, Bytes.toBytes("q"), new byte[200]));
      }
      t.put(batch);
    });
    assertEquals(updates.toString(), "WO-Update", updates.path("class").asText());
    JsonNode last = updates.path("windows").get(updates.path("windows").size() - 1);
    assertTrue(last.toString(), last.path("insertShare").asDouble() < 0.5);

    // Values on /jmx are up to one metrics period old: a pause keeps the phases apart.
    Thread.sleep(11_000);
    AtomicLong next = new AtomicLong(rows);
    JsonNode inserts = classifyUnder(name, conf, new File(work, "inserts.json"), t -> {
      List<Put> batch = new ArrayList<>();
      for (int i = 0; i < 50; i++) {
        batch.add(new Put(Bytes.toBytes(String.format("row%09d", next.getAndIncrement())))
          .addColumn(FAMILY, Bytes.toBytes("q"), new byte[200]));
      }
      t.put(batch);
    });
    assertEquals(inserts.toString(), "WO-Insert", inserts.path("class").asText());
    // The sampler's row checks are not client reads: the regions' read counts did not move.
    assertEquals(readsBefore, readRequests(name));
    // Every row is there once: the sampler's checks did not get in the way of a Put.
    assertEquals(next.get(), count(name));
  }

  /** Read requests of the table's regions, as the RegionServer counts them. */
  private static long readRequests(TableName name) {
    long n = 0;
    for (HRegion r : CLUSTER.hbase().regionServer(0).getRegions(name)) {
      n += r.getReadRequestsCount();
    }
    return n;
  }

  /** Creates {@code name} with one family and {@code rows} rows; the cluster's Admin. */
  private static Admin loadedTable(TableName name, long rows) throws Exception {
    Admin admin = CLUSTER.hbase().connection().getAdmin();
    admin.createTable(TableDescriptorBuilder.newBuilder(name)
      .setColumnFamily(ColumnFamilyDescriptorBuilder.of(FAMILY)).build());
    try (Table t = CLUSTER.hbase().connection().getTable(name)) {
      List<Put> batch = new ArrayList<>();
      for (long row = 0; row < rows; row++) {
        batch.add(new Put(Bytes.toBytes(String.format("row%09d", row)))
          .addColumn(FAMILY, Bytes.toBytes("q"), new byte[200]));
        if (batch.size() == 500) {
          t.put(batch);
          batch.clear();
        }
      }
    }
    // The monitor reads the master's view, which the RegionServer refreshes every few seconds:
    // until it shows the load, the table looks empty and a watch begun now would see a bulk load.
    MetricsSource master = new ClusterMetricsSource(admin, null, null);
    long deadline = System.currentTimeMillis() + 60_000;
    while (master.sample(name).writeRequests() < rows) {
      assertTrue("the master's metrics do not show the " + rows + " rows loaded into " + name,
        System.currentTimeMillis() < deadline);
      Thread.sleep(500);
    }
    return admin;
  }

  /** Waits up to a minute for {@code read} to give counts (a new table's metrics appear late). */
  private static void awaitOnJmx(String what, java.util.concurrent.Callable<Object> read)
    throws Exception {
    long deadline = System.currentTimeMillis() + 60_000;
    while (read.call() == null) {
      assertTrue("no " + what + " on /jmx", System.currentTimeMillis() < deadline);
      Thread.sleep(1000);
    }
  }

  /**
   * A one-second monitor whose window spans more than the RegionServer's 10-s refresh of its /jmx
   * values, and 3 stable windows.
   */
  private static Configuration jmxWindowConf() {
    Configuration conf = new Configuration(CLUSTER.hbase().configuration());
    conf.setLong(PcmKeys.INTERVAL_MS, 1000);
    conf.setInt(PcmKeys.WINDOW_SAMPLES, 13);
    conf.setInt(PcmKeys.STABLE_WINDOWS, 3);
    return conf;
  }

  private static java.util.Collection<org.apache.hadoop.hbase.ServerMetrics> servers(Admin admin)
    throws Exception {
    return admin.getClusterMetrics(java.util.EnumSet.of(
      org.apache.hadoop.hbase.ClusterMetrics.Option.LIVE_SERVERS)).getLiveServerMetrics().values();
  }

  /** One client's request against a table. */
  private interface Load {
    void once(Table t) throws Exception;
  }

  /** Runs {@code load} in a loop while {@code strata pcm classify} watches; its JSON report. */
  private static JsonNode classifyUnder(TableName name, Configuration conf, File json, Load load)
    throws Exception {
    AtomicBoolean stop = new AtomicBoolean();
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<?> running = pool.submit(() -> {
        try (Table t = CLUSTER.hbase().connection().getTable(name)) {
          while (!stop.get()) {
            load.once(t);
          }
        }
        return null;
      });
      PcmTool.Request classify = request(name, null);
      classify.maxSamples = 60L;
      classify.json = json;
      assertEquals(0, PcmTool.run("classify", classify, conf));
      stop.set(true);
      running.get(1, TimeUnit.MINUTES);
    } finally {
      stop.set(true);
      pool.shutdownNow();
    }
    return new ObjectMapper().readTree(json);
  }

  private static long count(TableName name) throws Exception {
    long n = 0;
    try (Table t = CLUSTER.hbase().connection().getTable(name);
      ResultScanner s = t.getScanner(new Scan())) {
      for (Result r : s) {
        n++;
      }
    }
    return n;
  }
}
