package io.strata.local;

import io.strata.hbase.placement.FileKind;
import io.strata.hbase.placement.PlacedFile;
import io.strata.hbase.placement.PlacementReport;
import io.strata.hbase.tiering.StoreEngines;
import io.strata.hbase.tiering.TieredDateTieredStoreEngine;
import io.strata.hbase.tiering.TieringKeys;
import io.strata.hdfs.HdfsKeys;
import io.strata.hdfs.mover.FileMover;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.CompactionState;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.regionserver.DateTieredStoreEngine;
import org.apache.hadoop.hbase.regionserver.DisabledRegionSplitPolicy;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.HStore;
import org.apache.hadoop.hbase.regionserver.HStoreFile;
import org.apache.hadoop.hbase.regionserver.compactions.CompactionConfiguration;
import org.apache.hadoop.hbase.regionserver.compactions.ExponentialCompactionWindowFactory;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hbase.util.HFileArchiveUtil;

/**
 * The embedded cluster's demo workload, which leaves every kind of file behind: it writes rows
 * (memstore flushes, minor compactions), flushes, major-compacts, waits for HBase to archive the
 * compacted-away files, writes and flushes a tail (a flushed file next to the compacted one), and
 * rolls the WAL (a WAL in oldWALs). Then it reads a sample of rows back. Before that, a
 * time-series table on the date-tiered engine gets samples of three ages and a major compaction,
 * which leaves its files on three tiers by age ({@link #timeSeriesTable}).
 */
public final class PlacementDemo {
  public static final TableName TABLE = TableName.valueOf("strata_demo");
  /** The family of the rows' 1 KiB values: large compactions. */
  public static final byte[] FAMILY = Bytes.toBytes("d");
  /** A family of 64-byte values: small compactions, placed apart from the large ones. */
  public static final byte[] SMALL_FAMILY = Bytes.toBytes("s");
  /** The default compaction size threshold of the demo table, below the large family's. */
  public static final String COMPACTION_THRESHOLD = "64m";
  private static final int SMALL_VALUE_BYTES = 64;
  private static final byte[] QUALIFIER = Bytes.toBytes("v");
  private static final long WAIT_MS = TimeUnit.SECONDS.toMillis(120);

  private final EmbeddedHBase hbase;
  private final PrintStream out;
  private final long dataBytes;
  private final int valueBytes;
  private final int rowsPerBatch;
  private final int reads;
  private final String compactionThreshold;

  /**
   * The time-series table: one family on the date-tiered engine whose major compaction writes
   * one file per time window, each on its window's storage policy by age.
   */
  public static final TableName TIME_SERIES_TABLE = TableName.valueOf("strata_metrics");
  public static final byte[] TIME_SERIES_FAMILY = Bytes.toBytes("m");
  /** The time-series family's windows: hot up to a day old, warm up to a week, cold beyond. */
  public static final long HOT_WINDOW_MS = TimeUnit.DAYS.toMillis(1);
  public static final long WARM_WINDOW_MS = TimeUnit.DAYS.toMillis(7);
  public static final String HOT_POLICY = "ALL_SSD";
  public static final String WARM_POLICY = "ONE_SSD";
  public static final String COLD_POLICY = "COLD";
  /** The ages of the three groups of samples the demo writes: hot, warm and cold. */
  static final long[] SAMPLE_AGES_MS =
    { TimeUnit.MINUTES.toMillis(10), TimeUnit.DAYS.toMillis(3), TimeUnit.DAYS.toMillis(30) };
  private static final int SAMPLES_PER_AGE = 2000;
  private static final int SAMPLE_BYTES = 256;

  private long rowsWritten;
  private long archivedAtNanos;

  public PlacementDemo(EmbeddedHBase hbase, PrintStream out, long dataBytes, int valueBytes,
    int rowsPerBatch, int reads) {
    this(hbase, out, dataBytes, valueBytes, rowsPerBatch, reads, COMPACTION_THRESHOLD);
  }

  /**
   * @param compactionThreshold the table's {@code strata.compaction.size.threshold}: between the
   *                            small family's and the large family's compaction size
   */
  public PlacementDemo(EmbeddedHBase hbase, PrintStream out, long dataBytes, int valueBytes,
    int rowsPerBatch, int reads, String compactionThreshold) {
    this.compactionThreshold = compactionThreshold;
    this.hbase = hbase;
    this.out = out;
    this.dataBytes = dataBytes;
    this.valueBytes = valueBytes;
    this.rowsPerBatch = rowsPerBatch;
    this.reads = reads;
  }

