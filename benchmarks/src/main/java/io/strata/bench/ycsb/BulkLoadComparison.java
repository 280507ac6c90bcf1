package io.strata.bench.ycsb;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter;
import org.apache.hadoop.hbase.io.hfile.CacheConfig;
import org.apache.hadoop.hbase.io.hfile.HFile;
import org.apache.hadoop.hbase.io.hfile.HFileContextBuilder;
import org.apache.hadoop.hbase.regionserver.HStoreFile;
import org.apache.hadoop.hbase.tool.BulkLoadHFiles;
import org.apache.hadoop.hbase.util.Bytes;
import site.ycsb.Utils;

/**
 * YCSB++'s bulk load (its Table 3): the same records loaded by YCSB's inserts and by HBase's own
 * bulk-load machinery — HFiles written with HBase's writer, one per region of the table,
 * partitioned by the regions' start keys as {@code HFileOutputFormat2} partitions them, then
 * handed to the table by {@code BulkLoadHFiles} — each into a table pre-split into N regions and
 * into one with a single region, on the same cluster. The records are YCSB's: keys
 * {@code user<hash(i)>} for i below {@code recordcount}, {@code fieldcount} fields of
 * {@code fieldlength} bytes. The insert loads are {@link PresplitComparison}'s. Rows per second
 * of each, the bulk load's time split into writing the files and loading them. Not thread-safe.
 */
public final class BulkLoadComparison {

  /**
   * One bulk load.
   *
   * @param regions the table's regions
   * @param rows rows loaded
   * @param writeSeconds writing the HFiles
   * @param loadSeconds {@code BulkLoadHFiles} handing them to the table
   * @param files HFiles written (one per region that got rows)
   */
  public record BulkLoad(int regions, long rows, double writeSeconds, double loadSeconds,
    int files) {
    public double rowsPerSec() {
      return rows / (writeSeconds + loadSeconds);
    }

    @Override
    public String toString() {
      return String.format(Locale.ROOT, "bulk load %3d region(s): %d rows in %.1f s (%.1f s "
        + "writing %d HFiles, %.1f s loading) = %.0f rows/s", regions, rows,
        writeSeconds + loadSeconds, writeSeconds, files, loadSeconds, rowsPerSec());
    }
  }

  /** The insert loads and the bulk loads, pre-split and single-region. */
  public record Result(PresplitComparison.Result insert, List<BulkLoad> presplit,
    List<BulkLoad> single) {
    public double bulkPresplitRowsPerSec() {
      return presplit.stream().mapToDouble(BulkLoad::rowsPerSec).average().orElse(Double.NaN);
    }

    public double bulkSingleRowsPerSec() {
      return single.stream().mapToDouble(BulkLoad::rowsPerSec).average().orElse(Double.NaN);
    }

    @Override
    public String toString() {
      return String.format(Locale.ROOT, "rows/s, pre-split / single region: insert %.0f / %.0f, "
        + "bulk load %.0f / %.0f (bulk / insert: %.1fx pre-split, %.1fx single)",
        insert.presplitOpsPerSec(), insert.singleOpsPerSec(), bulkPresplitRowsPerSec(),
        bulkSingleRowsPerSec(), bulkPresplitRowsPerSec() / insert.presplitOpsPerSec(),
        bulkSingleRowsPerSec() / insert.singleOpsPerSec());
    }
  }

  private final Configuration conf;
  private final Connection connection;
  private final TableName table;
  private final String family;
  private final PresplitComparison inserts;
  private final int fieldCount;
  private final int fieldLength;

  /** {@code inserts} loads the same table with YCSB; the bulk loads use {@code connection}. */
  public BulkLoadComparison(Configuration conf, Connection connection, TableName table,
    String family, PresplitComparison inserts, int fieldCount, int fieldLength) {
    this.conf = conf;
    this.connection = connection;
    this.table = table;
    this.family = family;
    this.inserts = inserts;
    this.fieldCount = fieldCount;
    this.fieldLength = fieldLength;
  }

  public Result run(long records, int regions, int rounds, Consumer<Object> progress)
    throws IOException, InterruptedException {
    PresplitComparison.Result insert = inserts.run(regions, rounds, progress::accept);
    List<BulkLoad> presplit = new ArrayList<>();
    List<BulkLoad> single = new ArrayList<>();
    for (int round = 0; round < rounds; round++) {
      boolean presplitFirst = round % 2 == 1;
      for (int k = 0; k < 2; k++) {
        boolean split = presplitFirst == (k == 0);
        BulkLoad b = bulkLoad(records, split ? regions : 1);
        (split ? presplit : single).add(b);
        progress.accept(b);
      }
    }
    try (Admin admin = connection.getAdmin()) {
      YcsbTable.dropIfExists(admin, table);
    }
    return new Result(insert, presplit, single);
  }

