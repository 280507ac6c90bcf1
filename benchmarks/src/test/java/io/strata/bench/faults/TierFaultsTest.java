package io.strata.bench.faults;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import io.strata.hdfs.chooser.VolumeStallSwitch;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import org.junit.Test;

/** The tier faults' pure parts: WAL names, log lines; stall and its undo. */
public class TierFaultsTest {
  @Test
  public void walCreationTimeFromItsName() {
    assertEquals(1764085200123L, TierFaults.walCreatedMs(
      "127.0.0.1%2C31020%2C1764085000000.1764085200123"));
    assertEquals(1764085200123L, TierFaults.walCreatedMs(
      "127.0.0.1%2C31020%2C1764085000000.meta.1764085200123.meta"));
    assertEquals(-1, TierFaults.walCreatedMs("recovered.edits"));
    assertEquals(-1, TierFaults.walCreatedMs("x.123"));
  }

  @Test
  public void volumeEventsAreTheChoosersAndTheSwitchsLines() {
    List<String> lines = List.of(
      "2026-11-25 16:00:01 INFO DataNode: Receiving BP-1 blk_1073741825",
      "2026-11-25 16:00:02 WARN VolumeStallSwitch: Volume file:/d/ssd (storage DS-1, SSD): "
        + "stalled, 4000 ms per operation (/d/ssd/strata-stall-ms)",
      "2026-11-25 16:00:05 WARN LatencyAwareVolumeChoosingPolicy: Volume /d/ssd (storage DS-1, "
        + "SSD) is slow: write probe 4012 ms, peers' median 2 ms",
      "2026-11-25 16:00:45 INFO LatencyAwareVolumeChoosingPolicy: Volume /d/ssd (storage DS-1, "
        + "SSD) gets new blocks again: 3 ms",
      "2026-11-25 16:00:44 WARN VolumeStallSwitch: Volume file:/d/ssd (storage DS-1, SSD): no "
        + "longer stalled");
    List<String> e = TierFaults.volumeEvents(lines);
    assertEquals(4, e.size());
    assertTrue(e.get(1).contains(") is slow: "));
  }

  @Test
  public void stallWritesTheFlagAndUnstallRemovesIt() throws Exception {
    File vol = Files.createTempDirectory("vol").toFile();
    TierFaults.stall(vol, 4000);
    File flag = new File(vol, VolumeStallSwitch.FLAG_FILE);
    assertEquals(4000, VolumeStallSwitch.parseDelayMs(
      Files.readString(flag.toPath(), StandardCharsets.UTF_8)));
    TierFaults.unstall(vol);
    assertFalse(flag.exists());
    TierFaults.unstall(vol);
    assertEquals(0, TierFaults.blocksWrittenSince(vol, 0));
    File sub = new File(vol, "current/BP-1/current/finalized/subdir0/subdir0");
    assertTrue(sub.mkdirs());
    Files.writeString(new File(sub, "blk_1073741825").toPath(), "x");
    Files.writeString(new File(sub, "blk_1073741825_1001.meta").toPath(), "x");
    assertEquals(1, TierFaults.blocksWrittenSince(vol, 0));
    assertEquals(0, TierFaults.blocksWrittenSince(vol, System.currentTimeMillis() + 60_000));
  }

  @Test
  public void theNewFaultsAreInAllNotQuick() {
    assertTrue(FaultCampaign.ALL.contains("slow-volume"));
    assertTrue(FaultCampaign.ALL.contains("ram-tier-full"));
    assertFalse(FaultCampaign.QUICK.contains("slow-volume"));
    assertFalse(FaultCampaign.QUICK.contains("ram-tier-full"));
  }

  /** Every fault says whose behaviour it shows; the storms are in the full list, not quick. */
  @Test
  public void everyFaultNamesWhoseBehaviourItShows() {
    for (String f : FaultCampaign.ALL) {
      assertTrue(f + " has no shows entry", FaultCampaign.SHOWS.containsKey(f));
    }
    assertEquals(FaultCampaign.ALL.size(), FaultCampaign.SHOWS.size());
    for (String f : FaultCampaign.STORMS) {
      assertTrue(f, FaultCampaign.ALL.contains(f));
      assertFalse(f, FaultCampaign.QUICK.contains(f));
    }
  }
}
