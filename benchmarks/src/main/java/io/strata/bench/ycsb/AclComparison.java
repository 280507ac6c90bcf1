package io.strata.bench.ycsb;

import io.strata.local.EmbeddedHBase;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.BufferedMutatorParams;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter;
import org.apache.hadoop.hbase.security.AccessDeniedException;
import org.apache.hadoop.hbase.security.User;
import org.apache.hadoop.hbase.security.access.AccessControlClient;
import org.apache.hadoop.hbase.security.access.AccessControlConstants;
import org.apache.hadoop.hbase.security.access.Permission;
import org.apache.hadoop.hbase.security.access.UserPermission;
import org.apache.hadoop.hbase.util.Bytes;
import site.ycsb.Utils;

/**
 * YCSB++'s access-control cost (its Appendix A, Figures 17 and 19) on HBase: inserts and scans of
 * YCSB's records by one user that is not a superuser ({@link #USER}), on a cluster without HBase's
 * {@code AccessController} and on one with it, the ACL of each table holding 0, 4 or 11 entries.
 * At table level the table carries grants to N users, {@link #USER} among them (read and write);
 * at cell level {@link #USER} may only write the table, and every cell carries an ACL of N users
 * ({@code Put#setACL}), {@link #USER} among them, that grants the reads: the scans are filtered
 * cell by cell by the {@code AccessController}. The tables of the cell level turn HBase's early
 * out off ({@code hbase.security.access.early_out=false} in the table descriptor) so that a user
 * without a table grant reads through cell ACLs instead of being refused. The two clusters run
 * side by side on one HDFS (two HBase instances, each its own root and ZooKeeper), each warmed up
 * by one untimed variant; every protected run is paired with a baseline run next to it, the
 * baseline going first every other pair (ABBA), and its ratios are taken against that one, so
 * that the machine's drift falls on both. Every variant
 * is checked after its timing: every row loaded, every scanned row with all its fields readable,
 * and, with the {@code AccessController}, a user without grants refused
 * ({@code AccessDeniedException} on a put; refused or shown nothing on a scan), the table's grants
 * read back, and the last user of the cell ACLs (no table grant) reads a row's fields. A run that
 * finds a check failing throws rather than report an unprotected path. Not thread-safe: one run
 * at a time.
 */
public final class AclComparison {
  /** The user that inserts and scans: not a superuser, so that the checks happen. */
  public static final String USER = "ycsb";
  /** A user without any grant: what the proof of each protected variant tries. */
  public static final String OUTSIDER = "ycsb_outsider";
  /** The paper's entries (single client, Figure 17; scans Figure 19: 40-50 % less). */
  public static final List<Integer> DEFAULT_ENTRIES = List.of(4, 11);
  /** YCSB++'s client buffer for inserts (100 KB in the paper). */
  public static final long DEFAULT_BUFFER_BYTES = 100 << 10;

  /**
   * Starts HBase with or without the {@code AccessController}, on a fresh root directory; the two
   * run at the same time, so each needs its own root and ZooKeeper.
   */
  @FunctionalInterface
  public interface Clusters {
    EmbeddedHBase start(boolean accessControl) throws IOException;
  }

  /**
   * Told of each step as it starts and of the cluster it runs on (null while clusters start),
   * so that monitoring reads the cluster actually working.
   */
  @FunctionalInterface
  public interface Steps {
    void step(String phase, EmbeddedHBase cluster) throws IOException;
  }

  /**
   * @param records rows inserted per variant and round
   * @param threads client threads inserting, then scanning
   * @param entries ACL entries of the protected variants (each at table and at cell level)
   * @param rounds rounds of the protected variants (their order reversed every other round),
   *   each next to a baseline run
   * @param scanLength rows per scan (YCSB++: 1,000 from a random start key)
   * @param scanRows rows scanned per variant and round, at least
   * @param regions regions the table is pre-split into
   * @param fieldCount YCSB's fields per record
   * @param fieldLength bytes per field
   * @param bufferBytes client write buffer per inserting thread
   */
  public record Settings(long records, int threads, List<Integer> entries, int rounds,
    int scanLength, long scanRows, int regions, int fieldCount, int fieldLength,
    long bufferBytes) {
    public Settings {
      for (int n : entries) {
        if (n < 1) {
          throw new IllegalArgumentException("ACL entries must be 1 or more (the user that "
            + "inserts and scans is one of them), not " + n);
        }
      }
    }
  }

