package io.strata.bench.ycsb;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.strata.bench.ycsb.YcsbRunner.Phase;
import io.strata.local.EmbeddedHBase;
import io.strata.local.TestClusters;
import io.strata.local.TieredDfsCluster;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.Vector;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.Test;
import site.ycsb.ByteIterator;
import site.ycsb.DBException;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;

/**
 * The HBase 2.6 binding against the embedded tiered cluster: its operations called directly, with
 * and without client-side buffering, and YCSB's load and workload A run in a JVM of their own
 * through {@link YcsbRunner}, on a table pre-split by {@link YcsbTable}.
 */
public class HBaseYcsbIT {
  private static final String FAMILY = YcsbTable.DEFAULT_FAMILY;

  private static File workDir;
  private static TieredDfsCluster dfs;
  private static EmbeddedHBase hbase;

  @ClassRule
  public static final TestClusters.Running CLUSTER =
    TestClusters.running(TestClusters.small("ycsb"));

  @BeforeClass
  public static void start() {
    workDir = CLUSTER.config().workDir();
    dfs = CLUSTER.dfs();
    hbase = CLUSTER.hbase();
  }

  /** What a YCSB command line gives the binding to find the cluster. */
  private static Map<String, String> clusterProperties() {
    return Map.of(HConstants.ZOOKEEPER_QUORUM, "localhost", HConstants.ZOOKEEPER_CLIENT_PORT,
      hbase.configuration().get(HConstants.ZOOKEEPER_CLIENT_PORT));
  }

  private static HBaseClient26 client(String table, String... keyValues) throws DBException {
    Properties p = new Properties();
    p.putAll(clusterProperties());
    p.setProperty(HBaseClient26.TABLE, table);
    p.setProperty(HBaseClient26.COLUMN_FAMILY, FAMILY);
    for (int i = 0; i < keyValues.length; i += 2) {
      p.setProperty(keyValues[i], keyValues[i + 1]);
    }
    HBaseClient26 db = new HBaseClient26();
    db.setProperties(p);
    db.init();
    return db;
  }

  private static void createTable(String name) throws IOException {
    try (Admin admin = hbase.connection().getAdmin()) {
      YcsbTable.create(admin, TableName.valueOf(name), FAMILY, 1);
    }
  }

