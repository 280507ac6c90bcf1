package io.strata.bench.compare;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.fs.StorageType;
import org.junit.Test;

public class ReplicaLandingTest {
  private static Map<String, Map<String, Long>> parts(Map<String, Long> tables,
    Map<String, Long> wals) {
    Map<String, Map<String, Long>> m = new LinkedHashMap<>();
    m.put("tables", tables);
    m.put("wals", wals);
    return m;
  }

  @Test
  public void eachReplicaCountsUnderItsType() {
    Map<String, Long> byType = new TreeMap<>();
    ReplicaLanding.add(byType, new StorageType[] { StorageType.NVDIMM, StorageType.SSD,
      StorageType.SSD }, 100);
    ReplicaLanding.add(byType, new StorageType[] { StorageType.DISK }, 7);
    assertEquals(Map.of("DISK", 7L, "NVDIMM", 100L, "SSD", 200L), byType);
  }

  @Test
  public void theTableGivesSharesSummedOverRepetitions() {
    String md = ReplicaLanding.markdown(List.of(
      new ReplicaLanding("stock", 1, "after load", parts(Map.of("DISK", 3L << 20),
        Map.of("DISK", 1L << 20))),
      new ReplicaLanding("stock", 2, "after load", parts(Map.of("DISK", 3L << 20),
        Map.of())),
      new ReplicaLanding("strata", 1, "after load", parts(Map.of("SSD", 1L << 20,
        "DISK", 3L << 20), Map.of("NVDIMM", 1L << 20, "SSD", 2L << 20)))));
    String[] lines = md.split("\n");
    // Only the types that hold replicas are columns, fastest first.
    assertTrue(lines[0], lines[0].contains("| NVDIMM | SSD | DISK |"));
    assertFalse(lines[0], lines[0].contains("ARCHIVE"));
    assertTrue(md, md.contains("| stock | after load | tables | 6.0 | | | 100 % |"));
    assertTrue(md, md.contains("| stock | after load | wals | 1.0 | | | 100 % |"));
    assertTrue(md, md.contains("| strata | after load | tables | 4.0 | | 25 % | 75 % |"));
    assertTrue(md, md.contains("| strata | after load | wals | 3.0 | 33 % | 67 % | |"));
  }
}