  private BulkLoad bulkLoad(long records, int regions) throws IOException {
    try (Admin admin = connection.getAdmin()) {
      YcsbTable.dropIfExists(admin, table);
      YcsbTable.create(admin, table, family, regions);
    }
    FileSystem fs = FileSystem.get(conf);
    org.apache.hadoop.fs.Path staging =
      new org.apache.hadoop.fs.Path("/bulk-staging/" + UUID.randomUUID());
    try {
      long t0 = System.nanoTime();
      int files = writeHFiles(fs, new org.apache.hadoop.fs.Path(staging, family), records);
      long t1 = System.nanoTime();
      if (BulkLoadHFiles.create(conf).bulkLoad(table, staging).isEmpty()) {
        throw new IOException("BulkLoadHFiles loaded nothing of " + staging + " into " + table);
      }
      long t2 = System.nanoTime();
      long rows = countRows();
      if (rows != records) {
        throw new IOException("Bulk load of " + records + " records into " + table + " left "
          + rows + " rows");
      }
      return new BulkLoad(regions, rows, (t1 - t0) / 1e9, (t2 - t1) / 1e9, files);
    } finally {
      fs.delete(staging, true);
    }
  }

  /** Rows in the table now (after the timing: a load counts only when every row is there). */
  private long countRows() throws IOException {
    long n = 0;
    try (Table t = connection.getTable(table);
      ResultScanner scanner = t.getScanner(new Scan().setFilter(new FirstKeyOnlyFilter()))) {
      while (scanner.next() != null) {
        n++;
      }
    }
    return n;
  }

  /** YCSB's records, sorted, one HFile per region that gets rows. */
  private int writeHFiles(FileSystem fs, org.apache.hadoop.fs.Path dir, long records)
    throws IOException {
    byte[][] keys = new byte[Math.toIntExact(records)][];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = Bytes.toBytes("user" + Utils.hash(i));
    }
    Arrays.sort(keys, Bytes.BYTES_COMPARATOR);
    byte[][] starts;
    try (RegionLocator locator = connection.getRegionLocator(table)) {
      starts = locator.getStartKeys();
    }
    Arrays.sort(starts, Bytes.BYTES_COMPARATOR);
    byte[][] qualifiers = new byte[fieldCount][];
    for (int f = 0; f < fieldCount; f++) {
      qualifiers[f] = Bytes.toBytes("field" + f);
    }
    Arrays.sort(qualifiers, Bytes.BYTES_COMPARATOR); // field10 sorts before field2
    byte[] fam = Bytes.toBytes(family);
    long ts = System.currentTimeMillis();
    CacheConfig noCache = CacheConfig.DISABLED;
    int region = 0;
    int files = 0;
    HFile.Writer w = null;
    try {
      for (byte[] key : keys) {
        boolean next = false;
        while (region + 1 < starts.length && Bytes.compareTo(key, starts[region + 1]) >= 0) {
          region++;
          next = true;
        }
        if (w == null || next) {
          if (w != null) {
            close(w);
          }
          w = HFile.getWriterFactory(conf, noCache)
            .withPath(fs, new org.apache.hadoop.fs.Path(dir, "region-" + region))
            .withFileContext(new HFileContextBuilder().withBlockSize(64 << 10).build()).create();
          files++;
        }
        for (byte[] q : qualifiers) {
          w.append(new KeyValue(key, fam, q, ts, value()));
        }
      }
    } finally {
      if (w != null) {
        close(w);
      }
    }
    return files;
  }

  private static void close(HFile.Writer w) throws IOException {
    w.appendFileInfo(HStoreFile.BULKLOAD_TIME_KEY, Bytes.toBytes(System.currentTimeMillis()));
    w.close();
  }

  /** A field's value: printable bytes, as YCSB's random values. */
  private byte[] value() {
    byte[] v = new byte[fieldLength];
    ThreadLocalRandom r = ThreadLocalRandom.current();
    for (int i = 0; i < v.length; i++) {
      v[i] = (byte) (' ' + r.nextInt(95));
    }
    return v;
  }
}
