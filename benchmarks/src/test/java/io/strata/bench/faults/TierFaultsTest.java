package io.strata.bench.faults;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import io.strata.hdfs.faults.VolumeStallSwitch;
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
    // The block-layer volume faults: in the full list, not quick, each with its shows.
    assertEquals("HDFS", FaultCampaign.SHOWS.get("volume-full"));
    assertEquals("Strata", FaultCampaign.SHOWS.get("volume-io-errors"));
    assertEquals("Strata", FaultCampaign.SHOWS.get("volume-stall"));
    for (String f : VolumeFaults.FAULTS) {
      assertTrue(f, FaultCampaign.ALL.contains(f));
      assertFalse(f, FaultCampaign.QUICK.contains(f));
    }
  }

  /** DIR/media/volumes as bin/strata-media.sh writes it: the shared root's line is no volume. */
  @Test
  public void mediaStateLinesAndTheVolumeOfADataNode() {
    List<VolumeFaults.Volume> v = VolumeFaults.parse(List.of(
      "/c/media/mnt - - - shared-root",
      "/c/media/mnt/datanode-1-ssd /c/data/media/datanode-1-ssd.img /dev/loop3 7:3 ssd",
      "/c/media/mnt/datanode-1-disk /c/data/media/datanode-1-disk.img /dev/loop4 7:4 disk",
      "/c/media/mnt/datanode-11-ssd /c/data/media/datanode-11-ssd.img /dev/loop9 7:9 ssd", ""));
    assertEquals(3, v.size());
    VolumeFaults.Volume ssd = VolumeFaults.find(v, 1, "ssd");
    assertEquals("/dev/loop3", ssd.device());
    assertEquals("loop3", ssd.deviceName());
    assertEquals("7:3", ssd.majMin());
    assertEquals("/dev/loop9", VolumeFaults.find(v, 11, "ssd").device());
    assertEquals(null, VolumeFaults.find(v, 2, "ssd"));
  }

  /** Without loop volumes the volume faults are skipped with a reason, never silently. */
  @Test
  public void volumeFaultsSayWhyTheyAreSkipped() throws Exception {
    File dir = Files.createTempDirectory("volfaults").toFile();
    File state = new File(dir, "volumes");
    String why = VolumeFaults.skipReason("in-process", state, 1, "ssd");
    assertTrue(why, why.contains("not blkio") && why.contains("--media blkio"));
    assertTrue(VolumeFaults.skipReason("blkio", state, 1, "ssd").contains("no "));
    Files.writeString(state.toPath(),
      "/c/media/mnt/datanode-1-ssd /c/b.img /dev/loop3 7:3 ssd\n");
    assertEquals(null, VolumeFaults.skipReason("blkio", state, 1, "ssd"));
    assertTrue(VolumeFaults.skipReason("blkio", state, 2, "ssd").contains("datanode-2-ssd"));
  }

  /** A thread's state from its stat line (its name may hold spaces and parentheses). */
  @Test
  public void threadStateAndThrottleLines() {
    assertEquals('D', VolumeFaults.state("4242 (DataXceiver (x)) D 1 2 3"));
    assertEquals('S', VolumeFaults.state("4243 (java) S 1 2 3"));
    assertEquals('?', VolumeFaults.state("garbage"));
    assertEquals(12500, VolumeFaults.throttleValue(List.of("7:4 150", "7:3 12500"), "7:3"));
    assertEquals(0, VolumeFaults.throttleValue(List.of("7:4 150"), "7:3"));
    assertTrue(VolumeFaults.readOnly("ro,noatime,errors=remount-ro"));
    assertTrue(VolumeFaults.readOnly("rw,noatime,errors=remount-ro,emergency_ro"));
    assertFalse(VolumeFaults.readOnly("rw,noatime,errors=remount-ro"));
  }
}
