package io.strata.bench.ycsb;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The table YCSB writes to, which must exist before a run: created empty or pre-split into
 * regions of about equal share of YCSB's hashed key space, so that a load does not start on one
 * region and pay for its splits.
 *
 * <p>With YCSB's default {@code insertorder=hashed} a key is {@code user} followed by the decimal
 * digits of a 64-bit FNV hash made non-negative, about uniform over {@code [0, 2^63)}. Key order
 * is string order, so the digits after {@code user} sort like a decimal fraction {@code 0.d1d2...}
 * ({@code user9...} after {@code user10...}). {@link #splitKeys} inverts the distribution of that
 * fraction: 19-digit hashes (89% of them) spread it over {@code [0.1, 0.922...)}, shorter ones over
 * {@code [0.1, 1)}. Ordered inserts ({@code insertorder=ordered}) are not covered.
 */
public final class YcsbTable {
  public static final TableName DEFAULT_TABLE = TableName.valueOf(HBaseClient26.TABLE_DEFAULT);
  public static final String DEFAULT_FAMILY = "family";

  private static final String KEY_PREFIX = "user";
  private static final double TWO_TO_63 = 0x1p63;

  private YcsbTable() {
  }

  /** Creates {@code table} with one family, pre-split into {@code regions} (1: not split). */
  public static void create(Admin admin, TableName table, String family, int regions)
    throws IOException {
    TableDescriptor td = TableDescriptorBuilder.newBuilder(table)
      .setColumnFamily(ColumnFamilyDescriptorBuilder.of(family)).build();
    if (regions <= 1) {
      admin.createTable(td);
    } else {
      admin.createTable(td, splitKeys(regions));
    }
  }

  /** Disables and deletes {@code table} if it exists. */
  public static void dropIfExists(Admin admin, TableName table) throws IOException {
    if (admin.tableExists(table)) {
      if (admin.isTableEnabled(table)) {
        admin.disableTable(table);
      }
      admin.deleteTable(table);
    }
  }

  /**
   * The {@code regions - 1} split keys that give each region about the same share of hashed YCSB
   * keys, e.g. for 4 regions {@code user308, user515, user723}.
   */
  public static byte[][] splitKeys(int regions) {
    if (regions < 2) {
      throw new IllegalArgumentException("Splitting needs at least 2 regions, not " + regions);
    }
    int digits = 2 + (int) Math.ceil(Math.log10(regions));
    byte[][] keys = new byte[regions - 1][];
    String previous = "";
    for (int i = 1; i < regions; i++) {
      String fraction = BigDecimal.valueOf(fractionAtShare((double) i / regions))
        .setScale(digits, RoundingMode.HALF_UP).toPlainString();
      String key = KEY_PREFIX + fraction.substring(fraction.indexOf('.') + 1);
      if (key.compareTo(previous) <= 0) {
        throw new IllegalStateException("Split keys collide at " + key);
      }
      keys[i - 1] = Bytes.toBytes(key);
      previous = key;
    }
    return keys;
  }

  /** The fraction {@code f} below which {@code share} of hashed keys' digit fractions lie. */
  static double fractionAtShare(double share) {
    double lo = 0.1;
    double hi = 1.0;
    for (int i = 0; i < 100; i++) {
      double mid = (lo + hi) / 2;
      if (shareBelow(mid) < share) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return (lo + hi) / 2;
  }

  /**
   * Share of hashes {@code x} (uniform in {@code [0, 2^63)}) whose digits, read as {@code
   * 0.d1d2...}, are below {@code f}: an {@code L}-digit {@code x} has fraction {@code x / 10^L}.
   */
  static double shareBelow(double f) {
    double share = 0;
    double low = 1;
    for (int digits = 1; digits <= 19; digits++) {
      double high = Math.min(low * 10, TWO_TO_63);
      double weight = (high - (digits == 1 ? 0 : low)) / TWO_TO_63;
      double scale = Math.pow(10, digits);
      double from = digits == 1 ? 0 : low / scale;
      double to = high / scale;
      share += weight * Math.max(0, Math.min(1, (f - from) / (to - from)));
      low = high;
    }
    return share;
  }
}