  /** What the workload measured. */
  public static final class Outcome {
    public final long rows;
    public final long rowsReadBack;
    public final LatencyRecorder writes;
    public final LatencyRecorder reads;
    /** Seconds from archiving until the archived files' and old WALs' blocks were in place. */
    public final double placementLagSeconds;

    Outcome(long rows, long rowsReadBack, LatencyRecorder writes, LatencyRecorder reads,
      double placementLagSeconds) {
      this.rows = rows;
      this.rowsReadBack = rowsReadBack;
      this.writes = writes;
      this.reads = reads;
      this.placementLagSeconds = placementLagSeconds;
    }
  }

  public Outcome run() throws IOException {
    Admin admin = hbase.connection().getAdmin();
    createTable(admin);
    timeSeries(admin);
    LatencyRecorder writes = new LatencyRecorder("put");
    long mainRows = Math.max(rowsPerBatch, dataBytes / valueBytes);
    step("writing %d rows of %d bytes (%d MiB)", mainRows, valueBytes, mainRows * valueBytes >> 20);
    write(0, mainRows, writes);
    step("flushing %s", TABLE);
    admin.flush(TABLE);
    step("major-compacting %s", TABLE);
    majorCompact(admin, TABLE);
    step("waiting for HBase to archive the compacted-away files");
    waitForArchive();
    long tailRows = Math.max(rowsPerBatch, mainRows / 8);
    step("writing and flushing a tail of %d rows", tailRows);
    write(mainRows, tailRows, writes);
    admin.flush(TABLE);
    step("rolling the WAL of every RegionServer");
    rollWals(admin);
    LatencyRecorder readLatency = new LatencyRecorder("get");
    step("reading %d random rows back", reads);
    long found = readBack(readLatency);
    step("waiting until archived HFiles and rolled WALs are on their storage policy's tier");
    double settleSeconds = waitForPlacement();
    step("  placed %.1f s after HBase archived them", settleSeconds);
    return new Outcome(rowsWritten, found, writes, readLatency, settleSeconds);
  }

  private void createTable(Admin admin) throws IOException {
    if (admin.tableExists(TABLE)) {
      admin.disableTable(TABLE);
      admin.deleteTable(TABLE);
    }
    // Several flushes per run, so that minor compactions happen too.
    long flushSize = Math.max(4L << 20, Math.min(128L << 20, dataBytes / 4));
    admin.createTable(TableDescriptorBuilder.newBuilder(TABLE)
      .setColumnFamily(ColumnFamilyDescriptorBuilder.of(FAMILY))
      .setColumnFamily(ColumnFamilyDescriptorBuilder.of(SMALL_FAMILY))
      .setValue(TieringKeys.COMPACTION_THRESHOLD, compactionThreshold)
      .setMemStoreFlushSize(flushSize)
      // One region: a split would leave reference files and a parent region to clean up.
      .setRegionSplitPolicyClassName(DisabledRegionSplitPolicy.class.getName())
      .build());
  }

  /**
   * The time-series family: samples 10 minutes, 3 days and 30 days old (explicit cell
   * timestamps), one flush, one major compaction. The date-tiered engine writes one output per
   * time window and, with upstream's window storage policies on, each on its window's policy:
   * the hot window's on SSD, the warm one's on SSD and DISK, the cold one's on ARCHIVE. With
   * {@code --upstream} the family runs upstream's date-tiered engine without window policies,
   * the baseline that places nothing.
   */
  private void timeSeries(Admin admin) throws IOException {
    boolean strata = hbase.dfs().config().tieredPlacement();
    if (admin.tableExists(TIME_SERIES_TABLE)) {
      admin.disableTable(TIME_SERIES_TABLE);
      admin.deleteTable(TIME_SERIES_TABLE);
    }
    admin.createTable(TableDescriptorBuilder.newBuilder(TIME_SERIES_TABLE)
      .setColumnFamily(timeSeriesFamily(strata))
      .setRegionSplitPolicyClassName(DisabledRegionSplitPolicy.class.getName())
      .build());
    step("writing %d samples of %d bytes to %s, %d each %s old", SAMPLES_PER_AGE
      * SAMPLE_AGES_MS.length, SAMPLE_BYTES, TIME_SERIES_TABLE, SAMPLES_PER_AGE,
      "10 minutes, 3 days and 30 days");
    long now = System.currentTimeMillis();
    Random random = new Random(7);
    try (Table table = hbase.connection().getTable(TIME_SERIES_TABLE)) {
      for (int a = 0; a < SAMPLE_AGES_MS.length; a++) {
        List<Put> batch = new ArrayList<>(SAMPLES_PER_AGE);
        for (int i = 0; i < SAMPLES_PER_AGE; i++) {
          byte[] value = new byte[SAMPLE_BYTES];
          random.nextBytes(value);
          // one timestamp per group (one series per row): a group never straddles two windows
          long ts = now - SAMPLE_AGES_MS[a];
          batch.add(new Put(Bytes.toBytes(String.format(Locale.ROOT, "cpu.host%04d/%013d", i,
            ts))).addColumn(TIME_SERIES_FAMILY, QUALIFIER, ts, value));
        }
        table.put(batch);
      }
    }
    admin.flush(TIME_SERIES_TABLE);
    step("major-compacting %s (one output per time window)", TIME_SERIES_TABLE);
    majorCompact(admin, TIME_SERIES_TABLE);
  }

