package io.strata.bench.faults;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.strata.bench.common.BenchJson;
import java.awt.image.BufferedImage;
import java.io.File;
import java.nio.file.Files;
import javax.imageio.ImageIO;
import org.junit.Test;

/** The campaign's report: the plot decodes and shows the run, the table has a row per fault. */
public class ChaosReportTest {
  private static final String RESULTS = "{\"faults\": [{\"fault\": \"kill-regionserver\", "
    + "\"daemon\": \"regionserver-1\", \"acked_writes\": 900, \"lost\": 0, \"duplicated\": 0, "
    + "\"writes_resumed_s\": 31.0, \"placement_converged_s\": 7.5, \"throughput_before\": 100, "
    + "\"throughput_during\": 5, \"throughput_after\": 90, \"daemons_not_back\": [], "
    + "\"recovered\": true}, {\"fault\": \"ram-tier-full\", \"daemon\": \"NVDIMM tier\", "
    + "\"acked_writes\": 1200, \"lost\": 0, \"duplicated\": 0, \"writes_resumed_s\": 2.0, "
    + "\"placement_converged_s\": 3.0, \"throughput_before\": 100, \"throughput_during\": 90, "
    + "\"throughput_after\": 100, \"daemons_not_back\": [], \"recovered\": true, "
    + "\"observed\": {\"nvdimm_remaining_seen_before_mb\": 500, \"wal_blocks_while_full\": {\"DISK\": 6}, "
    + "\"datanode_log\": [\"a `line`\"]}}, {\"fault\": \"kill-namenode\", \"daemon\": \"namenode\", "
    + "\"acked_writes\": 1500, \"lost\": 0, \"duplicated\": 0, \"writes_resumed_s\": null, "
    + "\"placement_converged_s\": null, \"throughput_before\": 100, \"throughput_during\": 0, "
    + "\"throughput_after\": 0, \"daemons_not_back\": [\"master\"], \"recovered\": false}], "
    + "\"markers\": [{\"fault\": \"kill-regionserver\", \"at_s\": 10, \"repaired_at_s\": 15}, "
    + "{\"fault\": \"kill-namenode\", \"at_s\": 60, \"repaired_at_s\": 65}], "
    + "\"acked_per_s\": [0, 90, 100, 110, 100, 95, 100, 100, 105, 100, 98, 2, 0, 0, 5, 40, 80, 90],"
    + " \"schedule\": {\"random\": true, \"seed\": 7, \"faults\": [\"kill-regionserver\", "
    + "\"kill-namenode\"], \"load_before_s\": [10, 12]}, \"all_recovered\": false}";

  /** The record of a results.json, a field it does not have refused. */
  private static ChaosResult read(String json) throws Exception {
    return BenchJson.convert(new ObjectMapper().readTree(json), ChaosResult.class);
  }

  /** The report says whose behaviour every fault of the full list shows, none left as "?". */
  @Test
  public void everyFaultHasWhoseBehaviourItShows() {
    for (String fault : FaultCampaign.ALL) {
      assertTrue("no 'whose behaviour' for " + fault, ChaosReport.WHOSE.containsKey(fault));
      String shows = FaultCampaign.SHOWS.get(fault);
      assertTrue(fault + ": the text names " + shows,
        ChaosReport.WHOSE.get(fault).contains(shows));
    }
  }

  @Test
  public void writesThePlotTheTableAndWhoseBehaviourEachRecoveryIs() throws Exception {
    ChaosResult results = read(RESULTS);
    File dir = Files.createTempDirectory("chaos-report").toFile();
    ChaosReport.write(dir, results, "strata chaos --random 2 --seed 7");
    BufferedImage png = ImageIO.read(new File(dir, "throughput.png"));
    assertEquals(1100, png.getWidth());
    String md = Files.readString(new File(dir, "report.md").toPath());
    assertTrue(md, md.contains("| kill-regionserver | regionserver-1 | 900 |  |  | 0 | 0 |  | 31.0 | 7.5 |"));
    assertTrue(md, md.contains("| kill-namenode | namenode | 1500 |  |  | 0 | 0 |  | (not) | (not) |"));
    assertTrue(md, md.contains("[\"master\"] | **no** |"));
    assertTrue(md, md.contains("`--random 2 --seed 7` repeats it"));
    assertTrue(md, md.contains("zookeeper.session.timeout"));
    assertTrue(md, md.contains("All recovered: **no**"));
    assertTrue(md, md.contains("| ram-tier-full | NVDIMM tier | 1200 |  |  | 0 | 0 |  | 2.0 | 3.0 |"));
    assertTrue(md, md.contains("- `ram-tier-full`: nvdimm_remaining_seen_before_mb 500; "
      + "wal_blocks_while_full {\"DISK\":6}\n  - DataNode log: `a 'line'`"));
    assertTrue(md, md.contains("creation fallback (ALL_NVDIMM's: DISK)"));
    assertEquals(results, BenchJson.read(new File(dir, "results.json"), ChaosResult.class));
  }

