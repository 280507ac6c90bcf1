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

  @Test
  public void namesEachFamilysEngineAndWhetherItPlaces() {
    PlacementReport r = new PlacementReport("/hbase");
    Map<String, io.strata.hbase.tiering.TierPolicies> policies = new java.util.TreeMap<>();
    org.apache.hadoop.conf.Configuration conf = new org.apache.hadoop.conf.Configuration(false);
    policies.put("default:t/a", io.strata.hbase.tiering.TierPolicies.from(conf));
    policies.put("default:t/d", io.strata.hbase.tiering.TierPolicies.from(conf));
    Map<String, String> engines = new java.util.TreeMap<>();
    engines.put("default:t/a", "io.strata.hbase.tiering.TieredStoreEngine");
    engines.put("default:t/d", "org.apache.hadoop.hbase.regionserver.DateTieredStoreEngine");
    r.setFamilyPolicies(policies);
    r.setFamilyEngines(engines);
    JsonNode families = r.toJson().get("families");
    assertEquals("io.strata.hbase.tiering.TieredStoreEngine",
      families.get("default:t/a").get("engine").asText());
    assertTrue(families.get("default:t/a").get("engine_places").asBoolean());
    assertEquals("org.apache.hadoop.hbase.regionserver.DateTieredStoreEngine",
      families.get("default:t/d").get("engine").asText());
    assertEquals(false, families.get("default:t/d").get("engine_places").asBoolean());
    assertEquals(engines, r.familyEngines());
    String text = r.policiesTable();
    assertTrue(text, text.contains("[engine org.apache.hadoop.hbase.regionserver."
      + "DateTieredStoreEngine; Strata's placement off"));
    assertTrue(text, text.contains("[engine io.strata.hbase.tiering.TieredStoreEngine]"));
  }
}