  /**
   * One timed insert and scan of one variant; for a protected variant, the baseline run next to
   * it ({@code baseline}, else null) that its ratios are taken against.
   */
  public record Round(int round, long rows, double insertSeconds, long scannedRows,
    double scanSeconds, Round baseline) {
    public double insertOpsPerSec() {
      return rows / insertSeconds;
    }

    public double scanRowsPerSec() {
      return scannedRows / scanSeconds;
    }

    Round against(Round base) {
      return new Round(round, rows, insertSeconds, scannedRows, scanSeconds, base);
    }

    /** Inserts/s over the adjacent baseline's; 1 for a baseline run. */
    public double insertRatio() {
      return baseline == null ? 1.0 : insertOpsPerSec() / baseline.insertOpsPerSec();
    }

    public double scanRatio() {
      return baseline == null ? 1.0 : scanRowsPerSec() / baseline.scanRowsPerSec();
    }
  }

  /**
   * What showed the variant's ACLs in effect (or, without the {@code AccessController}, that
   * nothing was checked).
   *
   * @param outsiderPutDenied a put by {@link #OUTSIDER} was refused
   * @param outsiderScanDenied a scan by {@link #OUTSIDER} was refused
   * @param outsiderScanRows rows {@link #OUTSIDER}'s scan returned when not refused
   * @param tableGrants users with a grant on the table, read back from the master (the table's
   *   creator, whom HBase grants all rights, not counted)
   * @param cellReaderCells fields of one row that the last user of the cell ACLs read (it has
   *   no table grant); -1 when the variant has no cell ACLs
   */
  public record Proof(boolean outsiderPutDenied, boolean outsiderScanDenied,
    long outsiderScanRows, int tableGrants, int cellReaderCells) {
  }

  /** A variant: level none (no AccessController), table or cell, with its entries. */
  public record Variant(String level, int entries, List<Round> rounds, Proof proof) {
    public double insertOpsPerSec() {
      return rounds.stream().mapToDouble(Round::insertOpsPerSec).average().orElse(Double.NaN);
    }

    public double scanRowsPerSec() {
      return rounds.stream().mapToDouble(Round::scanRowsPerSec).average().orElse(Double.NaN);
    }

    String label() {
      return "none".equals(level) ? "no AccessController" : level + ", " + entries + " entries";
    }
  }

  /** Paper's insert throughput relative to no security (single client, cell ACLs). */
  public static final Map<Integer, Double> PAPER_INSERT_RATIO = Map.of(4, 0.76, 11, 0.53);
  /** Paper's scans: 40 to 50 % fewer rows/s with ACLs, whatever the entries; the middle. */
  public static final double PAPER_SCAN_RATIO = 0.55;

  /** The variants, the baseline first. */
  public record Result(Settings settings, List<Variant> variants) {
    public Variant baseline() {
      return variants.get(0);
    }

    /** The mean over the variant's runs of each run's inserts/s over its adjacent baseline's. */
    public double insertRatio(Variant v) {
      return v.rounds().stream().mapToDouble(Round::insertRatio).average().orElse(Double.NaN);
    }

    public double scanRatio(Variant v) {
      return v.rounds().stream().mapToDouble(Round::scanRatio).average().orElse(Double.NaN);
    }

    /** The variants beside the paper's figures, one line each. */
    public List<String> lines() {
      List<String> out = new ArrayList<>();
      for (Variant v : variants) {
        Double paperInsert = "cell".equals(v.level()) ? PAPER_INSERT_RATIO.get(v.entries()) : null;
        out.add(String.format(Locale.ROOT, "%-22s insert %8.0f ops/s (%.2f)  scan %9.0f rows/s "
          + "(%.2f)%s", v.label(), v.insertOpsPerSec(), insertRatio(v), v.scanRowsPerSec(),
          scanRatio(v), "cell".equals(v.level()) ? String.format(Locale.ROOT,
            "   YCSB++ (cell ACLs): insert %s, scan 0.50-0.60", paperInsert == null ? "-"
              : String.format(Locale.ROOT, "%.2f", paperInsert)) : ""));
      }
      return out;
    }

