package io.strata.local;

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
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.CompactionState;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.regionserver.DisabledRegionSplitPolicy;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.HStore;
import org.apache.hadoop.hbase.regionserver.HStoreFile;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hbase.util.HFileArchiveUtil;

/**
 * The embedded cluster's demo workload, which leaves every kind of file behind: it writes rows
 * (memstore flushes, minor compactions), flushes, major-compacts, waits for HBase to archive the
 * compacted-away files, writes and flushes a tail (a flushed file next to the compacted one), and
 * rolls the WAL (a WAL in oldWALs). Then it reads a sample of rows back.
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
    LatencyRecorder writes = new LatencyRecorder("put");
    long mainRows = Math.max(rowsPerBatch, dataBytes / valueBytes);
    step("writing %d rows of %d bytes (%d MiB)", mainRows, valueBytes, mainRows * valueBytes >> 20);
    write(0, mainRows, writes);
    step("flushing %s", TABLE);
    admin.flush(TABLE);
    step("major-compacting %s", TABLE);
    majorCompact(admin);
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

  private List<HRegion> regions() {
    List<HRegion> regions = new ArrayList<>();
    for (int i = 0; i < hbase.regionServerCount(); i++) {
      regions.addAll(hbase.regionServer(i).getRegions(TABLE));
    }
    return regions;
  }

  private Set<Path> storeFiles() {
    Set<Path> files = new HashSet<>();
    for (HRegion region : regions()) {
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
  private void majorCompact(Admin admin) throws IOException {
    Set<Path> before = storeFiles();
    long deadline = System.currentTimeMillis() + WAIT_MS;
    long lastRequest = 0;
    while (true) {
      Set<Path> now = storeFiles();
      boolean idle = admin.getCompactionState(TABLE) == CompactionState.NONE;
      if (idle && !now.isEmpty() && now.stream().noneMatch(before::contains)) {
        return;
      }
      if (idle && System.currentTimeMillis() - lastRequest > 5_000) {
        admin.majorCompact(TABLE);
        lastRequest = System.currentTimeMillis();
      }
      sleepUntil(deadline, "the major compaction of " + TABLE);
    }
  }

  private void waitForArchive() throws IOException {
    Path rootDir = hbase.rootDir();
    Path archive = HFileArchiveUtil.getTableArchivePath(rootDir, TABLE);
    FileSystem fs = rootDir.getFileSystem(hbase.configuration());
    long deadline = System.currentTimeMillis() + WAIT_MS;
    while (true) {
      boolean compactedLeft = regions().stream().flatMap(r -> r.getStores().stream())
        .anyMatch(s -> s.getCompactedFilesCount() > 0);
      if (!compactedLeft && fs.exists(archive)) {
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
