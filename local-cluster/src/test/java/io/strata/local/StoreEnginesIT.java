package io.strata.local;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.strata.hbase.placement.FileKind;
import io.strata.hbase.placement.PlacedFile;
import io.strata.hbase.placement.PlacementReport;
import io.strata.hbase.placement.PlacementScanner;
import io.strata.hbase.tiering.StoreEngines;
import io.strata.hbase.tiering.TieringKeys;
import io.strata.hbase.tiering.TieredDateTieredStoreEngine;
import io.strata.hbase.tiering.TieredStoreEngine;
import io.strata.hbase.tiering.TieredStripeStoreEngine;
import io.strata.hbase.tiering.PlacementOffWarning;
import io.strata.hbase.tiering.TieringValidator;
import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.regionserver.DateTieredStoreEngine;
import org.apache.hadoop.hbase.regionserver.compactions.CompactionConfiguration;
import org.apache.hadoop.hbase.regionserver.compactions.ExponentialCompactionWindowFactory;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.log4j.AppenderSkeleton;
import org.apache.log4j.Level;
import org.apache.log4j.spi.LoggingEvent;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.Test;

/**
 * Store engines other than HBase's default on a site running {@link TieredStoreEngine}, on a
 * real tiered MiniDFSCluster with real HBase: a family on upstream's date-tiered engine is warned
 * of at create time and named in the placement report; a family on
 * {@link TieredDateTieredStoreEngine} gets its flushed file on ALL_SSD (every replica on SSD) as
 * a default family does, its major compaction output on Strata's compaction policy, or on
 * upstream's window policy when the family enables date-tiered storage policies; a family on
 * {@link TieredStripeStoreEngine} gets its flushed file on ALL_SSD too. A date-tiered family
 * with hot, warm and cold window policies gets each window's compaction output on its window
 * policy's storage types.
 */
public class StoreEnginesIT {
  private static final String TIERED_DATE = TieredDateTieredStoreEngine.class.getName();
  private static final String UPSTREAM_DATE = DateTieredStoreEngine.class.getName();

  @ClassRule
  public static final TestClusters.Running CLUSTER =
    TestClusters.running(TestClusters.small("engines"));

  /** WARN lines of the master's validator while the class runs. */
  private static final List<String> WARNINGS = new CopyOnWriteArrayList<>();
  /** WARN lines of the RegionServer's per-store check while the class runs. */
  private static final List<String> STORE_WARNINGS = new CopyOnWriteArrayList<>();
  private static final AppenderSkeleton CAPTURE = new AppenderSkeleton() {
    @Override
    protected void append(LoggingEvent e) {
      if (e.getLevel().isGreaterOrEqual(Level.WARN)
        && TieringValidator.class.getName().equals(e.getLoggerName())) {
        WARNINGS.add(e.getRenderedMessage());
      }
      if (e.getLevel().isGreaterOrEqual(Level.WARN)
        && PlacementOffWarning.class.getName().equals(e.getLoggerName())) {
        STORE_WARNINGS.add(e.getRenderedMessage());
      }
    }

    @Override
    public void close() {
    }

    @Override
    public boolean requiresLayout() {
      return false;
    }
  };

  @BeforeClass
  public static void capture() {
    org.apache.log4j.Logger.getRootLogger().addAppender(CAPTURE);
  }

  @AfterClass
  public static void release() {
    org.apache.log4j.Logger.getRootLogger().removeAppender(CAPTURE);
  }

  private static ColumnFamilyDescriptor family(String name, String... keyValues) {
    ColumnFamilyDescriptorBuilder b = ColumnFamilyDescriptorBuilder.newBuilder(Bytes.toBytes(name));
    for (int i = 0; i < keyValues.length; i += 2) {
      b.setConfiguration(keyValues[i], keyValues[i + 1]);
    }
    return b.build();
  }

