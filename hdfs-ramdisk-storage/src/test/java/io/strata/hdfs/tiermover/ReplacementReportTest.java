package io.strata.hdfs.tiermover;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import io.strata.hdfs.HdfsKeys;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * The age chores' progress reports as the tier mover reads them: written and replaced on a real
 * (local) file system, summed with stopped publishers' pending work left out, an unreadable
 * report skipped, and the report directory's own renames not followed by the tier mover.
 */
public class ReplacementReportTest {
  @Rule
  public final TemporaryFolder tmp = new TemporaryFolder();

  @Test
  public void aReportIsReplacedAndReadBackAndAGarbledOneIsSkipped() throws Exception {
    FileSystem fs = FileSystem.getLocal(new Configuration());
    Path dir = new Path(tmp.getRoot().toURI().toString(), "aging");
    assertTrue("no directory yet: no reports",
      ReplacementReport.readAll(fs, dir).isEmpty());

    new ReplacementReport("age chore on a (pid 1)", 1_000, 60_000, 1, 10, 5, 50, 0)
      .publish(fs, dir, "a-1");
    ReplacementReport second =
      new ReplacementReport("age chore on a (pid 1)", 61_000, 60_000, 4, 40, 2, 20, 1);
    second.publish(fs, dir, "a-1");
    try (OutputStream out = fs.create(new Path(dir, "b-2.json"))) {
      out.write("{\"source\": ".getBytes(StandardCharsets.UTF_8));
    }

    List<ReplacementReport> read = ReplacementReport.readAll(fs, dir);
    assertEquals("the replaced report only, the garbled one skipped: " + read,
      Collections.singletonList(second), read);
  }

  @Test
  public void theSumLeavesOutPendingWorkOfPublishersThatStoppedReporting() {
    long now = 10_000_000;
    ReplacementReport live = new ReplacementReport("live", now - 30_000, 60_000, 3, 300, 2, 200,
      1);
    ReplacementReport stopped = new ReplacementReport("stopped", now - 600_000, 60_000, 5, 500,
      7, 700, 0);
    assertFalse(live.staleAt(now));
    assertTrue(stopped.staleAt(now));
    TierMoverStatus.Aging a = TierMoverStatus.Aging.of(Arrays.asList(live, stopped), now);
    assertEquals(2, a.sources());
    assertEquals(1, a.stale());
    assertEquals(8, a.replacedFiles());
    assertEquals(800, a.replacedBytes());
    assertEquals(2, a.pendingFiles());
    assertEquals(200, a.pendingBytes());
    assertEquals(1, a.failures());
    assertNull(a.error());
    assertEquals("read failed", a.failed("read failed").error());
    assertEquals(8, a.failed("read failed").replacedFiles());
  }

  @Test
  public void theTierMoverDoesNotFollowRenamesInTheAgingDirectory() {
    Configuration conf = new Configuration(false);
    TierMoverSettings s = TierMoverSettings.from(conf);
    assertEquals(HdfsKeys.TIERMOVER_AGING_DIR_DEFAULT, s.agingDir());
    assertFalse(s.follows("/hbase/.strata/aging/host-12.json"));
    assertTrue(s.follows("/hbase/archive/data/default/t/r/f/file"));
    assertTrue(s.follows("/hbase/.strata/agingnot/x"));
  }

  @Test(expected = IllegalArgumentException.class)
  public void aRelativeAgingDirectoryIsRefused() {
    Configuration conf = new Configuration(false);
    conf.set(HdfsKeys.TIERMOVER_AGING_DIR, "hbase/.strata/aging");
    HdfsKeys.tierMoverAgingDir(conf);
  }
}