    @Override
    public String toString() {
      return String.join("\n", lines());
    }
  }

  private final Clusters clusters;
  private final TableName table;
  private final byte[] family;
  private final Settings s;
  private Steps steps = (phase, cluster) -> { };
  /** The clusters' names in the steps, by identity. */
  private EmbeddedHBase plain;

  public AclComparison(Clusters clusters, TableName table, String family, Settings settings) {
    this.clusters = clusters;
    this.table = table;
    this.family = Bytes.toBytes(family);
    this.s = settings;
  }

  /** Tells {@code listener} of each step and its cluster. */
  public AclComparison steps(Steps listener) {
    this.steps = listener;
    return this;
  }

  /** The protected variants (level, entries), table level first, or reversed. */
  private List<String[]> protectedVariants(boolean reversed) {
    List<String[]> out = new ArrayList<>();
    for (String level : List.of("table", "cell")) {
      for (int n : s.entries()) {
        out.add(new String[] {level, Integer.toString(n)});
      }
    }
    if (reversed) {
      Collections.reverse(out);
    }
    return out;
  }

  public Result run(Consumer<Object> progress) throws IOException, InterruptedException {
    Map<String, List<Round>> rounds = new LinkedHashMap<>();
    Map<String, Proof> proofs = new LinkedHashMap<>();
    rounds.put("none/0", new ArrayList<>());
    for (String[] v : protectedVariants(false)) {
      rounds.put(v[0] + "/" + v[1], new ArrayList<>());
    }
    progress.accept("[acl] starting HBase without the AccessController");
    steps.step("start plain", null);
    try (EmbeddedHBase plain = clusters.start(false)) {
      this.plain = plain;
      progress.accept("[acl] starting HBase with the AccessController, beside it");
      steps.step("start acl", null);
      try (EmbeddedHBase secured = clusters.start(true)) {
        awaitAccessControl(secured);
        // A fresh HBase (and the client code on its first use) runs slower until warm: each
        // cluster's first variant runs once untimed.
        measure(plain, "none", 0, -1);
        String[] first = protectedVariants(false).get(0);
        measure(secured, first[0], Integer.parseInt(first[1]), -1);
        progress.accept("[acl] warmed up both with an untimed variant each");
        int pair = 0;
        for (int round = 0; round < s.rounds(); round++) {
          for (String[] v : protectedVariants(round % 2 == 1)) {
            String key = v[0] + "/" + v[1];
            int entries = Integer.parseInt(v[1]);
            // Each protected variant next to a run of the baseline, which goes first every
            // other pair (ABBA), so that the machine's drift falls on both.
            boolean baselineFirst = pair++ % 2 == 0;
            Round base = null;
            if (baselineFirst) {
              base = measure(plain, "none", 0, round);
            }
            Round r = measure(secured, v[0], entries, round);
            if (!baselineFirst) {
              base = measure(plain, "none", 0, round);
            }
            r = r.against(base);
            rounds.get("none/0").add(base);
            rounds.get(key).add(r);
            if (!proofs.containsKey(key)) {
              proofs.put(key, prove(secured, v[0], entries));
            }
            if (!proofs.containsKey("none/0")) {
              proofs.put("none/0", prove(plain, "none", 0));
            }
            progress.accept(String.format(Locale.ROOT, "[acl] round %d %s: insert %.0f ops/s "
              + "(%.2f of %.0f), scan %.0f rows/s (%.2f of %.0f); %s", round, key,
              r.insertOpsPerSec(), r.insertRatio(), base.insertOpsPerSec(), r.scanRowsPerSec(),
              r.scanRatio(), base.scanRowsPerSec(), proofs.get(key)));
            for (EmbeddedHBase h : List.of(plain, secured)) {
              try (Admin admin = h.connection().getAdmin()) {
                YcsbTable.dropIfExists(admin, table);
              }
            }
          }
        }
        // Neither cluster is read while they shut down.
        steps.step("stop", null);
      }
    } finally {
      this.plain = null;
    }
    List<Variant> out = new ArrayList<>();
    rounds.forEach((key, rs) -> {
      String[] lv = key.split("/");
      out.add(new Variant(lv[0], Integer.parseInt(lv[1]), List.copyOf(rs), proofs.get(key)));
    });
    return new Result(s, out);
  }