  /**
   * A family on the tiered date-tiered engine with upstream's window policies on: hot (up to a
   * day) on {@code hotPolicy}, warm (up to 7 days) on ONE_SSD, cold on COLD, plus
   * {@code keyValues}.
   */
  private static ColumnFamilyDescriptor windowsFamily(String hotPolicy, String... keyValues) {
    long day = 86_400_000L;
    List<String> kv = new ArrayList<>(List.of(StoreEngines.KEY, TIERED_DATE,
      CompactionConfiguration.DATE_TIERED_STORAGE_POLICY_ENABLE_KEY, "true",
      CompactionConfiguration.DATE_TIERED_HOT_WINDOW_AGE_MILLIS_KEY, Long.toString(day),
      CompactionConfiguration.DATE_TIERED_HOT_WINDOW_STORAGE_POLICY_KEY, hotPolicy,
      CompactionConfiguration.DATE_TIERED_WARM_WINDOW_AGE_MILLIS_KEY, Long.toString(7 * day),
      CompactionConfiguration.DATE_TIERED_WARM_WINDOW_STORAGE_POLICY_KEY, "ONE_SSD",
      CompactionConfiguration.DATE_TIERED_COLD_WINDOW_STORAGE_POLICY_KEY, "COLD"));
    kv.addAll(List.of(keyValues));
    return family("ts", kv.toArray(new String[0]));
  }

  private static void writeAndFlush(TableName table, String... families) throws IOException {
    EmbeddedHBase hbase = CLUSTER.hbase();
    try (Table t = hbase.connection().getTable(table)) {
      List<Put> puts = new ArrayList<>();
      for (int i = 0; i < 500; i++) {
        Put p = new Put(Bytes.toBytes(String.format("r%06d-%d", i, System.nanoTime())));
        for (String f : families) {
          p.addColumn(Bytes.toBytes(f), Bytes.toBytes("q"), new byte[512]);
        }
        puts.add(p);
      }
      t.put(puts);
    }
    hbase.connection().getAdmin().flush(table);
  }

  private static PlacementReport report() throws IOException {
    return new PlacementScanner(CLUSTER.dfs().fileSystem(), CLUSTER.hbase().configuration())
      .scan(CLUSTER.hbase().rootDir());
  }

  private static List<PlacedFile> files(TableName table, String family, FileKind kind)
    throws IOException {
    List<PlacedFile> files = new ArrayList<>();
    String prefix = "/hbase/data/default/" + table.getNameAsString() + "/";
    for (PlacedFile f : report().files()) {
      if (f.kind() == kind && f.path().startsWith(prefix)
        && f.path().contains("/" + family + "/")) {
        files.add(f);
      }
    }
    return files;
  }

  /** Per file of one kind of a family: the policy HDFS reports, and its replicas' types. */
  private static List<String> placement(TableName table, String family, FileKind kind)
    throws IOException {
    List<String> out = new ArrayList<>();
    for (PlacedFile f : files(table, family, kind)) {
      Set<StorageType> types = f.replicas().isEmpty() ? EnumSet.noneOf(StorageType.class)
        : EnumSet.copyOf(f.replicas().keySet());
      out.add(CLUSTER.dfs().fileSystem().getStoragePolicy(new Path(f.path())).getName() + " "
        + types);
    }
    return out;
  }

  private static void majorCompactAndWait(TableName table, String family) throws Exception {
    CLUSTER.hbase().connection().getAdmin().majorCompact(table, Bytes.toBytes(family));
    long deadline = System.currentTimeMillis() + 120_000;
    while (files(table, family, FileKind.COMPACTED).size() != 1
      || !files(table, family, FileKind.FLUSHED).isEmpty()) {
      assertTrue("the major compaction of '" + family + "' did not finish within 120 s",
        System.currentTimeMillis() < deadline);
      Thread.sleep(500);
    }
  }

