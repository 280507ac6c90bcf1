package io.strata.local;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import io.strata.hdfs.HdfsKeys;
import io.strata.hdfs.mover.FileMover;
import io.strata.hdfs.mover.PlacementCheck;
import io.strata.hdfs.sps.InProcessSatisfier;
import io.strata.hdfs.sps.SatisfierMarks;
import io.strata.hdfs.sps.SatisfierTool;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.HdfsConstants;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.server.namenode.sps.StoragePolicySatisfyManager;
import org.apache.hadoop.hdfs.server.protocol.DatanodeStorageReport;
import org.apache.hadoop.hdfs.server.protocol.StorageReport;
import org.junit.Test;

/**
 * The NameNode hands a requested file to a satisfier once, marks it, and ignores new requests for
 * it until a satisfier removes the mark. A satisfier that dies holding files must not leave them
 * unplaceable: the one started after it re-adopts them, and {@code strata mover} clears a mark
 * that no satisfier holds. Neither needs a NameNode restart (which re-queues every marked file).
 */
public class SatisfierCrashIT {
  private static final int BLOCK = 1 << 20;
  /**
   * How often the satisfier looks at its finished moves, after which it removes a placed file's
   * mark (upstream: a minute); shorter, so that the tests see marks removed soon.
   */
  private static final String RECHECK =
    DFSConfigKeys.DFS_STORAGE_POLICY_SATISFIER_RECHECK_TIMEOUT_MILLIS_KEY;

  private static void waitFor(String what, long ms, Check check) throws Exception {
    long deadline = System.currentTimeMillis() + ms;
    while (!check.ok()) {
      assertTrue(what + " not within " + ms + " ms", System.currentTimeMillis() < deadline);
      Thread.sleep(250);
    }
  }

  interface Check {
    boolean ok() throws Exception;
  }