  /** The master creates hbase:acl at start; grants fail until it is there. */
  private static void awaitAccessControl(EmbeddedHBase hbase) throws IOException,
    InterruptedException {
    Connection c = hbase.connection();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    try (Admin admin = c.getAdmin()) {
      while (!admin.tableExists(AccessControlClient.ACL_TABLE_NAME)
        || !admin.isTableAvailable(AccessControlClient.ACL_TABLE_NAME)) {
        if (System.nanoTime() > deadline) {
          throw new IOException("hbase:acl not available 120 s after HBase started with the "
            + "AccessController");
        }
        Thread.sleep(200);
      }
    }
    if (!AccessControlClient.isAuthorizationEnabled(c)
      || !AccessControlClient.isCellAuthorizationEnabled(c)) {
      throw new IOException("HBase started with the AccessController does not report "
        + "authorization and cell authorization enabled: the ACLs would not be checked");
    }
  }

  /** Users of an ACL of n entries: {@link #USER} and n - 1 others. */
  static List<String> aclUsers(int n) {
    List<String> users = new ArrayList<>();
    users.add(USER);
    for (int i = 1; i < n; i++) {
      users.add("acl_user" + i);
    }
    return users;
  }

  private Round measure(EmbeddedHBase hbase, String level, int entries, int round)
    throws IOException, InterruptedException {
    String name = (hbase == plain ? "plain " : "acl ") + level + ("none".equals(level) ? ""
      : "/" + entries) + (round < 0 ? " warm-up" : " r" + (round + 1));
    steps.step(name + " insert", hbase);
    createTable(hbase, level, entries);
    User user = User.createUserForTesting(hbase.configuration(), USER, new String[0]);
    Map<String, Permission> cellAcl = null;
    if ("cell".equals(level)) {
      cellAcl = new LinkedHashMap<>();
      for (String u : aclUsers(entries)) {
        cellAcl.put(u, new Permission(Permission.Action.READ));
      }
    }
    try (Connection c = ConnectionFactory.createConnection(hbase.configuration(), user)) {
      if (!"none".equals(level)) {
        awaitWritable(hbase, c, cellAcl);
      }
      long t0 = System.nanoTime();
      insert(c, cellAcl);
      long t1 = System.nanoTime();
      long rows = countRows(hbase.connection());
      if (rows != s.records()) {
        throw new IOException(level + "/" + entries + ": " + s.records() + " inserts left "
          + rows + " rows in " + table);
      }
      steps.step(name + " scan", hbase);
      long t2 = System.nanoTime();
      long scanned = scan(c);
      long t3 = System.nanoTime();
      return new Round(round, rows, (t1 - t0) / 1e9, scanned, (t3 - t2) / 1e9, null);
    }
  }

  private void createTable(EmbeddedHBase hbase, String level, int entries) throws IOException {
    try (Admin admin = hbase.connection().getAdmin()) {
      YcsbTable.dropIfExists(admin, table);
      TableDescriptorBuilder b = TableDescriptorBuilder.newBuilder(table)
        .setColumnFamily(ColumnFamilyDescriptorBuilder.of(family));
      if ("cell".equals(level)) {
        // Without a table grant to read, the user reads through the cells' ACLs only when the
        // early out is off (otherwise the scan is refused at once).
        b.setValue(AccessControlConstants.CF_ATTRIBUTE_EARLY_OUT, "false");
      }
      if (s.regions() <= 1) {
        admin.createTable(b.build());
      } else {
        admin.createTable(b.build(), YcsbTable.splitKeys(s.regions()));
      }
    }
    try {
      if ("table".equals(level)) {
        for (String u : aclUsers(entries)) {
          AccessControlClient.grant(hbase.connection(), table, u, null, null,
            Permission.Action.READ, Permission.Action.WRITE);
        }
      } else if ("cell".equals(level)) {
        AccessControlClient.grant(hbase.connection(), table, USER, null, null,
          Permission.Action.WRITE);
      }
    } catch (Throwable e) {
      throw new IOException("granting on " + table + " (" + level + ", " + entries + ")", e);
    }
  }

