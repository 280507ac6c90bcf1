package io.strata.bench.faults;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.strata.bench.common.BenchJson;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.Test;

/**
 * The campaign's record keeps the JSON the campaign wrote when it built it node by node: every
 * kept run under benchmarks/results/chaos is read into {@link ChaosResult} (a field the record
 * does not have refused, so a misspelt name fails here), written back as the same document
 * (field names, nesting, JSON nulls and numbers; a fault's {@code observed} fields grouped by
 * part), and its report rendered from the record.
 */
public class ChaosResultJsonTest {
  private static final File KEPT = new File("results/chaos");

  private static List<File> kept() throws IOException {
    try (Stream<java.nio.file.Path> files = Files.walk(KEPT.toPath())) {
      return files.filter(p -> p.getFileName().toString().equals("results.json"))
        .map(java.nio.file.Path::toFile).sorted().collect(Collectors.toList());
    }
  }

  private static ChaosResult read(String run) throws IOException {
    return BenchJson.read(new File(KEPT, run + "/results.json"), ChaosResult.class);
  }

  @Test
  public void everyKeptRunReadsIntoTheRecordAndWritesBackTheSameDocument() throws Exception {
    List<File> runs = kept();
    assertTrue("kept runs under " + KEPT.getAbsolutePath() + ": " + runs, runs.size() >= 12);
    ObjectMapper plain = new ObjectMapper();
    List<String> faults = new ArrayList<>();
    for (File f : runs) {
      ChaosResult r = BenchJson.read(f, ChaosResult.class);
      // As parsed text on both sides: a field's number kind (integer or not) is kept too.
      assertEquals(f.toString(), plain.readTree(f),
        plain.readTree(BenchJson.tree(r).toString()));
      String md = ChaosReport.markdown(r, "strata chaos");
      for (ChaosResult.Fault fault : r.faults()) {
        faults.add(fault.fault());
        assertTrue(f + ": " + fault.fault(), md.contains("| " + fault.fault() + " | "
          + fault.daemon() + " | "));
      }
      assertEquals(f.toString(), r.allRecovered(), FaultCampaign.allRecovered(r));
    }
    // Every part of observed is in some kept run.
    for (String fault : List.of("kill-satisfier-mid-move", "region-storm",
      "flush-compaction-storm", "alter-under-load", "snapshot-clone-cold", "power-loss",
      "malformed-rpc", "slow-volume", "ram-tier-full", "volume-full", "volume-io-errors",
      "volume-stall", "kill-meta-regionserver", "lose-regionserver")) {
      assertTrue(fault + " in no kept run", faults.contains(fault));
    }
  }

  @Test
  public void theStormsRunsPartsAreTheStormsAndTheReportRendersThem() throws Exception {
    ChaosResult r = read("storms");
    File dir = Files.createTempDirectory("chaos-storms").toFile();
    ChaosReport.write(dir, r, "strata chaos --faults region-storm");
    assertEquals(r, BenchJson.read(new File(dir, "results.json"), ChaosResult.class));
    ChaosResult.Fault region = r.faults().stream()
      .filter(f -> f.fault().equals("region-storm")).findFirst().orElseThrow();
    ChaosResult.Observed o = region.observed();
    assertNotNull(o.storm().regionsBefore());
    assertFalse(o.storm().operationsDone().isEmpty());
    assertNotNull(o.recovery().regionsInTransitionClearedS());
    assertNull(o.alter());
    String md = Files.readString(new File(dir, "report.md").toPath());
    assertTrue(md, md.contains("- `region-storm`: regions_before " + o.storm().regionsBefore()
      + "; balancer_was_on "));
    assertTrue(md, md.contains("operations_done {\"move\":"));
  }

  @Test
  public void theSatisfierMidMoveRunsMoveIsTheMidMovePart() throws Exception {
    ChaosResult.Fault f = read("satisfier-mid-move").faults().stream()
      .filter(x -> x.fault().equals("kill-satisfier-mid-move")).findFirst().orElseThrow();
    ChaosResult.MidMove m = f.observed().midMove();
    assertTrue(m.caughtMidMove());
    assertNotNull(m.movedShareWhenKilled());
    assertTrue(m.movedFilesInPlaceS().known());
    assertNotNull(f.observed().recovery().satisfierStartedS());
    String md = ChaosReport.markdown(read("satisfier-mid-move"), "strata chaos");
    assertTrue(md, md.contains("- `kill-satisfier-mid-move`: move_bytes " + m.moveBytes()
      + "; caught_mid_move true; "));
  }

  @Test
  public void theSnapshotCloneColdRunsCloneIsTheClonePart() throws Exception {
    ChaosResult r = read("snapshot-clone-cold");
    ChaosResult.CloneCold c = r.faults().stream()
      .filter(x -> x.fault().equals("snapshot-clone-cold")).findFirst().orElseThrow()
      .observed().cloneCold();
    assertTrue(c.cloneVerified());
    assertEquals(c.cloneChecked().longValue(), c.ackedBeforeSnapshot().longValue());
    assertTrue(ChaosReport.markdown(r, "strata chaos").contains("clone_verified true"));
  }

  @Test
  public void aFieldNoPartHasIsRefused() throws Exception {
    String json = "{\"faults\": [{\"fault\": \"region-storm\", \"daemon\": \"t\", "
      + "\"observed\": {\"regions_before\": 4, \"regions_befor\": 4}}]}";
    try {
      BenchJson.convert(new ObjectMapper().readTree(json), ChaosResult.class);
      throw new AssertionError("regions_befor was read");
    } catch (IllegalArgumentException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("regions_befor"));
    }
  }

  @Test
  public void aFaultThatRanHasBothTimesEvenWhenNotReachedASkippedOneNeither() {
    ChaosResult.Fault skipped = ChaosResult.Fault.skipped("volume-full", "dn", "HDFS", "why");
    assertFalse(BenchJson.tree(skipped).has("writes_resumed_s"));
    ChaosResult.Fault failed = ChaosResult.Fault.failed("kill-master", 10, null, "boom");
    assertTrue(BenchJson.tree(failed).get("writes_resumed_s").isNull());
    assertTrue(BenchJson.tree(failed).get("placement_converged_s").isNull());
    assertEquals(-1, BenchJson.tree(failed).get("lost").asLong());
  }
}
