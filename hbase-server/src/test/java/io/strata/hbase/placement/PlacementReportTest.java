package io.strata.hbase.placement;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.EnumMap;
import java.util.Map;
import org.apache.hadoop.fs.StorageType;
import org.junit.Test;

public class PlacementReportTest {

  private static Map<StorageType, Long> replicas(Object... typeAndCount) {
    Map<StorageType, Long> m = new EnumMap<>(StorageType.class);
    for (int i = 0; i < typeAndCount.length; i += 2) {
      m.put((StorageType) typeAndCount[i], ((Number) typeAndCount[i + 1]).longValue());
    }
    return m;
  }

  @Test
  public void everyKindIsInTheJsonWithZeros() {
    JsonNode kinds = new PlacementReport("hdfs://nn/hbase").toJson().get("kinds");
    for (FileKind kind : FileKind.values()) {
      JsonNode k = kinds.get(kind.jsonName());
      assertEquals(0, k.get("files").asLong());
      assertEquals(0, k.get("bytes").asLong());
      assertEquals(0, k.get("replicas").size());
    }
    assertEquals(7, kinds.size());
    assertEquals(0, kinds.get("bulkloaded").get("files").asLong());
  }

  @Test
  public void sumsFilesBytesAndReplicasPerKind() {
    PlacementReport r = new PlacementReport("/hbase");
    r.add(new PlacedFile("/hbase/WALs/a/1", FileKind.WAL, 100, replicas(StorageType.NVDIMM, 3)));
    r.add(new PlacedFile("/hbase/WALs/a/2", FileKind.WAL, 50,
      replicas(StorageType.NVDIMM, 2, StorageType.DISK, 1)));
    r.add(new PlacedFile("/hbase/oldWALs/1", FileKind.OLDWAL, 7, replicas()));
    JsonNode wal = r.toJson().get("kinds").get("wal");
    assertEquals(2, wal.get("files").asLong());
    assertEquals(150, wal.get("bytes").asLong());
    assertEquals(5, wal.get("replicas").get("NVDIMM").asLong());
    assertEquals(1, wal.get("replicas").get("DISK").asLong());
    assertEquals(5 / 6.0, wal.get("share").get("NVDIMM").asDouble(), 1e-9);
    assertEquals(1, r.kind(FileKind.OLDWAL).files());
    assertEquals(0, r.kind(FileKind.OLDWAL).totalReplicas());
    String table = r.toTable();
    assertTrue(table, table.contains("5 (83.3%)"));
    assertTrue(table, table.contains("oldwal"));
  }
}