  /**
   * Grants reach the RegionServers' caches through ZooKeeper after {@code grant} returns: one
   * probe row, written until it is accepted and then deleted, keeps the wait out of the timing.
   */
  private void awaitWritable(EmbeddedHBase hbase, Connection c, Map<String, Permission> cellAcl)
    throws IOException, InterruptedException {
    byte[] probe = Bytes.toBytes("probe");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    try (Table t = c.getTable(table)) {
      while (true) {
        try {
          Put p = new Put(probe).addColumn(family, Bytes.toBytes("field0"), Bytes.toBytes("x"));
          if (cellAcl != null) {
            p.setACL(cellAcl);
          }
          t.put(p);
          break;
        } catch (IOException e) {
          if (!denied(e) || System.nanoTime() > deadline) {
            throw e;
          }
          Thread.sleep(100);
        }
      }
    }
    try (Table t = hbase.connection().getTable(table)) {
      t.delete(new Delete(probe));
    }
  }

  private void insert(Connection c, Map<String, Permission> cellAcl)
    throws IOException, InterruptedException {
    ExecutorService pool = Executors.newFixedThreadPool(s.threads());
    try {
      List<Future<Void>> futures = new ArrayList<>();
      for (int t = 0; t < s.threads(); t++) {
        int first = t;
        futures.add(pool.submit(() -> {
          byte[][] qualifiers = qualifiers();
          try (BufferedMutator m = c.getBufferedMutator(new BufferedMutatorParams(table)
            .writeBufferSize(s.bufferBytes()))) {
            for (long i = first; i < s.records(); i += s.threads()) {
              Put p = new Put(Bytes.toBytes("user" + Utils.hash(i)));
              for (byte[] q : qualifiers) {
                p.addColumn(family, q, value());
              }
              if (cellAcl != null) {
                p.setACL(cellAcl);
              }
              m.mutate(p);
            }
          }
          return null;
        }));
      }
      join(futures);
    } finally {
      pool.shutdownNow();
    }
  }

  /** YCSB++'s scans: {@code scanLength} rows from a random record's key, until scanRows read. */
  private long scan(Connection c) throws IOException, InterruptedException {
    AtomicLong rows = new AtomicLong();
    AtomicLong cells = new AtomicLong();
    ExecutorService pool = Executors.newFixedThreadPool(s.threads());
    try {
      List<Future<Void>> futures = new ArrayList<>();
      for (int t = 0; t < s.threads(); t++) {
        futures.add(pool.submit(() -> {
          try (Table tb = c.getTable(table)) {
            // a scan from a key near the table's end returns fewer rows: scan until enough
            while (rows.get() < s.scanRows()) {
              long start = ThreadLocalRandom.current().nextLong(s.records());
              Scan scan = new Scan().withStartRow(Bytes.toBytes("user" + Utils.hash(start)))
                .setLimit(s.scanLength()).setCaching(Math.min(s.scanLength(), 1000));
              try (ResultScanner rs = tb.getScanner(scan)) {
                for (org.apache.hadoop.hbase.client.Result r : rs) {
                  rows.incrementAndGet();
                  cells.addAndGet(r.size());
                }
              }
            }
          }
          return null;
        }));
      }
      join(futures);
    } finally {
      pool.shutdownNow();
    }
    // Cells the checks hid would make the scan look cheaper than it is.
    if (cells.get() != rows.get() * s.fieldCount() || rows.get() == 0) {
      throw new IOException("Scans as " + USER + " of " + table + " returned " + rows.get()
        + " rows with " + cells.get() + " fields, not " + s.fieldCount() + " fields each");
    }
    return rows.get();
  }

