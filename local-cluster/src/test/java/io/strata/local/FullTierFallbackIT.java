package io.strata.local;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.strata.hbase.placement.FileKind;
import io.strata.hbase.placement.KindStats;
import io.strata.hbase.placement.PlacementReport;
import io.strata.hbase.placement.PlacementScanner;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.Test;

/**
 * A full tier makes HDFS fall back per policy (ALL_SSD and ALL_NVDIMM create on DISK): flushes and
 * WAL writes go on, and every row written reads back.
 */
public class FullTierFallbackIT {

  @Test
  public void fullSsdAndRamTiersLoseNoRow() throws Exception {
    LocalClusterConfig config = TestClusters.small("full-tier")
      .ramBytesPerDataNode(32L << 20) // below one WAL block (64 MiB)
      .ssdBytesPerDataNode(8L << 20); // below one HDFS block
    TableName table = TableName.valueOf("full_tier");
    byte[] f = Bytes.toBytes("f");
    long written = 0;
    try (TieredDfsCluster dfs = TieredDfsCluster.start(config);
      EmbeddedHBase hbase = EmbeddedHBase.start(dfs)) {
      hbase.connection().getAdmin().createTable(TableDescriptorBuilder.newBuilder(table)
        .setColumnFamily(ColumnFamilyDescriptorBuilder.of(f)).setMemStoreFlushSize(2L << 20)
        .build());
      try (Table t = hbase.connection().getTable(table)) {
        for (int batch = 0; batch < 20; batch++) {
          List<Put> puts = new ArrayList<>();
          for (int i = 0; i < 500; i++) {
            puts.add(new Put(Bytes.toBytes(String.format("r%08d", written + i)))
              .addColumn(f, Bytes.toBytes("q"), new byte[1024]));
          }
          t.put(puts);
          written += puts.size();
        }
      }
      hbase.connection().getAdmin().flush(table);
      long read = 0;
      try (Table t = hbase.connection().getTable(table);
        ResultScanner s = t.getScanner(new Scan())) {
        for (Result r : s) {
          assertEquals(1024, r.getValue(f, Bytes.toBytes("q")).length);
          read++;
        }
      }
      assertEquals(written, read);

      PlacementReport report =
        new PlacementScanner(dfs.fileSystem(), hbase.configuration()).scan(hbase.rootDir());
      System.out.print(report.toTable());
      KindStats flushed = report.kind(FileKind.FLUSHED);
      assertTrue(flushed.toString(), flushed.files() > 1);
      assertTrue("flushes fell back to DISK: " + flushed.replicas(),
        flushed.replicas().getOrDefault(StorageType.DISK, 0L) > 0);
      assertTrue("WALs fell back to DISK: " + report.kind(FileKind.WAL).replicas(),
        report.kind(FileKind.WAL).replicas().getOrDefault(StorageType.DISK, 0L) > 0);
    }
  }
}