  @Test
  public void aHostFaultsLedgerSaysWhatWasLostUnderWhichWalPolicy() throws Exception {
    ChaosResult results = read("{\"wal_policy\": \"ALL_NVDIMM\", "
      + "\"wal_volatile_accepted\": true, \"faults\": [{\"fault\": \"power-loss\", "
      + "\"daemon\": \"strata-h1, strata-h2 (datanode-1, regionserver-1, datanode-2)\", "
      + "\"acked_writes\": 5000, \"checked\": 4990, \"lost\": 37, \"duplicated\": 0, "
      + "\"unreadable\": 10, \"writes_resumed_s\": null, \"placement_converged_s\": 20.0, "
      + "\"throughput_before\": 100, \"throughput_during\": 0, \"throughput_after\": 50, "
      + "\"daemons_not_back\": [], \"recovered\": false, \"problems\": [\"acknowledged Put "
      + "of p-x-01 not read back\"]}], \"markers\": [], \"acked_per_s\": [1, 2], "
      + "\"schedule\": {\"random\": false, \"faults\": [\"power-loss\"], "
      + "\"load_before_s\": [10]}, \"all_recovered\": false}");
    String md = ChaosReport.markdown(results, "strata chaos --faults power-loss");
    assertTrue(md, md.contains("WAL storage policy: `ALL_NVDIMM` (`strata.unsafe.wal.volatile"
      + ".accept=true`"));
    assertTrue(md, md.contains("| 5000 | 4990 (**10 unreadable**) |  | 37 | 0 |  | (not) | 20.0 |"));
    assertTrue(md, md.contains("- `power-loss`: at least 37 of 5000 acknowledged writes lost; 10 could not be read (not "
      + "known whether kept) (checked "
      + "4990, duplicated 0, unreadable 10)\n  - acknowledged Put of p-x-01 not read back"));
    assertTrue(md, md.contains("none under ALL_NVDIMM"));
  }

  @Test
  public void theLedgerShowsAmbiguousWritesReadsAndTheFinalPass() throws Exception {
    ChaosResult results = read("{\"impatient_timeout_ms\": 2000, "
      + "\"faults\": [{\"fault\": \"kill-regionserver\", \"daemon\": \"regionserver-1\", "
      + "\"acked_writes\": 900, \"checked\": 900, \"ambiguous\": 12, \"ambiguous_landed\": 5, "
      + "\"ambiguous_not_landed\": 7, \"ambiguous_unresolved\": 0, \"lost\": 0, "
      + "\"duplicated\": 0, \"unreadable\": 0, \"reads_checked\": 3000, \"read_problems\": 1, "
      + "\"writes_resumed_s\": 31.0, \"placement_converged_s\": 7.5, \"throughput_before\": 100, "
      + "\"throughput_during\": 5, \"throughput_after\": 90, \"daemons_not_back\": [], "
      + "\"recovered\": true}], \"markers\": [], \"acked_per_s\": [1, 2], "
      + "\"schedule\": {\"random\": false, \"faults\": [\"kill-regionserver\"], "
      + "\"load_before_s\": [10]}, \"final\": {\"acked_writes\": 1500, \"checked\": 1500, "
      + "\"ambiguous\": 14, \"ambiguous_landed\": 6, \"ambiguous_not_landed\": 6, "
      + "\"ambiguous_unresolved\": 2, \"lost\": 0, \"duplicated\": 0, \"unreadable\": 0, "
      + "\"reads_checked\": 5000, \"read_problems\": 1}, \"final_verified\": false, "
      + "\"all_recovered\": false}");
    String md = ChaosReport.markdown(results, "strata chaos --quick");
    assertTrue(md, md.contains("| kill-regionserver | regionserver-1 | 900 | 900 | 12 (5) | 0 | 0 "
      + "| 3000 / **1** | 31.0 | 7.5 |"));
    assertTrue(md, md.contains("gives up after 2000 ms"));
    assertTrue(md, md.contains("1500 acknowledged, 1500 checked, 14 (6, **2 unresolved**) "
      + "ambiguous, 0 lost, 0 duplicated, 0 unreadable; reads checked over the run 5000, read "
      + "problems 1. Final pass verified: **no**"));
    assertFalse(FaultCampaign.allRecovered(results));
  }
}