  @Test(timeout = 600_000)
  public void tieredDateTieredFamilyIsPlacedAndUpstreamDateTieredFamilyIsWarnedOf()
    throws Exception {
    Admin admin = CLUSTER.hbase().connection().getAdmin();
    TableName table = TableName.valueOf("engines");
    String windows = CompactionConfiguration.DATE_TIERED_STORAGE_POLICY_ENABLE_KEY;
    admin.createTable(TableDescriptorBuilder.newBuilder(table)
      .setColumnFamily(family("plain"))
      .setColumnFamily(family("tdt", StoreEngines.KEY, TIERED_DATE))
      .setColumnFamily(family("tdtw", StoreEngines.KEY, TIERED_DATE, windows, "true",
        CompactionConfiguration.DATE_TIERED_HOT_WINDOW_STORAGE_POLICY_KEY, "ONE_SSD",
        CompactionConfiguration.DATE_TIERED_WARM_WINDOW_STORAGE_POLICY_KEY, "ONE_SSD",
        CompactionConfiguration.DATE_TIERED_COLD_WINDOW_STORAGE_POLICY_KEY, "ONE_SSD"))
      .setColumnFamily(family("dt", StoreEngines.KEY, UPSTREAM_DATE))
      .setColumnFamily(family("tst", StoreEngines.KEY, TieredStripeStoreEngine.class.getName()))
      .build());

    // One WARN, for the family on upstream's engine, naming the table, family and engine.
    List<String> engineWarnings = new ArrayList<>();
    for (String w : WARNINGS) {
      if (w.contains("Strata's placement is off")) {
        engineWarnings.add(w);
      }
    }
    assertEquals(engineWarnings.toString(), 1, engineWarnings.size());
    String warning = engineWarnings.get(0);
    assertTrue(warning, warning.contains("Table engines family dt:"));
    assertTrue(warning, warning.contains(UPSTREAM_DATE));

    // And one WARN from the RegionServer that opened the table's region, for that store only.
    List<String> storeWarnings = new ArrayList<>();
    for (String w : STORE_WARNINGS) {
      if (w.contains("(table engines,")) {
        storeWarnings.add(w);
      }
    }
    assertEquals(storeWarnings.toString(), 1, storeWarnings.size());
    assertTrue(storeWarnings.get(0), storeWarnings.get(0).contains("family dt): Strata's "
      + "placement is off") && storeWarnings.get(0).contains(UPSTREAM_DATE));

    writeAndFlush(table, "plain", "tdt", "tdtw", "dt", "tst");
    String allSsd = "ALL_SSD " + EnumSet.of(StorageType.SSD);
    assertEquals(List.of(allSsd), placement(table, "plain", FileKind.FLUSHED));
    assertEquals(List.of(allSsd), placement(table, "tdt", FileKind.FLUSHED));
    assertEquals(List.of(allSsd), placement(table, "tdtw", FileKind.FLUSHED));
    assertEquals(List.of(allSsd), placement(table, "tst", FileKind.FLUSHED));
    List<String> upstream = placement(table, "dt", FileKind.FLUSHED);
    assertEquals(upstream.toString(), 1, upstream.size());
    assertNotEquals("upstream's date-tiered engine places nothing", allSsd, upstream.get(0));

    PlacementReport report = report();
    assertEquals(TIERED_DATE, report.familyEngines().get("engines/tdt"));
    assertEquals(UPSTREAM_DATE, report.familyEngines().get("engines/dt"));
    assertEquals(TieredStoreEngine.class.getName(), report.familyEngines().get("engines/plain"));
    assertEquals(false, report.toJson().get("families").get("engines/dt").get("engine_places")
      .asBoolean());

    // Compaction outputs: Strata's small-compaction policy (ALL_SSD) without upstream's windows,
    // upstream's window policy (ONE_SSD: one replica on SSD, two on DISK) with them.
    writeAndFlush(table, "tdt", "tdtw");
    majorCompactAndWait(table, "tdt");
    majorCompactAndWait(table, "tdtw");
    assertEquals(List.of(allSsd), placement(table, "tdt", FileKind.COMPACTED));
    assertEquals(List.of("ONE_SSD " + EnumSet.of(StorageType.SSD, StorageType.DISK)),
      placement(table, "tdtw", FileKind.COMPACTED));
    // The report names the rule behind each: the window for the family with window policies.
    List<PlacedFile> windowed = files(table, "tdtw", FileKind.COMPACTED);
    assertEquals("ONE_SSD", windowed.get(0).rule().policy());
    assertTrue(windowed.get(0).rule().rule(),
      windowed.get(0).rule().rule().startsWith("date-tiered window hot"));
    assertTrue(windowed.get(0).ageMs() != null && windowed.get(0).ageMs() < 600_000);
    String sized = files(table, "tdt", FileKind.COMPACTED).get(0).rule().rule();
    assertTrue(sized, sized.startsWith("Strata default; file size < "));
    // strata migrate keeps the window's policy rather than Strata's compaction policy.
    java.io.ByteArrayOutputStream console = new java.io.ByteArrayOutputStream();
    int code = io.strata.hbase.tiering.MigrateTool.migrate(CLUSTER.hbase().configuration(),
      "engines", "tdtw", null, null, 300, true,
      new java.io.PrintStream(console, true, java.nio.charset.StandardCharsets.UTF_8));
    String out = console.toString(java.nio.charset.StandardCharsets.UTF_8);
    assertEquals(out, 0, code);
    assertTrue(out, !out.contains("queued compacted"));
    assertEquals(List.of("ONE_SSD " + EnumSet.of(StorageType.SSD, StorageType.DISK)),
      placement(table, "tdtw", FileKind.COMPACTED));
  }