  /**
   * The time-series family: Strata's date-tiered engine with upstream's window storage policies
   * (HBASE-24289): hot windows (up to a day old) on ALL_SSD, warm (up to a week) on ONE_SSD,
   * older on COLD. Windows start at an hour and grow fourfold per tier, so that each group of
   * samples falls in a window of its own age class.
   */
  static ColumnFamilyDescriptor timeSeriesFamily(boolean strata) {
    ColumnFamilyDescriptorBuilder b = ColumnFamilyDescriptorBuilder.newBuilder(TIME_SERIES_FAMILY)
      .setConfiguration(StoreEngines.KEY, strata ? TieredDateTieredStoreEngine.class.getName()
        : DateTieredStoreEngine.class.getName())
      .setConfiguration(ExponentialCompactionWindowFactory.BASE_WINDOW_MILLIS_KEY,
        Long.toString(TimeUnit.HOURS.toMillis(1)))
      .setConfiguration(ExponentialCompactionWindowFactory.WINDOWS_PER_TIER_KEY, "4");
    if (strata) {
      b.setConfiguration(CompactionConfiguration.DATE_TIERED_STORAGE_POLICY_ENABLE_KEY, "true")
        .setConfiguration(CompactionConfiguration.DATE_TIERED_HOT_WINDOW_AGE_MILLIS_KEY,
          Long.toString(HOT_WINDOW_MS))
        .setConfiguration(CompactionConfiguration.DATE_TIERED_HOT_WINDOW_STORAGE_POLICY_KEY,
          HOT_POLICY)
        .setConfiguration(CompactionConfiguration.DATE_TIERED_WARM_WINDOW_AGE_MILLIS_KEY,
          Long.toString(WARM_WINDOW_MS))
        .setConfiguration(CompactionConfiguration.DATE_TIERED_WARM_WINDOW_STORAGE_POLICY_KEY,
          WARM_POLICY)
        .setConfiguration(CompactionConfiguration.DATE_TIERED_COLD_WINDOW_STORAGE_POLICY_KEY,
          COLD_POLICY);
    }
    return b.build();
  }

  /**
   * The time-series family's store files from a report: kind, size, replicas per storage type,
   * age of the newest cell, and the policy chosen with its rule; oldest first.
   */
  public static String timeSeriesTable(PlacementReport report) {
    String family = TIME_SERIES_TABLE.getNameAsString() + "/" + Bytes.toString(TIME_SERIES_FAMILY);
    List<PlacedFile> files = timeSeriesFiles(report);
    files.sort((a, b) -> Long.compare(b.ageMs() == null ? -1 : b.ageMs(),
      a.ageMs() == null ? -1 : a.ageMs()));
    StringBuilder sb = new StringBuilder();
    sb.append("Time-series family ").append(family).append(" (engine ")
      .append(report.familyEngines().get(family)).append("): store files, oldest first\n");
    sb.append(String.format(Locale.ROOT, "  %-10s %9s %10s  %-22s %-8s %s%n", "kind", "bytes",
      "age", "replicas", "policy", "rule"));
    String engine = report.familyEngines().get(family);
    boolean places = engine != null && StoreEngines.places(engine);
    for (PlacedFile f : files) {
      boolean ruled = places && f.rule() != null;
      sb.append(String.format(Locale.ROOT, "  %-10s %9d %10s  %-22s %-8s %s%n",
        f.kind().jsonName(), f.bytes(), f.ageMs() == null ? "-" : age(f.ageMs()),
        f.replicas(), ruled ? f.rule().policy() : "-",
        ruled ? f.rule().rule() : "Strata's placement off for this engine"));
    }
    return sb.toString();
  }

