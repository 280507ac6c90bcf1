package io.strata.bench.ycsb;

import io.strata.metrics.Median;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter;
import org.apache.hadoop.hbase.filter.QualifierFilter;
import org.apache.hadoop.hbase.filter.RegexStringComparator;
import org.apache.hadoop.hbase.filter.RowFilter;
import org.apache.hadoop.hbase.filter.SingleColumnValueFilter;
import org.apache.hadoop.hbase.filter.ValueFilter;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * YCSB++'s server-side filtering (its section 3.5, Figures 14 and 16): scans of a fixed number of
 * rows from a random start, once with one of YCSB++'s four filters shipped to the RegionServer
 * through HBase's own filter classes, once without a filter and the same predicate applied in the
 * client, side by side on the same table, for each filter, scan length and selectivity.
 *
 * <p>The four filters, each a {@link RegexStringComparator} pattern: keys matching a pattern
 * ({@link RowFilter}), columns whose qualifier matches ({@link QualifierFilter}), columns whose
 * value matches ({@link ValueFilter}), and whole rows whose column {@code field00-r00} (field 0)
 * matches ({@link SingleColumnValueFilter} with {@code setFilterIfMissing(true)}).
 *
 * <p>The data makes every selectivity exact. Rows are YCSB-shaped ({@code fieldcount} fields of
 * {@code fieldlength} bytes, the paper's 100 fields by default), row {@code i} keyed
 * {@code user<i, 10 digits>-r<rank>}. Each key, qualifier and value carries a two-digit rank
 * marker {@code r00}..{@code r99}, and a filter of selectivity k % matches the ranks below k.
 * Ranks are the base-10 digit reversal of a position modulo 100 ({@link #rank}): among any 100
 * consecutive positions each rank occurs once, and among any 10 the ranks below 10m number
 * exactly m. Row ranks come from the row number (filters 1 and 4: every 100 consecutive rows hold
 * exactly k matching rows), qualifier ranks from the field number (filter 2: each row holds exactly
 * k % of its fields), value ranks from field plus row number (filter 3: likewise, but a different
 * set of fields per row; field 0's value rank is the row's rank, the column filter 4 tests). The
 * expected matches of every scan are counted from the same functions, and a scan whose server-side
 * or client-side count differs from them fails the run.
 *
 * <p>Not thread-safe: one comparison at a time on its table.
 */
public final class FilterComparison {

  /** YCSB++'s four filters, in the paper's order. */
  public enum Kind {
    ROW_KEY("row-key", "RowFilter"),
    QUALIFIER("qualifier", "QualifierFilter"),
    VALUE("value", "ValueFilter"),
    ROW_BY_COLUMN("row-by-column", "SingleColumnValueFilter");

    final String label;
    final String hbaseClass;

    Kind(String label, String hbaseClass) {
      this.label = label;
      this.hbaseClass = hbaseClass;
    }

    /** Whole rows come back (row key, row by column) rather than single cells. */
    boolean selectsRows() {
      return this == ROW_KEY || this == ROW_BY_COLUMN;
    }
  }

  /** What a comparison does. */
  public record Settings(long records, int fieldCount, int fieldLength, int regions,
    List<Integer> scanRows, List<Integer> selectivities, int repetitions, long seed) {
    public Settings {
      if (fieldCount < 1 || fieldCount % 100 != 0) {
        throw new IllegalArgumentException("--filter-compare needs fieldcount a multiple of 100 "
          + "(each selectivity in whole percent of a row's fields), not " + fieldCount);
      }
      if (fieldLength < 4) {
        throw new IllegalArgumentException("--filter-compare needs fieldlength of at least 4 "
          + "(a value starts with its 3-byte rank marker), not " + fieldLength);
      }
      for (int rows : scanRows) {
        if (rows < 1 || rows > records) {
          throw new IllegalArgumentException("--filter-lengths: a scan covers 1 to --records ("
            + records + ") rows, not " + rows);
        }
      }
      for (int k : selectivities) {
        if (k < 1 || k > 100) {
          throw new IllegalArgumentException("--filter-selectivities are whole percents from 1 "
            + "to 100, not " + k);
        }
      }
      if (repetitions < 1 || regions < 1) {
        throw new IllegalArgumentException("--filter-reps and --regions must be at least 1");
      }
      scanRows = List.copyOf(scanRows);
      selectivities = List.copyOf(selectivities);
    }
  }

  /**
   * One side of a cell (server-side filter or client-side predicate) over all its scans.
   *
   * @param nanos time of each scan, from opening the scanner to its last result (the median is
   *     what is compared)
   * @param bytes bytes of the Results the client received ({@link #serializedSize}), summed
   *     over the scans
   * @param matched rows (row filters) or cells (column filters) that passed the predicate
   * @param rows rows with at least one match (for row filters, {@code matched})
   */
  public record Side(long[] nanos, long bytes, long matched, long rows) {
    /**
     * The median scan's milliseconds: on cores shared with other work a few scans that wait for
     * a core would otherwise decide the mean.
     */
    public double msPerScan() {
      return Median.of(Arrays.stream(nanos).asDoubleStream().toArray()) / 1e6;
    }

    public double msMean() {
      return Arrays.stream(nanos).average().orElse(Double.NaN) / 1e6;
    }

    public double bytesPerScan() {
      return (double) bytes / nanos.length;
    }
  }

  /**
   * One filter at one scan length and selectivity.
   *
   * @param rowsScanned rows in the scanned ranges, summed over the scans
   * @param expected matches the data holds in those ranges (what both sides must return)
   * @param scannedBytes bytes of the whole rows in those ranges (what the client-side scans got)
   */
  public record Cell(Kind filter, int scanRows, int selectivity, int scans, long rowsScanned,
    long expected, long scannedBytes, Side server, Side client) {
    /** Client-side time over server-side time: above 1 the server-side filter pays. */
    public double ratio() {
      return client.msPerScan() / server.msPerScan();
    }

    public boolean agree() {
      return server.matched() == expected && client.matched() == expected
        && server.rows() == client.rows();
    }

    public double mbScannedPerScan() {
      return scannedBytes / (double) scans / (1 << 20);
    }

    @Override
    public String toString() {
      return String.format(Locale.ROOT, "%-13s %5d rows %3d %%: server %8.3f ms %10d B, client "
        + "%8.3f ms %10d B per scan, client/server %.2f, %d %s matched of %d rows (%.2f MB "
        + "scanned per scan)", filter.label, scanRows, selectivity, server.msPerScan(),
        Math.round(server.bytesPerScan()), client.msPerScan(), Math.round(client.bytesPerScan()),
        ratio(), expected, filter.selectsRows() ? "rows" : "cells", rowsScanned,
        mbScannedPerScan());
    }
  }

  /** Every cell, and how long loading took. */
  public record Result(Settings settings, double loadSeconds, long loadedBytes, List<Cell> cells) {
    /** Cells where server and client returned other counts than the data holds. */
    public List<Cell> disagreements() {
      return cells.stream().filter(c -> !c.agree()).toList();
    }

    /**
     * The shortest scan length from which the server-side filter is faster at this and every
     * longer length, for a filter and selectivity; null when it is not faster at the longest.
     */
    public Cell paysFrom(Kind filter, int selectivity) {
      Cell from = null;
      List<Cell> row = cells.stream()
        .filter(c -> c.filter() == filter && c.selectivity() == selectivity)
        .sorted((a, b) -> Integer.compare(a.scanRows(), b.scanRows())).toList();
      for (int i = row.size() - 1; i >= 0 && row.get(i).ratio() > 1; i--) {
        from = row.get(i);
      }
      return from;
    }

    /** One line per filter: where server-side filtering starts to pay, per selectivity. */
    public List<String> summary() {
      List<String> lines = new ArrayList<>();
      for (Kind k : Kind.values()) {
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%-13s server-side "
          + "faster from:", k.label));
        for (int sel : settings.selectivities()) {
          Cell c = paysFrom(k, sel);
          b.append(String.format(Locale.ROOT, "  %d %%: %s", sel, c == null ? "never"
            : String.format(Locale.ROOT, "%d rows (%.2f MB scanned, x%.2f)", c.scanRows(),
              c.mbScannedPerScan(), c.ratio())));
        }
        lines.add(b.toString());
      }
      return lines;
    }
  }

  /** What YCSB++ found (Table 1, section 3.5, Figures 14 and 16). */
  public static final String PAPER = "YCSB++ (HBase, IcyTable; 100 fields of 1,000 B, scans of "
    + "1 to 1,000 rows): server-side filtering pays only when a scan reads enough data, more "
    + "than about 10 MB, to mask the overhead of network transfer and disk reads; below that "
    + "it does not help and can slow scans down";

  private static final int KEY_DIGITS = 10;

  private final Connection connection;
  private final TableName table;
  private final byte[] family;
  private final Settings s;

  public FilterComparison(Connection connection, TableName table, String family, Settings s) {
    this.connection = connection;
    this.table = table;
    this.family = Bytes.toBytes(family);
    this.s = s;
  }

  /**
   * The rank of a position: its last two decimal digits reversed ({@code 37 -> 73}). Below
   * {@code k}: for {@code k = 10a + b}, last digit below {@code a}, or last digit {@code a} and
   * tens digit below {@code b}, which any 100 consecutive positions meet exactly {@code k} times.
   */
  static int rank(long position) {
    int p = (int) Math.floorMod(position, 100L);
    return (p % 10) * 10 + p / 10;
  }

  /** A regular expression for the two-digit ranks below {@code k} (1..100). */
  static String ranksBelow(int k) {
    if (k >= 100) {
      return "[0-9][0-9]";
    }
    int tens = k / 10;
    int ones = k % 10;
    List<String> parts = new ArrayList<>();
    if (tens > 0) {
      parts.add("[0-" + (tens - 1) + "][0-9]");
    }
    if (ones > 0) {
      parts.add(tens + "[0-" + (ones - 1) + "]");
    }
    return "(?:" + String.join("|", parts) + ")";
  }

  static String rowKey(long row) {
    return String.format(Locale.ROOT, "user%0" + KEY_DIGITS + "d-r%02d", row, rank(row));
  }

  /** Where row {@code row}'s key range starts (before its rank suffix). */
  static byte[] rowStart(long row) {
    return Bytes.toBytes(String.format(Locale.ROOT, "user%0" + KEY_DIGITS + "d", row));
  }

  static String qualifier(int field) {
    return String.format(Locale.ROOT, "field%02d-r%02d", field, rank(field));
  }

  /** Filter 4 tests the column by its full name: field 0's qualifier. */
  static byte[] testColumn() {
    return Bytes.toBytes(qualifier(0));
  }

  static int valueRank(long row, int field) {
    return rank(row + field);
  }

  /** The pattern of a filter at {@code k} %: anchored, so the padding of a value never counts. */
  static String pattern(Kind kind, int k) {
    return switch (kind) {
      case ROW_KEY -> "^user[0-9]{" + KEY_DIGITS + "}-r" + ranksBelow(k) + "$";
      case QUALIFIER -> "^field[0-9]+-r" + ranksBelow(k) + "$";
      case VALUE, ROW_BY_COLUMN -> "^r" + ranksBelow(k);
    };
  }

  /** HBase's filter for {@code kind} at {@code k} %. */
  Filter serverFilter(Kind kind, int k) {
    RegexStringComparator regex = new RegexStringComparator(pattern(kind, k));
    return switch (kind) {
      case ROW_KEY -> new RowFilter(CompareOperator.EQUAL, regex);
      case QUALIFIER -> new QualifierFilter(CompareOperator.EQUAL, regex);
      case VALUE -> new ValueFilter(CompareOperator.EQUAL, regex);
      case ROW_BY_COLUMN -> {
        SingleColumnValueFilter f =
          new SingleColumnValueFilter(family, testColumn(), CompareOperator.EQUAL, regex);
        // a row without the column is not a match (YCSB++: rows where the column matches)
        f.setFilterIfMissing(true);
        yield f;
      }
    };
  }

  /** Matches the data holds among rows {@code [from, from + rows)}: what both sides must return. */
  long expected(Kind kind, int k, long from, int rows) {
    long n = 0;
    for (long r = from; r < from + rows; r++) {
      switch (kind) {
        case ROW_KEY, ROW_BY_COLUMN -> n += rank(r) < k ? 1 : 0;
        case QUALIFIER -> {
          for (int f = 0; f < s.fieldCount(); f++) {
            n += rank(f) < k ? 1 : 0;
          }
        }
        case VALUE -> {
          for (int f = 0; f < s.fieldCount(); f++) {
            n += valueRank(r, f) < k ? 1 : 0;
          }
        }
        default -> throw new IllegalStateException(kind.toString());
      }
    }
    return n;
  }

  /** Creates and loads the table, flushes it, scans it once; then every cell; drops it. */
  public Result run(Consumer<Object> progress) throws IOException {
    long t0 = System.nanoTime();
    long loaded = load();
    double loadSeconds = (System.nanoTime() - t0) / 1e9;
    progress.accept(String.format(Locale.ROOT, "loaded %d rows of %d x %d B (%d MiB of cells) "
      + "into %d region(s) in %.1f s, flushed", s.records(), s.fieldCount(), s.fieldLength(),
      loaded >> 20, s.regions(), loadSeconds));
    // One full scan before timing: both sides then read the same warm files.
    countRows(new Scan());
    List<Cell> cells = new ArrayList<>();
    Random random = new Random(s.seed());
    try {
      for (int rows : s.scanRows()) {
        for (Kind kind : Kind.values()) {
          for (int k : s.selectivities()) {
            Cell c = cell(kind, rows, k, random);
            cells.add(c);
            progress.accept(c);
          }
        }
      }
    } finally {
      try (Admin admin = connection.getAdmin()) {
        YcsbTable.dropIfExists(admin, table);
      }
    }
    return new Result(s, loadSeconds, loaded, cells);
  }

  private Cell cell(Kind kind, int rows, int k, Random random) throws IOException {
    Pattern p = Pattern.compile(pattern(kind, k), Pattern.DOTALL);
    int n = s.repetitions();
    long[] serverNanos = new long[n];
    long[] clientNanos = new long[n];
    long[] serverTotals = new long[3];
    long[] clientTotals = new long[3];
    long expected = 0;
    long rowsScanned = 0;
    for (int rep = 0; rep < n; rep++) {
      long from = (long) (random.nextDouble() * (s.records() - rows + 1));
      long want = expected(kind, k, from, rows);
      expected += want;
      rowsScanned += rows;
      // the sides take turns going first, so neither always reads after the other
      for (int side = 0; side < 2; side++) {
        boolean server = (side == 0) == (rep % 2 == 0);
        Scan scan = new Scan().withStartRow(rowStart(from)).withStopRow(rowStart(from + rows));
        long[] got = server ? serverSide(scan.setFilter(serverFilter(kind, k)), kind)
          : clientSide(scan, kind, p);
        (server ? serverNanos : clientNanos)[rep] = got[0];
        if (got[2] != want) {
          throw new IllegalStateException(String.format(Locale.ROOT, "%s at %d %%, rows [%d, %d):"
            + " the %s side found %d matches, the data holds %d", kind.label, k, from,
            from + rows, server ? "server" : "client", got[2], want));
        }
        long[] totals = server ? serverTotals : clientTotals;
        totals[0] += got[1];
        totals[1] += got[2];
        totals[2] += got[3];
      }
    }
    return new Cell(kind, rows, k, n, rowsScanned, expected, clientTotals[0],
      new Side(serverNanos, serverTotals[0], serverTotals[1], serverTotals[2]),
      new Side(clientNanos, clientTotals[0], clientTotals[1], clientTotals[2]));
  }

  /**
   * {nanos, bytes received, matches, rows}: the server filtered, the client counts what came.
   */
  private long[] serverSide(Scan scan, Kind kind) throws IOException {
    long t0 = System.nanoTime();
    long bytes = 0;
    long matches = 0;
    long rows = 0;
    try (Table t = connection.getTable(table); ResultScanner rs = t.getScanner(scan)) {
      for (org.apache.hadoop.hbase.client.Result r = rs.next(); r != null; r = rs.next()) {
        bytes += serializedSize(r);
        matches += kind.selectsRows() ? 1 : r.size();
        rows++;
      }
    }
    return new long[] { System.nanoTime() - t0, bytes, matches, rows };
  }

  /**
   * {nanos, bytes received, matches, rows}: every row came, the client applies the predicate
   * and keeps what passes, as an application would.
   */
  private long[] clientSide(Scan scan, Kind kind, Pattern p) throws IOException {
    long t0 = System.nanoTime();
    long bytes = 0;
    long matches = 0;
    long rows = 0;
    byte[] column = testColumn();
    List<Object> kept = new ArrayList<>();
    try (Table t = connection.getTable(table); ResultScanner rs = t.getScanner(scan)) {
      for (org.apache.hadoop.hbase.client.Result r = rs.next(); r != null; r = rs.next()) {
        bytes += serializedSize(r);
        long before = matches;
        switch (kind) {
          case ROW_KEY -> matches += keep(kept, r, matches(p, r.getRow()));
          case QUALIFIER, VALUE -> {
            for (org.apache.hadoop.hbase.Cell c : r.rawCells()) {
              matches += keep(kept, c, matches(p, kind == Kind.QUALIFIER
                ? CellUtil.cloneQualifier(c) : CellUtil.cloneValue(c)));
            }
          }
          case ROW_BY_COLUMN -> {
            byte[] v = r.getValue(family, column);
            matches += keep(kept, r, v != null && matches(p, v));
          }
          default -> throw new IllegalStateException(kind.toString());
        }
        rows += matches > before ? 1 : 0;
      }
    }
    return new long[] { System.nanoTime() - t0, bytes, matches, rows };
  }

  private static int keep(List<Object> kept, Object o, boolean match) {
    if (match) {
      kept.add(o);
    }
    return match ? 1 : 0;
  }

  /**
   * Bytes of a Result as the scan's response carries them: its cells' KeyValue encoding
   * ({@code Cell.getSerializedSize}; {@code Result.getTotalSizeOfCells} counts heap instead).
   */
  static long serializedSize(org.apache.hadoop.hbase.client.Result r) {
    long n = 0;
    for (org.apache.hadoop.hbase.Cell c : r.rawCells()) {
      n += c.getSerializedSize();
    }
    return n;
  }

  /** As {@link RegexStringComparator} matches: find() over the bytes read as ISO-8859-1. */
  private static boolean matches(Pattern p, byte[] bytes) {
    return p.matcher(new String(bytes, StandardCharsets.ISO_8859_1)).find();
  }

  /** Rows {@code scan} returns. */
  private long countRows(Scan scan) throws IOException {
    long n = 0;
    try (Table t = connection.getTable(table); ResultScanner rs = t.getScanner(scan)) {
      while (rs.next() != null) {
        n++;
      }
    }
    return n;
  }

  /** The table, pre-split by row number, loaded with Puts (WAL skipped) and flushed. */
  private long load() throws IOException {
    try (Admin admin = connection.getAdmin()) {
      YcsbTable.dropIfExists(admin, table);
      TableDescriptorBuilder td = TableDescriptorBuilder.newBuilder(table)
        .setColumnFamily(ColumnFamilyDescriptorBuilder.of(family));
      if (s.regions() > 1) {
        byte[][] splits = new byte[s.regions() - 1][];
        for (int i = 1; i < s.regions(); i++) {
          splits[i - 1] = rowStart(s.records() * i / s.regions());
        }
        admin.createTable(td.build(), splits);
      } else {
        admin.createTable(td.build());
      }
    }
    byte[][] qualifiers = new byte[s.fieldCount()][];
    for (int f = 0; f < qualifiers.length; f++) {
      qualifiers[f] = Bytes.toBytes(qualifier(f));
    }
    Random random = new Random(s.seed() ^ 0x5DEECE66DL);
    long bytes = 0;
    try (BufferedMutator m = connection.getBufferedMutator(table)) {
      for (long row = 0; row < s.records(); row++) {
        // the WAL is not what is measured, and skipping it halves the load's writes
        Put put = new Put(Bytes.toBytes(rowKey(row))).setDurability(Durability.SKIP_WAL);
        for (int f = 0; f < qualifiers.length; f++) {
          put.addColumn(family, qualifiers[f], value(valueRank(row, f), random));
        }
        for (org.apache.hadoop.hbase.Cell c : put.getFamilyCellMap().get(family)) {
          bytes += c.getSerializedSize();
        }
        m.mutate(put);
      }
    }
    try (Admin admin = connection.getAdmin()) {
      admin.flush(table);
    }
    long rows = countRows(new Scan().setFilter(new FirstKeyOnlyFilter()));
    if (rows != s.records()) {
      throw new IOException("Loaded " + s.records() + " rows into " + table + ", found " + rows);
    }
    return bytes;
  }

  /** {@code r<rank>} then printable padding, as YCSB's values are printable. */
  private byte[] value(int rank, Random random) {
    byte[] v = new byte[s.fieldLength()];
    byte[] marker = Bytes.toBytes(String.format(Locale.ROOT, "r%02d", rank));
    System.arraycopy(marker, 0, v, 0, marker.length);
    for (int i = marker.length; i < v.length; i++) {
      v[i] = (byte) (' ' + random.nextInt(95));
    }
    return v;
  }
}