  /**
   * A date-tiered family with upstream's window storage policies whose data spans the hot, warm
   * and cold windows: one flush of cells 10 minutes, 3 days and 30 days old, then a major
   * compaction, which writes one output per window. Each output's replicas sit on its window
   * policy's storage types (hot ALL_SSD: SSD; warm ONE_SSD: one SSD, two DISK; cold COLD:
   * ARCHIVE), and the report names the family's engine and, per file, its age and the window
   * rule behind its policy.
   */
  @Test(timeout = 300_000)
  public void dateTieredWindowsPlaceHotWarmAndColdFilesOnTheirTiers() throws Exception {
    TableName table = TableName.valueOf("windows");
    long hour = 3_600_000L;
    long day = 24 * hour;
    CLUSTER.hbase().connection().getAdmin().createTable(TableDescriptorBuilder.newBuilder(table)
      .setColumnFamily(windowsFamily("ALL_SSD",
        // hour-long windows growing fourfold per tier: the 3-day-old cells' window starts
        // less than a week ago (warm), the 30-day-old cells are in the oldest output (cold)
        ExponentialCompactionWindowFactory.BASE_WINDOW_MILLIS_KEY, Long.toString(hour),
        ExponentialCompactionWindowFactory.WINDOWS_PER_TIER_KEY, "4"))
      .build());
    long now = System.currentTimeMillis();
    long[] ages = { 10 * 60_000L, 3 * day, 30 * day };
    try (Table t = CLUSTER.hbase().connection().getTable(table)) {
      List<Put> puts = new ArrayList<>();
      for (long age : ages) {
        for (int i = 0; i < 300; i++) {
          // one timestamp per age: each group falls in exactly one window
          puts.add(new Put(Bytes.toBytes(String.format("s%04d-%d", i, age)))
            .addColumn(Bytes.toBytes("ts"), Bytes.toBytes("q"), now - age, new byte[512]));
        }
      }
      t.put(puts);
    }
    CLUSTER.hbase().connection().getAdmin().flush(table);
    assertEquals(List.of("ALL_SSD " + EnumSet.of(StorageType.SSD)),
      placement(table, "ts", FileKind.FLUSHED));

    CLUSTER.hbase().connection().getAdmin().majorCompact(table, Bytes.toBytes("ts"));
    long deadline = System.currentTimeMillis() + 120_000;
    while (files(table, "ts", FileKind.COMPACTED).size() != 3
      || !files(table, "ts", FileKind.FLUSHED).isEmpty()) {
      assertTrue("the major compaction of 'ts' did not leave three window outputs within 120 s: "
        + files(table, "ts", FileKind.COMPACTED).size() + " compacted, "
        + files(table, "ts", FileKind.FLUSHED).size() + " flushed",
        System.currentTimeMillis() < deadline);
      Thread.sleep(500);
    }

    // Oldest first: cold, warm, hot. Policy and replica types of each window's output.
    List<PlacedFile> outputs = files(table, "ts", FileKind.COMPACTED);
    outputs.sort((a, b) -> Long.compare(b.ageMs(), a.ageMs()));
    List<String> got = new ArrayList<>();
    for (PlacedFile f : outputs) {
      got.add(CLUSTER.dfs().fileSystem().getStoragePolicy(new Path(f.path())).getName() + " "
        + EnumSet.copyOf(f.replicas().keySet()));
    }
    assertEquals(List.of("COLD " + EnumSet.of(StorageType.ARCHIVE),
      "ONE_SSD " + EnumSet.of(StorageType.SSD, StorageType.DISK),
      "ALL_SSD " + EnumSet.of(StorageType.SSD)), got);
    // ONE_SSD: one replica per block on SSD, the other two on DISK
    PlacedFile warm = outputs.get(1);
    assertEquals(warm.replicas().toString(), 2 * warm.replicas().get(StorageType.SSD),
      (long) warm.replicas().get(StorageType.DISK));

    // The report's JSON: the family's engine; per file its age and the window rule.
    JsonNode json = report().toJson(true);
    assertEquals(TIERED_DATE, json.get("families").get("windows/ts").get("engine").asText());
    String[] windows = { "cold", "warm", "hot" };
    String[] policies = { "COLD", "ONE_SSD", "ALL_SSD" };
    int seen = 0;
    for (JsonNode f : json.get("files")) {
      for (int w = 0; w < outputs.size(); w++) {
        if (!f.get("path").asText().equals(outputs.get(w).path())) {
          continue;
        }
        seen++;
        long ageMs = f.get("age_ms").asLong();
        assertTrue(f.toString(), ageMs >= ages[2 - w] && ageMs < ages[2 - w] + 600_000);
        assertEquals(f.toString(), policies[w], f.get("policy").asText());
        String rule = f.get("rule").asText();
        assertTrue(f.toString(), rule.startsWith("date-tiered window " + windows[w] + " ")
          && rule.contains("hbase.hstore.compaction.date.tiered." + windows[w]
            + ".window.storage.policy"));
      }
    }
    assertEquals(json.get("files").toString(), 3, seen);
  }