  private static List<Path> misplaced(DistributedFileSystem fs, int n, short replication)
    throws IOException {
    fs.mkdirs(new Path("/ssd"));
    List<Path> files = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Path p = new Path("/ssd/f" + i);
      try (FSDataOutputStream out = fs.create(p, replication)) {
        out.write(new byte[BLOCK]);
      }
      files.add(p);
    }
    fs.setStoragePolicy(new Path("/ssd"), "ALL_SSD");
    for (Path p : files) {
      assertFalse(p + " starts off its tier", PlacementCheck.satisfied(fs, p));
    }
    return files;
  }

  private static boolean allOnSsd(DistributedFileSystem fs, List<Path> files) throws IOException {
    for (Path f : files) {
      for (LocatedBlock b : fs.getClient().getLocatedBlocks(f.toString(), 0)
        .getLocatedBlocks()) {
        for (StorageType t : b.getStorageTypes()) {
          if (t != StorageType.SSD) {
            return false;
          }
        }
      }
    }
    return true;
  }

  private static long ssdRoom(DistributedFileSystem fs) throws IOException {
    long most = 0;
    for (DatanodeStorageReport dn : fs.getClient().getDatanodeStorageReport(
      HdfsConstants.DatanodeReportType.LIVE)) {
      for (StorageReport r : dn.getStorageReports()) {
        if (r.getStorage().getStorageType() == StorageType.SSD) {
          most = Math.max(most, r.getRemaining());
        }
      }
    }
    return most;
  }

  private static StoragePolicySatisfyManager spsManager(TieredDfsCluster c) {
    return c.miniCluster().getNamesystem().getBlockManager().getSPSManager();
  }

  /** {@code strata satisfier} in a JVM of its own, configured as the cluster is. */
  private static Process startSatisfierProcess(TieredDfsCluster c, File dir, String name)
    throws IOException {
    File confDir = new File(dir, "conf");
    confDir.mkdirs();
    try (OutputStream out = new FileOutputStream(new File(confDir, "hdfs-site.xml"))) {
      c.configuration().writeXml(out);
    }
    List<String> cmd = new ArrayList<>();
    cmd.add(System.getProperty("java.home") + "/bin/java");
    cmd.add("-cp");
    cmd.add(confDir.getAbsolutePath() + File.pathSeparator
      + System.getProperty("java.class.path"));
    cmd.add(SatisfierProcess.class.getName());
    cmd.add(c.uri().toString());
    cmd.add("5");
    File log = new File(dir, name + ".log");
    return new ProcessBuilder(cmd).redirectErrorStream(true)
      .redirectOutput(ProcessBuilder.Redirect.appendTo(log)).start();
  }

  /**
   * The child JVM's main: {@link SatisfierTool#satisfy}, as {@code strata satisfier} calls it,
   * with the class path's hdfs-site.xml. Not the tools' entry point itself: the tools module
   * depends (through workload-policies' tests) on this one, so it cannot be on this module's
   * test class path. Arguments: the NameNode URI, seconds between status lines.
   */
  static final class SatisfierProcess {
    private SatisfierProcess() {
    }

    public static void main(String[] args) throws Exception {
      System.exit(SatisfierTool.satisfy(new HdfsConfiguration(), URI.create(args[0]),
        Long.parseLong(args[1]), System.out));
    }
  }

  private static String tail(File log) throws IOException {
    if (!log.exists()) {
      return "(no log)";
    }
    List<String> lines = Files.readAllLines(log.toPath(), StandardCharsets.UTF_8);
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
  }

  /**
   * {@code strata satisfier} runs as its own process and holds three files it cannot place yet
   * (no DataNode has room on SSD). It is killed with SIGKILL, room appears, and a new
   * {@code strata satisfier} starts: every file reaches SSD, with the NameNode never restarted.
   * Before the journal, the new satisfier never heard of the files (the NameNode had handed them
   * out) and requests for them were ignored (their marks stayed).
   */
  @Test
  public void filesHeldByAKilledSatisfierReachTheirTierAfterItsRestart() throws Exception {
    try (TieredDfsCluster c = TieredDfsCluster.start(TestClusters.small("sps-kill")
      .blockSizeBytes(BLOCK).ssdBytesPerDataNode(1L << 19).startSatisfier(false)
      .startTierMover(false).dfs(RECHECK, "5000"))) {
      DistributedFileSystem fs = c.fileSystem();
      assertTrue("SSD volumes smaller than a block", ssdRoom(fs) < BLOCK);
      // A killed holder's lease on /system/mover.id lapses after the soft limit: 3 s here.
      c.miniCluster().setLeasePeriod(3_000, 60_000);
      File dir = Files.createTempDirectory(new File("target").toPath(), "sps-kill").toFile();
      List<Path> files = misplaced(fs, 3, (short) 1);

      Process first = startSatisfierProcess(c, dir, "first");
      Process second = null;
      try {
        waitFor("the first satisfier running; " + tail(new File(dir, "first.log")), 90_000,
          () -> fs.exists(new Path("/system/mover.id"))
            && !fs.isFileClosed(new Path("/system/mover.id")));
        for (Path f : files) {
          fs.satisfyStoragePolicy(f);
        }
        // Taken from the NameNode, and held: nowhere to put them.
        waitFor("the files taken from the NameNode", 30_000,
          () -> spsManager(c).getPendingSPSPaths() == 0);
        Thread.sleep(3_000);
        assertFalse(allOnSsd(fs, files));
        SatisfierMarks marks = new SatisfierMarks(fs, c.configuration());
        for (Path f : files) {
          assertTrue(f + " marked", marks.marked(f));
        }

        first.destroyForcibly(); // SIGKILL: no shutdown hook, no lease released
        first.waitFor();
        assertEquals("killed by SIGKILL", 137, first.exitValue());

        MiniDFSCluster mc = c.miniCluster();
        mc.startDataNodes(new Configuration(c.configuration()), 1,
          new StorageType[][] { { StorageType.SSD, StorageType.DISK } }, true, null, null, null,
          null, null, false, false, false, null, null, null);
        mc.waitActive();
        waitFor("room on SSD", 30_000, () -> ssdRoom(fs) >= BLOCK);

        long restarted = System.currentTimeMillis();
        second = startSatisfierProcess(c, dir, "second");
        Process s = second;
        waitFor("every file on SSD after the satisfier's restart; its log:\n"
          + tail(new File(dir, "second.log")), 150_000, () -> {
            assertTrue("the second satisfier exited: " + tail(new File(dir, "second.log")),
              s.isAlive());
            return allOnSsd(fs, files);
          });
        System.err.printf("SatisfierCrashIT: %d files on SSD %d ms after the killed "
          + "satisfier's restart%n", files.size(), System.currentTimeMillis() - restarted);
        assertTrue(tail(new File(dir, "second.log")),
          Files.readString(new File(dir, "second.log").toPath()).contains("re-adopting 3 files"));
        Path journal = new Path(HdfsKeys.spsJournalDir(c.configuration()));
        waitFor("the journal emptied", 30_000, () -> {
          FileStatus[] left = fs.listStatus(journal);
          return left.length == 0;
        });
        for (Path f : files) {
          assertFalse(f + " mark removed", marks.marked(f));
        }
      } finally {
        first.destroyForcibly();
        if (second != null) {
          second.destroy();
          second.waitFor();
        }
      }
    }
  }

  /**
   * The NameNode enters safe mode just as the satisfier finds a file placed, so the removal of
   * its mark fails. Upstream's context swallowed that (and the file had been forgotten before the
   * call): the mark stayed, and the file could not be placed again. Here the satisfier keeps the
   * file and removes the mark once the NameNode leaves safe mode; the file then moves again.
   */
  @Test
  public void aMarkNotRemovedInSafeModeIsRemovedAfterwards() throws Exception {
    try (TieredDfsCluster c = TieredDfsCluster.start(TestClusters.small("sps-safemode")
      .blockSizeBytes(BLOCK).startSatisfier(false).startTierMover(false).dfs(RECHECK, "2000"))) {
      DistributedFileSystem fs = c.fileSystem();
      List<Path> files = misplaced(fs, 1, (short) 3);
      Path f = files.get(0);
      long id = fs.getClient().getFileInfo(f.toString()).getFileId();
      SatisfierMarks marks = new SatisfierMarks(fs, c.configuration());
      java.util.concurrent.atomic.AtomicBoolean safeMode =
        new java.util.concurrent.atomic.AtomicBoolean();
      try (InProcessSatisfier sps = InProcessSatisfier.start(c.configuration(), c.uri(), inode -> {
        try {
          // Its blocks are on SSD: this analysis finds it done, and its mark is removed next.
          if (inode == id && allOnSsd(fs, files) && safeMode.compareAndSet(false, true)) {
            fs.setSafeMode(HdfsConstants.SafeModeAction.SAFEMODE_ENTER);
          }
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      })) {
        fs.satisfyStoragePolicy(f);
        waitFor("safe mode entered once the file was placed", 60_000, safeMode::get);
        Thread.sleep(4_000);
        assertTrue("still marked in safe mode", marks.marked(f));
        fs.setSafeMode(HdfsConstants.SafeModeAction.SAFEMODE_LEAVE);
        waitFor("the mark removed after safe mode; satisfier " + sps.status(), 60_000,
          () -> !marks.marked(f));
        assertEquals(sps.status().toString(), 0, sps.restarts());
        // And it can be placed again: back to DISK.
        fs.setStoragePolicy(new Path("/ssd"), "HOT");
        fs.satisfyStoragePolicy(f);
        waitFor("the file back on DISK", 60_000, () -> PlacementCheck.satisfied(fs, f));
      } finally {
        if (fs.isInSafeMode()) {
          fs.setSafeMode(HdfsConstants.SafeModeAction.SAFEMODE_LEAVE);
        }
      }
    }
  }

  /**
   * The tier mover asks again for a file still off its tier after a rename: a mark nobody holds
   * is cleared first, and the file reaches its tier. Before, every request was ignored and the
   * tier mover gave up on the file. (The NameNode re-queues a marked file when it is renamed, so
   * the mark here is stranded after the rename, as by a satisfier that died holding the file.)
   */
  @Test
  public void tierMoverClearsAStaleMark() throws Exception {
    try (TieredDfsCluster c = TieredDfsCluster.start(TestClusters.small("sps-stale-tm")
      .blockSizeBytes(BLOCK).startSatisfier(false).startTierMover(false).dfs(RECHECK, "5000"))) {
      DistributedFileSystem fs = c.fileSystem();
      fs.mkdirs(new Path("/in"));
      fs.mkdirs(new Path("/ssd"));
      fs.setStoragePolicy(new Path("/ssd"), "ALL_SSD");
      Path in = new Path("/in/f");
      try (FSDataOutputStream out = fs.create(in)) {
        out.write(new byte[BLOCK]);
      }
      long id = fs.getClient().getFileInfo(in.toString()).getFileId();
      Configuration conf = new Configuration(c.configuration());
      conf.setLong(HdfsKeys.TIERMOVER_REREQUEST_MS, 3_000);
      SatisfierMarks marks = new SatisfierMarks(fs, c.configuration());
      try (io.strata.hdfs.tiermover.TierMover mover = io.strata.hdfs.tiermover.TierMover.start(
        conf, c.uri(), Files.createTempDirectory("tm").resolve("state"))) {
        Path moved = new Path("/ssd/f");
        fs.rename(in, moved);
        // The tier mover asks; the request waits at the NameNode for a satisfier.
        waitFor("the tier mover's request queued at the NameNode", 30_000,
          () -> spsManager(c).getPendingSPSPaths() == 1);
        // Handed out to a satisfier that then died without a trace.
        assertEquals(Long.valueOf(id), spsManager(c).getNextPathId());
        assertTrue(marks.marked(moved));
        try (InProcessSatisfier sps = InProcessSatisfier.start(c.configuration(), c.uri())) {
          waitFor("the renamed file on SSD; tier mover " + mover.status(), 90_000,
            () -> PlacementCheck.satisfied(fs, moved));
          assertEquals(mover.status().toString(), 0, mover.status().files().failed());
          assertTrue(allOnSsd(fs, List.of(moved)));
        }
      }
    }
  }

  /**
   * A file whose mark nobody holds (its satisfier took it from the NameNode and died before
   * journaling it, as any satisfier before the journal did): {@code strata mover -p} clears the
   * mark and asks again, and the file reaches its tier. Before, the NameNode ignored the request
   * and the mover timed out.
   */
  @Test
  public void moverClearsAStaleMark() throws Exception {
    try (TieredDfsCluster c = TieredDfsCluster.start(TestClusters.small("sps-stale")
      .blockSizeBytes(BLOCK).startSatisfier(false).startTierMover(false).dfs(RECHECK, "5000"))) {
      DistributedFileSystem fs = c.fileSystem();
      List<Path> files = misplaced(fs, 1, (short) 3);
      Path f = files.get(0);
      fs.satisfyStoragePolicy(f);
      // Handed out by the NameNode to a satisfier that then died without a trace.
      assertEquals(Long.valueOf(fs.getClient().getFileInfo(f.toString()).getFileId()),
        spsManager(c).getNextPathId());
      SatisfierMarks marks = new SatisfierMarks(fs, c.configuration());
      assertTrue(marks.marked(f));
      try (InProcessSatisfier sps = InProcessSatisfier.start(c.configuration(), c.uri())) {
        fs.satisfyStoragePolicy(f); // ignored: the mark is there
        Thread.sleep(5_000);
        assertFalse("a marked file is not placed by asking again", PlacementCheck.satisfied(fs,
          f));
        ByteArrayOutputStream console = new ByteArrayOutputStream();
        int code = FileMover.move(c.configuration(), List.of("/ssd"), c.uri(), 90, false,
          new PrintStream(console, true, StandardCharsets.UTF_8));
        assertEquals(console.toString() + "; satisfier " + sps.status(), 0, code);
        assertTrue(console.toString(), console.toString().contains("cleared a stale Storage "
          + "Policy Satisfier mark on"));
        assertTrue(allOnSsd(fs, files));
        // The satisfier removes the mark when it next takes the file up and finds it placed,
        // which a loaded machine can delay past half a minute (seen once in CI).
        waitFor("the mark removed; satisfier " + sps.status(), 120_000, () -> !marks.marked(f));
      }
    }
  }
}
