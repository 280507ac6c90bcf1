package io.strata.bench.media;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.strata.bench.ycsb.YcsbTable;
import io.strata.local.EmbeddedHBase;
import io.strata.local.TestClusters;
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.BufferedMutatorParams;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.ClassRule;
import org.junit.Test;
import site.ycsb.Utils;

/**
 * The WAL bytes of YCSB records on a cluster of upstream's defaults (no small memstores, no
 * splits during the load: the WAL then holds the records' entries and little else).
 */
public class WalBytesIT {
  @ClassRule
  public static final TestClusters.Running CLUSTER = TestClusters.running(
    TestClusters.small("wal-bytes"));

  /**
   * The media study's question why the WAL holds more bytes than the records: YCSB's records (5
   * fields of 200 bytes, keys {@code user<hash>}) through a 64 KiB client buffer as the study's
   * load writes them, the WAL files they made measured on HDFS, against {@code WalBytes}' account
   * from HBase's own WAL encoding.
   */
  @Test
  public void walBytesPerRecordAreTheEncodedCellsNotTheValues() throws Exception {
    EmbeddedHBase hbase = CLUSTER.hbase();
    TableName table = TableName.valueOf("wal_bytes");
    byte[] family = Bytes.toBytes(YcsbTable.DEFAULT_FAMILY);
    int records = 20_000;
    try (Admin admin = hbase.connection().getAdmin()) {
      YcsbTable.create(admin, table, YcsbTable.DEFAULT_FAMILY, 1);
      FileSystem fs = hbase.rootDir().getFileSystem(hbase.configuration());
      admin.rollWALWriter(hbase.regionServer(0).getServerName());
      Map<String, Long> before = walFiles(fs, hbase.rootDir());
      long keyBytes = 0;
      try (BufferedMutator m = hbase.connection().getBufferedMutator(
        new BufferedMutatorParams(table).writeBufferSize(64 << 10))) {
        for (int i = 0; i < records; i++) {
          byte[] row = Bytes.toBytes("user" + Utils.hash(i));
          keyBytes += row.length;
          Put p = new Put(row);
          for (int f = 0; f < 5; f++) {
            p.addColumn(family, Bytes.toBytes("field" + f), new byte[200]);
          }
          m.mutate(p);
        }
      }
      // Close the WAL the load went to, so that HDFS reports its whole length.
      admin.rollWALWriter(hbase.regionServer(0).getServerName());
      // The NameNode learns a closed file's last block length when the DataNodes report it:
      // wait until the count stops changing.
      long written = -1;
      for (int i = 0; i < 60; i++) {
        Thread.sleep(500);
        long now = 0;
        for (Map.Entry<String, Long> e : walFiles(fs, hbase.rootDir()).entrySet()) {
          now += e.getValue() - before.getOrDefault(e.getKey(), 0L);
        }
        if (now == written && now > (long) records * 1000) {
          break;
        }
        written = now;
      }
      byte[] typicalRow = Bytes.toBytes("user" + Utils.hash(records / 2));
      WalBytes.PerRecord one = WalBytes.of(hbase.configuration(), table, typicalRow, family, 5,
        200);
      double measured = (double) written / records;
      double values = 1000;
      double meanRow = (double) keyBytes / records;
      // Every cell repeats the row key: correct the typical row to the mean one.
      double cells = one.cellBytes() + 5 * (meanRow - typicalRow.length);
      System.out.printf("WAL bytes per record: measured %.1f (%.3f x the values); cells %.1f "
        + "(of which values %d), entry key %d bytes per mini-batch; mean row key %.1f bytes%n",
        measured, measured / values, cells, one.valueBytes(), one.entryKeyBytes(), meanRow);
      assertEquals(1000, one.valueBytes());
      assertTrue(one.toString(), one.cellBytes() > 1200 && one.entryKeyBytes() > 40);
      // The cells account for the WAL but for the entries' keys and a few markers: between the
      // cells alone and the cells plus one key per record.
      assertTrue(measured + " vs " + cells, measured >= cells * 0.99);
      assertTrue(measured + " vs " + cells, measured <= cells + one.entryKeyBytes());
      assertTrue(measured / values + "", measured / values > 1.25 && measured / values < 1.6);
      YcsbTable.dropIfExists(admin, table);
    }
  }

  private static Map<String, Long> walFiles(FileSystem fs, Path root)
    throws Exception {
    Map<String, Long> sizes = new HashMap<>();
    for (String dir : new String[] { HConstants.HREGION_LOGDIR_NAME,
      HConstants.HREGION_OLDLOGDIR_NAME }) {
      Path p = new Path(root, dir);
      if (!fs.exists(p)) {
        continue;
      }
      var it = fs.listFiles(p, true);
      while (it.hasNext()) {
        FileStatus s = it.next();
        // A WAL keeps its name when it is archived to oldWALs.
        sizes.merge(s.getPath().getName(), s.getLen(), Math::max);
      }
    }
    return sizes;
  }
}