  /**
   * A major compaction of a date-tiered family whose cells are all recent keeps them on the hot
   * window's policy. Upstream keys the oldest output's window {@code Long.MIN_VALUE} and gives it
   * the cold window's policy whatever its age, which would rewrite fresh data onto ARCHIVE;
   * Strata's date-tiered compaction policy gives it the policy of its oldest cell's age, as the
   * placement report judges it.
   */
  @Test(timeout = 300_000)
  public void majorCompactionOfRecentCellsStaysOnTheHotWindowsPolicy() throws Exception {
    TableName table = TableName.valueOf("recent_windows");
    CLUSTER.hbase().connection().getAdmin().createTable(TableDescriptorBuilder.newBuilder(table)
      .setColumnFamily(windowsFamily("ALL_SSD"))
      .build());
    writeAndFlush(table, "ts");
    writeAndFlush(table, "ts");
    majorCompactAndWait(table, "ts");
    assertEquals("one output of cells written a moment ago: on the hot window's policy, not on "
      + "the cold one upstream gives a major compaction's oldest output",
      List.of("ALL_SSD " + EnumSet.of(StorageType.SSD)),
      placement(table, "ts", FileKind.COMPACTED));
    JsonNode json = report().toJson(true);
    for (JsonNode f : json.get("files")) {
      if (f.get("path").asText().contains("/recent_windows/")
        && "compacted".equals(f.get("kind").asText())) {
        assertEquals(f.toString(), "ALL_SSD", f.get("policy").asText());
        assertTrue(f.toString(), f.get("rule").asText().startsWith("date-tiered window hot "));
      }
    }
  }

  /**
   * The documented precedence on a tiered date-tiered family with upstream's window policies
   * and Strata's own keys on the same family: the window policy HBase chooses for a compaction
   * output wins over the family's {@code strata.compaction.*} keys, the family's
   * {@code strata.flush.storage.policy} still places its flushes, and the report names the rule
   * that decided each file.
   */
  @Test(timeout = 300_000)
  public void windowPoliciesDecideCompactionOutputsAndStrataKeysTheRest() throws Exception {
    TableName table = TableName.valueOf("windows_and_keys");
    CLUSTER.hbase().connection().getAdmin().createTable(TableDescriptorBuilder.newBuilder(table)
      .setColumnFamily(windowsFamily("HOT",
        TieringKeys.FLUSH_POLICY, "ONE_SSD",
        TieringKeys.COMPACTION_SMALL_POLICY, "ALL_SSD",
        TieringKeys.COMPACTION_LARGE_POLICY, "ALL_SSD"))
      .build());
    writeAndFlush(table, "ts");
    assertEquals("the family's strata.flush.storage.policy places its flush",
      List.of("ONE_SSD " + EnumSet.of(StorageType.SSD, StorageType.DISK)),
      placement(table, "ts", FileKind.FLUSHED));
    writeAndFlush(table, "ts");
    majorCompactAndWait(table, "ts");
    assertEquals("the hot window's HOT wins over the family's strata.compaction keys (ALL_SSD)",
      List.of("HOT " + EnumSet.of(StorageType.DISK)), placement(table, "ts", FileKind.COMPACTED));
    for (JsonNode f : report().toJson(true).get("files")) {
      if (f.get("path").asText().contains("/windows_and_keys/")
        && "compacted".equals(f.get("kind").asText())) {
        assertEquals(f.toString(), "HOT", f.get("policy").asText());
        assertTrue(f.toString(), f.get("rule").asText().startsWith("date-tiered window hot "));
      }
    }
  }
}