  private static Map<String, ByteIterator> fields(String... keyValues) {
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < keyValues.length; i += 2) {
      m.put(keyValues[i], keyValues[i + 1]);
    }
    return StringByteIterator.getByteIteratorMap(m);
  }

  private static Map<String, String> strings(Map<String, ByteIterator> values) {
    Map<String, String> m = new TreeMap<>();
    values.forEach((k, v) -> m.put(k, new String(v.toArray(), StandardCharsets.UTF_8)));
    return m;
  }

  private static Map<String, String> read(HBaseClient26 db, String table, String key,
    Set<String> fields) {
    Map<String, ByteIterator> out = new HashMap<>();
    Status s = db.read(table, key, fields, out);
    return s == Status.OK ? strings(out) : Map.of("status", s.getName());
  }

  private static List<Map<String, String>> scan(HBaseClient26 db, String table, String start,
    int count, Set<String> fields) {
    Vector<HashMap<String, ByteIterator>> rows = new Vector<>();
    assertEquals(Status.OK, db.scan(table, start, count, fields, rows));
    return rows.stream().map(HBaseYcsbIT::strings).toList();
  }

  private static final Map<String, String> NOT_FOUND = Map.of("status", "NOT_FOUND");

  @Test
  public void bindingReadsScansUpdatesAndDeletes() throws Exception {
    String t = "ycsb_binding";
    createTable(t);
    HBaseClient26 db = client(t);
    try {
      assertEquals(Status.OK, db.insert(t, "user1", fields("field0", "a0", "field1", "a1",
        "field2", "a2")));
      assertEquals(Status.OK, db.insert(t, "user2", fields("field0", "b0", "field1", "b1",
        "field2", "b2")));
      assertEquals(Status.OK, db.insert(t, "user3", fields("field0", "c0", "field1", "c1",
        "field2", "c2")));

      assertEquals(Map.of("field0", "a0", "field1", "a1", "field2", "a2"),
        read(db, t, "user1", null));
      assertEquals(Map.of("field1", "b1", "field2", "b2"),
        read(db, t, "user2", Set.of("field1", "field2")));
      assertEquals(NOT_FOUND, read(db, t, "user4", null));

      assertEquals(Status.OK, db.update(t, "user1", fields("field0", "A0")));
      assertEquals(Map.of("field0", "A0", "field1", "a1", "field2", "a2"),
        read(db, t, "user1", null));

      assertEquals(List.of(Map.of("field0", "A0", "field1", "a1", "field2", "a2"),
        Map.of("field0", "b0", "field1", "b1", "field2", "b2")),
        scan(db, t, "user1", 2, null));
      assertEquals(List.of(Map.of("field2", "b2"), Map.of("field2", "c2")),
        scan(db, t, "user15", 10, Set.of("field2")));
      assertEquals(List.of(), scan(db, t, "user4", 10, null));

      assertEquals(Status.OK, db.delete(t, "user2"));
      assertEquals(NOT_FOUND, read(db, t, "user2", null));
      assertEquals(List.of(Map.of("field1", "a1"),
        Map.of("field1", "c1")), scan(db, t, "user", 10, Set.of("field1")));
    } finally {
      db.cleanup();
    }
    assertEquals(0, HBaseClient26.connectionReferences());
  }

  @Test
  public void clientBufferingHoldsWritesUntilCleanup() throws Exception {
    String t = "ycsb_buffered";
    createTable(t);
    HBaseClient26 reader = client(t);
    try {
      HBaseClient26 writer = client(t, HBaseClient26.CLIENT_BUFFERING, "true",
        HBaseClient26.DURABILITY, "async_wal");
      assertEquals("one shared connection", 2, HBaseClient26.connectionReferences());
      for (int i = 0; i < 10; i++) {
        assertEquals(Status.OK, writer.insert(t, "user" + i, fields("field0", "v" + i)));
      }
      // 10 small Puts stay in the 12 MiB write buffer
      assertEquals(NOT_FOUND, read(reader, t, "user0", null));
      writer.cleanup();
      assertEquals(1, HBaseClient26.connectionReferences());
      for (int i = 0; i < 10; i++) {
        assertEquals(Map.of("field0", "v" + i), read(reader, t, "user" + i, null));
      }

      HBaseClient26 deleter = client(t, HBaseClient26.CLIENT_BUFFERING, "true");
      assertEquals(Status.OK, deleter.delete(t, "user3"));
      assertEquals(Map.of("field0", "v3"), read(reader, t, "user3", null));
      deleter.cleanup();
      assertEquals(NOT_FOUND, read(reader, t, "user3", null));
      assertEquals(9, scan(reader, t, "user", 100, null).size());
    } finally {
      reader.cleanup();
    }
    assertEquals(0, HBaseClient26.connectionReferences());
  }

  @Test
  public void initFailsWithoutTableOrFamily() throws Exception {
    String t = "ycsb_init";
    createTable(t);
    for (String[] props : new String[][] { { HBaseClient26.TABLE, "no_such_table" },
      { HBaseClient26.COLUMN_FAMILY, "no_such_family" }, { HBaseClient26.COLUMN_FAMILY, "" },
      { HBaseClient26.DURABILITY, "sometimes" } }) {
      try {
        client(t, props).cleanup();
        fail("init accepted " + String.join("=", props));
      } catch (DBException expected) {
        assertEquals(0, HBaseClient26.connectionReferences());
      }
    }
  }

  @Test
  public void ycsbLoadsAndRunsWorkloadAInItsOwnJvm() throws Exception {
    TableName usertable = YcsbTable.DEFAULT_TABLE;
    int regions = 4;
    try (Admin admin = hbase.connection().getAdmin()) {
      YcsbTable.dropIfExists(admin, usertable);
      YcsbTable.create(admin, usertable, FAMILY, regions);
    }
    Path out = workDir.toPath().toAbsolutePath().resolve("ycsb");
    YcsbRunner runner = new YcsbRunner(YcsbWorkloads.write(YcsbWorkloads.A, out))
      .properties(clusterProperties()).property("recordcount", "1000")
      .property("operationcount", "2000").threads(2).jvmOption("-Xmx512m")
      .timeout(Duration.ofMinutes(3));

    YcsbRun load = runner.execute(Phase.LOAD, out.resolve("load"));
    YcsbReport.Operation insert = load.report().operation("INSERT");
    assertEquals(1000, insert.count());
    assertEquals(1000, insert.returned("OK"));
    assertEquals(0, load.report().failedOperations());

    // every row is there, and the pre-split spread them over all regions
    int[] perRegion = new int[regions];
    try (RegionLocator locator = hbase.connection().getRegionLocator(usertable);
      Table table = hbase.connection().getTable(usertable);
      ResultScanner scanner = table.getScanner(new Scan())) {
      byte[][] starts = locator.getStartKeys();
      assertEquals(regions, starts.length);
      for (Result r : scanner) {
        int region = regions - 1;
        while (Bytes.compareTo(r.getRow(), starts[region]) < 0) {
          region--;
        }
        perRegion[region]++;
      }
    }
    assertEquals(1000, perRegion[0] + perRegion[1] + perRegion[2] + perRegion[3]);
    for (int n : perRegion) {
      assertTrue(Arrays.toString(perRegion), n > 1000 / regions / 2);
    }

    YcsbRun run = runner.execute(Phase.TRANSACTIONS, out.resolve("run"));
    YcsbReport r = run.report();
    YcsbReport.Operation reads = r.operation("READ");
    YcsbReport.Operation updates = r.operation("UPDATE");
    assertEquals(2000, reads.count() + updates.count());
    assertEquals(reads.count(), reads.returned("OK"));
    assertEquals(updates.count(), updates.returned("OK"));
    assertEquals(0, r.failedOperations());
    assertTrue(r.throughputOpsPerSec() > 0);
    for (YcsbReport.Operation op : List.of(reads, updates)) {
      assertTrue(op.toString(), op.count() > 500);
      assertTrue(op.toString(), op.percentileUs(50).getAsDouble() > 0);
      assertTrue(op.toString(), op.percentileUs(99).getAsDouble() > 0);
      assertTrue(op.toString(), op.percentileUs(99.9).getAsDouble() > 0);
      assertTrue(op.toString(), op.percentileUs(99.99).getAsDouble()
        >= op.percentileUs(99.9).getAsDouble());
    }

    // Reads of keys never loaded: YCSB counts them as NOT_FOUND, not as errors of the binding.
    YcsbRun missing = new YcsbRunner(YcsbWorkloads.write(YcsbWorkloads.C, out))
      .properties(clusterProperties()).property("recordcount", "2000")
      .property("operationcount", "400").property("requestdistribution", "uniform")
      .jvmOption("-Xmx512m").timeout(Duration.ofMinutes(3))
      .execute(Phase.TRANSACTIONS, out.resolve("missing"));
    YcsbReport.Operation missingReads = missing.report().operation("READ");
    assertEquals(400, missingReads.returnedTotal());
    assertEquals(400, missingReads.returned("OK") + missingReads.returned("NOT_FOUND"));
    // YCSB times failed operations apart
    assertEquals(missingReads.returned("OK"), missingReads.count());
    assertEquals(missingReads.returned("NOT_FOUND"),
      missing.report().operation("READ-FAILED").count());
    assertTrue(missingReads.toString(), missingReads.returned("OK") > 100);
    assertTrue(missingReads.toString(), missingReads.returned("NOT_FOUND") > 100);
    assertEquals(missingReads.returned("NOT_FOUND"), missing.report().failedOperations());

    System.out.printf("YCSB load: %.0f ops/s, %s (%d ms wall)%n",
      load.report().throughputOpsPerSec(), insert, load.elapsed().toMillis());
    System.out.printf("YCSB workload A: %.0f ops/s, %s; %s (%d ms wall)%n",
      r.throughputOpsPerSec(), reads, updates, run.elapsed().toMillis());
  }
}