  /** The time-series family's live store files (flushed or compacted) in a report. */
  public static List<PlacedFile> timeSeriesFiles(PlacementReport report) {
    String dir = "/data/default/" + TIME_SERIES_TABLE.getNameAsString() + "/";
    String familyDir = "/" + Bytes.toString(TIME_SERIES_FAMILY) + "/";
    List<PlacedFile> files = new ArrayList<>();
    for (PlacedFile f : report.files()) {
      String p = f.path();
      if ((f.kind() == FileKind.FLUSHED || f.kind() == FileKind.COMPACTED) && p.contains(dir)
        && !p.contains("/archive/") && p.contains(familyDir)) {
        files.add(f);
      }
    }
    return files;
  }

  private static String age(long ms) {
    if (ms < TimeUnit.HOURS.toMillis(2)) {
      return String.format(Locale.ROOT, "%.0f min", ms / 60_000.0);
    }
    return String.format(Locale.ROOT, "%.1f d", ms / (double) TimeUnit.DAYS.toMillis(1));
  }

  private void write(long firstRow, long rows, LatencyRecorder latency) throws IOException {
    Random random = new Random(firstRow);
    try (Table table = hbase.connection().getTable(TABLE)) {
      long row = firstRow;
      long end = firstRow + rows;
      long nextReport = firstRow + rows / 4;
      while (row < end) {
        int n = (int) Math.min(rowsPerBatch, end - row);
        List<Put> batch = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          byte[] value = new byte[valueBytes];
          random.nextBytes(value);
          byte[] small = Arrays.copyOf(value, SMALL_VALUE_BYTES);
          batch.add(new Put(rowKey(row + i)).addColumn(FAMILY, QUALIFIER, value)
            .addColumn(SMALL_FAMILY, QUALIFIER, small));
        }
        long start = System.nanoTime();
        table.put(batch);
        latency.record(start, System.nanoTime(), n, (long) n * (valueBytes + SMALL_VALUE_BYTES));
        row += n;
        rowsWritten += n;
        if (row >= nextReport && row < end) {
          step("  %d%% written", (row - firstRow) * 100 / rows);
          nextReport += rows / 4;
        }
      }
    }
  }

  static byte[] rowKey(long row) {
    return Bytes.toBytes(String.format(Locale.ROOT, "row%012d", row));
  }

  private List<HRegion> regions(TableName table) {
    List<HRegion> regions = new ArrayList<>();
    for (int i = 0; i < hbase.regionServerCount(); i++) {
      regions.addAll(hbase.regionServer(i).getRegions(table));
    }
    return regions;
  }

  private Set<Path> storeFiles(TableName table) {
    Set<Path> files = new HashSet<>();
    for (HRegion region : regions(table)) {
      for (HStore store : region.getStores()) {
        for (HStoreFile f : store.getStorefiles()) {
          files.add(f.getPath());
        }
      }
    }
    return files;
  }

  /**
   * Major-compacts through the Admin API and waits until none of the old store files is live. A
   * request that meets a running minor compaction of the same store can be dropped; it is made
   * again once the table is idle.
   */
  private void majorCompact(Admin admin, TableName table) throws IOException {
    Set<Path> before = storeFiles(table);
    long deadline = System.currentTimeMillis() + WAIT_MS;
    long lastRequest = 0;
    while (true) {
      Set<Path> now = storeFiles(table);
      boolean idle = admin.getCompactionState(table) == CompactionState.NONE;
      if (idle && !now.isEmpty() && now.stream().noneMatch(before::contains)) {
        return;
      }
      if (idle && System.currentTimeMillis() - lastRequest > 5_000) {
        admin.majorCompact(table);
        lastRequest = System.currentTimeMillis();
      }
      sleepUntil(deadline, "the major compaction of " + table);
    }
  }

  /** Waits until HBase archived the compacted-away files of both tables. */
  private void waitForArchive() throws IOException {
    Path rootDir = hbase.rootDir();
    FileSystem fs = rootDir.getFileSystem(hbase.configuration());
    long deadline = System.currentTimeMillis() + WAIT_MS;
    while (true) {
      boolean compactedLeft = false;
      boolean archived = true;
      for (TableName table : new TableName[] { TABLE, TIME_SERIES_TABLE }) {
        compactedLeft |= regions(table).stream().flatMap(r -> r.getStores().stream())
          .anyMatch(s -> s.getCompactedFilesCount() > 0);
        archived &= fs.exists(HFileArchiveUtil.getTableArchivePath(rootDir, table));
      }
      if (!compactedLeft && archived) {
        archivedAtNanos = System.nanoTime();
        return;
      }
      sleepUntil(deadline, "HBase to archive compacted files of " + TABLE);
    }
  }

  private void rollWals(Admin admin) throws IOException {
    // A WAL is archived only once every region with edits in it has flushed.
    admin.flush(TableName.META_TABLE_NAME);
    admin.flush(TableName.NAMESPACE_TABLE_NAME);
    FileSystem fs = hbase.rootDir().getFileSystem(hbase.configuration());
    Path oldWals = new Path(hbase.rootDir(), HConstants.HREGION_OLDLOGDIR_NAME);
    int before = regionServerWalCount(fs, oldWals);
    for (int i = 0; i < hbase.regionServerCount(); i++) {
      ServerName sn = hbase.regionServer(i).getServerName();
      admin.rollWALWriter(sn);
    }
    long deadline = System.currentTimeMillis() + WAIT_MS;
    while (regionServerWalCount(fs, oldWals) <= before) {
      sleepUntil(deadline, "a rolled WAL in " + oldWals);
    }
  }

  private static int regionServerWalCount(FileSystem fs, Path oldWals) throws IOException {
    if (!fs.exists(oldWals)) {
      return 0;
    }
    int n = 0;
    for (FileStatus s : fs.listStatus(oldWals)) {
      if (!s.getPath().getName().contains("$masterlocalwal$")) {
        n++;
      }
    }
    return n;
  }

  /**
   * Waits until every archived HFile of the table and every rolled WAL has its blocks where its
   * storage policy wants them; returns the seconds since the archiving was seen.
   */
  private double waitForPlacement() throws IOException {
    FileSystem fs = hbase.rootDir().getFileSystem(hbase.configuration());
    if (!(fs instanceof DistributedFileSystem)) {
      return 0;
    }
    DistributedFileSystem dfs = (DistributedFileSystem) fs;
    List<Path> moved = new ArrayList<>();
    for (Path dir : new Path[] { HFileArchiveUtil.getTableArchivePath(hbase.rootDir(), TABLE),
      HFileArchiveUtil.getTableArchivePath(hbase.rootDir(), TIME_SERIES_TABLE),
      new Path(hbase.rootDir(), HConstants.HREGION_OLDLOGDIR_NAME) }) {
      RemoteIterator<LocatedFileStatus> it = dfs.listFiles(dir, true);
      while (it.hasNext()) {
        moved.add(it.next().getPath());
      }
    }
    // The same wait as strata mover's: it says at once when no satisfier runs, and once when
    // nothing moves for strata.move.no.progress.ms.
    int code;
    try {
      code = FileMover.waitUntilPlaced(dfs, moved, WAIT_MS, hbase.dfs().satisfierHealth(),
        HdfsKeys.moveNoProgressMs(hbase.configuration()), out);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("Interrupted while waiting for files to reach their tier");
    }
    if (code != 0) {
      throw new IOException("Archived HFiles and rolled WALs did not reach their tier (the "
        + "reason is printed above)");
    }
    return (System.nanoTime() - archivedAtNanos) / 1e9;
  }

  private long readBack(LatencyRecorder latency) throws IOException {
    Random random = new Random(42);
    long found = 0;
    try (Table table = hbase.connection().getTable(TABLE)) {
      for (int i = 0; i < reads; i++) {
        long row = (long) (random.nextDouble() * rowsWritten);
        long start = System.nanoTime();
        Result r = table.get(new Get(rowKey(row)));
        latency.record(start, System.nanoTime(), 1, r.isEmpty() ? 0 : valueBytes);
        if (!r.isEmpty() && r.getValue(FAMILY, QUALIFIER).length == valueBytes) {
          found++;
        }
      }
    }
    return found;
  }

  private void step(String format, Object... args) {
    out.printf(Locale.ROOT, "[demo] " + format + "%n", args);
    out.flush();
  }

  private static void sleepUntil(long deadline, String what) throws IOException {
    if (System.currentTimeMillis() > deadline) {
      throw new IOException("Timed out after " + WAIT_MS / 1000 + " s waiting for " + what);
    }
    try {
      Thread.sleep(250);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("Interrupted while waiting for " + what);
    }
  }
}
