package io.strata.bench.media;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.strata.hbase.tiering.TieringKeys;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hbase.HConstants;
import org.junit.Test;

/**
 * The storage-media paper's Table 1 as mapped to Strata's placement keys.
 *
 * <p>The storage-media paper: <i>Optimize Hadoop Cluster Performance with Various Storage Media</i>.
 */
public class MediaCasesTest {

  @Test
  public void elevenCasesNamedAsInTheStudy() {
    assertEquals(List.of("50G_RAM", "50G_SSD", "50G_HDD", "1T_SSD", "1T_HDD", "1T_RAM_SSD",
      "1T_RAM_HDD", "1T_SSD_HDD", "1T_SSD_All_HDD", "1T_RAM_SSD_HDD", "1T_RAM_SSD_All_HDD"),
      MediaCases.ALL.stream().map(MediaCase::name).toList());
    for (MediaCase c : MediaCases.ALL) {
      assertEquals(c.name(), c.name().startsWith("50G_") ? Dataset.FITS_RAM
        : Dataset.EXCEEDS_RAM, c.dataset());
    }
  }

  @Test
  public void tieredCasesPlaceEachKindAsTable1Says() {
    long threshold = 16L << 20;
    Map<String, String> ramSsdHdd = MediaCases.byName("1T_RAM_SSD_HDD").orElseThrow()
      .hbaseKeys(threshold);
    assertEquals("ALL_NVDIMM", ramSsdHdd.get(HConstants.WAL_STORAGE_POLICY));
    // the study's all-RAM WAL is a deliberate, declared risk
    assertEquals("true", ramSsdHdd.get(TieringKeys.UNSAFE_WAL_VOLATILE_ACCEPT));
    assertEquals("ALL_SSD", ramSsdHdd.get(TieringKeys.FLUSH_POLICY));
    assertEquals("ALL_SSD", ramSsdHdd.get(TieringKeys.COMPACTION_SMALL_POLICY));
    assertEquals("HOT", ramSsdHdd.get(TieringKeys.COMPACTION_LARGE_POLICY));
    assertEquals("HOT", ramSsdHdd.get(TieringKeys.ARCHIVE_POLICY));
    assertEquals("HOT", ramSsdHdd.get(TieringKeys.OLDWAL_POLICY));
    assertEquals(Long.toString(threshold), ramSsdHdd.get(TieringKeys.COMPACTION_THRESHOLD));

    // "All_HDD": every compaction, small or large, on HDD; WAL and flushes stay fast.
    Map<String, String> allHdd = MediaCases.byName("1T_SSD_All_HDD").orElseThrow()
      .hbaseKeys(threshold);
    assertEquals("ALL_SSD", allHdd.get(HConstants.WAL_STORAGE_POLICY));
    assertEquals("false", allHdd.get(TieringKeys.UNSAFE_WAL_VOLATILE_ACCEPT));
    assertEquals("ALL_SSD", allHdd.get(TieringKeys.FLUSH_POLICY));
    assertEquals("HOT", allHdd.get(TieringKeys.COMPACTION_SMALL_POLICY));
    assertEquals("HOT", allHdd.get(TieringKeys.COMPACTION_LARGE_POLICY));

    MediaCase ramSsd = MediaCases.byName("1T_RAM_SSD").orElseThrow();
    assertEquals(Medium.RAM, ramSsd.wal());
    assertEquals("other files on SSD", Medium.SSD, ramSsd.rest());
    assertTrue(MediaCases.byName("50G_RAM").orElseThrow().allOn(Medium.RAM));
  }

  @Test
  public void baselinesAreTheAllHddCases() {
    assertEquals("50G_HDD", MediaCases.hddBaseline(Dataset.FITS_RAM).name());
    assertEquals("1T_HDD", MediaCases.hddBaseline(Dataset.EXCEEDS_RAM).name());
  }

  @Test
  public void parsesListsInTheStudysOrderAndRejectsUnknownNames() {
    assertEquals(List.of("50G_RAM", "1T_HDD"), MediaCases.parse(" 1t_hdd,50G_RAM,1T_HDD")
      .stream().map(MediaCase::name).toList());
    try {
      MediaCases.parse("1T_RAM");
      fail();
    } catch (IllegalArgumentException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("1T_RAM_SSD_All_HDD"));
    }
    try {
      MediaCases.parse(" , ");
      fail();
    } catch (IllegalArgumentException expected) {
      // no name at all
    }
  }
}