  /** The checks the variant's cluster makes, tried after its timing. */
  private Proof prove(EmbeddedHBase hbase, String level, int entries) throws IOException {
    byte[] row = Bytes.toBytes("user" + Utils.hash(0));
    User outsider = User.createUserForTesting(hbase.configuration(), OUTSIDER, new String[0]);
    boolean putDenied = false;
    boolean scanDenied = false;
    long scanRows = 0;
    try (Connection c = ConnectionFactory.createConnection(hbase.configuration(), outsider);
      Table t = c.getTable(table)) {
      try {
        t.put(new Put(Bytes.toBytes("outsider")).addColumn(family, Bytes.toBytes("field0"),
          Bytes.toBytes("x")));
      } catch (IOException e) {
        if (!denied(e)) {
          throw e;
        }
        putDenied = true;
      }
      // next(), not the iterator: the iterator wraps the refusal in an UncheckedIOException
      try (ResultScanner rs = t.getScanner(new Scan().setLimit(100))) {
        while (rs.next() != null) {
          scanRows++;
        }
      } catch (IOException e) {
        if (!denied(e)) {
          throw e;
        }
        scanDenied = true;
      }
    }
    int grants = 0;
    int readerCells = -1;
    if (!"none".equals(level)) {
      try {
        List<UserPermission> perms = AccessControlClient.getUserPermissions(hbase.connection(),
          table.getNameAsString());
        // HBase grants the table's creator (the superuser here) all rights on it: not an entry
        String owner = User.getCurrent().getShortName();
        grants = (int) perms.stream().map(UserPermission::getUser).filter(u -> !u.equals(owner))
          .distinct().count();
      } catch (Throwable e) {
        throw new IOException("reading the grants of " + table + " back", e);
      }
      String last = aclUsers(entries).get(entries - 1);
      if ("cell".equals(level) && entries > 1) {
        User reader = User.createUserForTesting(hbase.configuration(), last, new String[0]);
        try (Connection c = ConnectionFactory.createConnection(hbase.configuration(), reader);
          Table t = c.getTable(table)) {
          readerCells = t.get(new Get(row)).size();
        }
      }
      int expectedGrants = "table".equals(level) ? entries : 1;
      boolean ok = putDenied && (scanDenied || scanRows == 0) && grants == expectedGrants
        && (!"cell".equals(level) || entries == 1 || readerCells == s.fieldCount());
      if (!ok) {
        throw new IOException(level + "/" + entries + ": the ACLs are not in effect: outsider "
          + "put denied " + putDenied + ", scan denied " + scanDenied + " (" + scanRows
          + " rows), " + grants + " table grants (expected " + expectedGrants + "), " + last
          + " read " + readerCells + " fields of a row (expected " + s.fieldCount() + ")");
      }
    }
    return new Proof(putDenied, scanDenied, scanRows, grants, readerCells);
  }

  private static boolean denied(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof AccessDeniedException
        || String.valueOf(t.getMessage()).contains(AccessDeniedException.class.getName())) {
        return true;
      }
    }
    return false;
  }

  private long countRows(Connection superuser) throws IOException {
    long n = 0;
    try (Table t = superuser.getTable(table);
      ResultScanner scanner = t.getScanner(new Scan().setFilter(new FirstKeyOnlyFilter()))) {
      while (scanner.next() != null) {
        n++;
      }
    }
    return n;
  }

  private byte[][] qualifiers() {
    byte[][] q = new byte[s.fieldCount()][];
    for (int f = 0; f < q.length; f++) {
      q[f] = Bytes.toBytes("field" + f);
    }
    return q;
  }

  /** A field's value: printable bytes, as YCSB's random values. */
  private byte[] value() {
    byte[] v = new byte[s.fieldLength()];
    ThreadLocalRandom r = ThreadLocalRandom.current();
    for (int i = 0; i < v.length; i++) {
      v[i] = (byte) (' ' + r.nextInt(95));
    }
    return v;
  }

  private static void join(List<Future<Void>> futures) throws IOException,
    InterruptedException {
    for (Future<Void> f : futures) {
      try {
        f.get();
      } catch (ExecutionException e) {
        if (e.getCause() instanceof IOException io) {
          throw io;
        }
        throw new IOException(e.getCause());
      } catch (InterruptedException e) {
        throw new InterruptedIOException("interrupted waiting for the client threads");
      }
    }
  }
}
