package io.strata.local;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import io.strata.hdfs.HdfsKeys;
import io.strata.hdfs.mover.FileMover;
import io.strata.hdfs.mover.PlacementCheck;
import io.strata.hdfs.sps.CacheRefreshCheck;
import io.strata.hdfs.sps.InProcessSatisfier;
import io.strata.hdfs.sps.SatisfierStatus;
import io.strata.hdfs.tiermover.TierMover;
import io.strata.hdfs.testing.SlowVolumes;
import io.strata.hdfs.tiermover.TierMoverStatus;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.management.ObjectName;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.DFSClientAdapter;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.HdfsConstants;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.server.common.HdfsServerConstants;
import org.apache.hadoop.hdfs.server.datanode.BlockMetadataHeader;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.FsDatasetSpi;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.FsVolumeSpi;
import org.apache.hadoop.hdfs.server.protocol.DatanodeStorageReport;
import org.apache.hadoop.hdfs.server.protocol.StorageReport;
import org.apache.hadoop.util.DataChecksum;
import org.junit.Test;

/**
 * The Storage Policy Satisfier moves blocks whatever the machine's uptime, comes back when its
 * thread dies, and whoever waits on it says at once when none runs.
 */
public class SatisfierSupervisionIT {
  /** Longer than this machine has been up: upstream's DataNode cache never filled within it. */
  private static final String A_DAY_MS = "86400000";

  private static void write(DistributedFileSystem fs, Path p, int bytes) throws IOException {
    try (FSDataOutputStream out = fs.create(p)) {
      out.write(new byte[bytes]);
    }
  }

  /** Files on DISK under /ssd, a directory then made ALL_SSD. */
  private static List<Path> misplacedFiles(DistributedFileSystem fs, int n) throws IOException {
    fs.mkdirs(new Path("/ssd"));
    List<Path> files = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Path p = new Path("/ssd/f" + i);
      write(fs, p, 1 << 20);
      files.add(p);
    }
    fs.setStoragePolicy(new Path("/ssd"), "ALL_SSD");
    for (Path p : files) {
      assertFalse(p + " starts off its tier", PlacementCheck.satisfied(fs, p));
    }
    return files;
  }

  private static void assertOnSsd(DistributedFileSystem fs, List<Path> files) throws IOException {
    for (Path f : files) {
      for (LocatedBlock b : fs.getClient().getLocatedBlocks(f.toString(), 0)
        .getLocatedBlocks()) {
        for (StorageType t : b.getStorageTypes()) {
          assertEquals(f + " block " + b.getBlock(), StorageType.SSD, t);
        }
      }
    }
  }

  @Test
  public void theOverlayCacheRefreshesOnFirstUse() {
    // local-cluster puts the overlay ahead of hadoop-hdfs: its satisfier needs no fallback.
    assertTrue(CacheRefreshCheck.refreshesOnFirstUse());
  }

  /**
   * Upstream's satisfier thread died at its first analysis on a machine up for less than the
   * cache refresh interval; a refresh interval of a day reproduces that on any machine.
   */
  @Test
  public void movesBlocksWhateverTheUptime() throws Exception {
    try (TieredDfsCluster c = TieredDfsCluster.start(TestClusters.small("sps-uptime")
      .blockSizeBytes(1L << 20).startTierMover(false)
      .dfs(DFSConfigKeys.DFS_SPS_DATANODE_CACHE_REFRESH_INTERVAL_MS, A_DAY_MS))) {
      DistributedFileSystem fs = c.fileSystem();
      List<Path> files = misplacedFiles(fs, 3);
      ByteArrayOutputStream console = new ByteArrayOutputStream();
      int code = FileMover.move(c.configuration(), List.of("/ssd"), c.uri(), 60, false,
        new PrintStream(console, true, StandardCharsets.UTF_8));
      assertEquals(console.toString(), 0, code);
      assertOnSsd(fs, files);
      assertEquals(0, c.satisfier().restarts());
    }
  }

  /**
   * The satisfier's thread dies at its second analysis: it is restarted, the file it was
   * working on (taken from the NameNode, never finished) is handed to it again, and every file
   * reaches its tier without being asked for again.
   */
  @Test
  public void restartsWhenItsThreadDies() throws Exception {
    try (TieredDfsCluster c = TieredDfsCluster.start(TestClusters.small("sps-restart")
      .blockSizeBytes(1L << 20).startSatisfier(false))) {
      DistributedFileSystem fs = c.fileSystem();
      List<Path> files = misplacedFiles(fs, 4);
      AtomicInteger analyses = new AtomicInteger();
      try (InProcessSatisfier sps = InProcessSatisfier.start(c.configuration(), c.uri(), id -> {
        if (analyses.incrementAndGet() == 2) {
          throw new IllegalStateException("injected failure analysing inode " + id);
        }
      })) {
        for (Path f : files) {
          fs.satisfyStoragePolicy(f);
        }
        ByteArrayOutputStream console = new ByteArrayOutputStream();
        int code = FileMover.waitUntilPlaced(fs, files, 90_000, sps, 60_000,
          new PrintStream(console, true, StandardCharsets.UTF_8));
        assertEquals(console.toString() + "; satisfier " + sps.status(), 0, code);
        assertOnSsd(fs, files);

        SatisfierStatus s = sps.status();
        assertTrue(s.toString(), s.running());
        assertEquals(s.toString(), 1, s.restarts());
        assertTrue(s.toString(), s.lastFailure().contains("injected failure analysing inode"));
        ObjectName bean = new ObjectName("Hadoop:service=StrataSatisfier,name=Satisfier-"
          + c.uri().getHost() + "-" + c.uri().getPort());
        assertEquals(1L, ManagementFactory.getPlatformMBeanServer().getAttribute(bean,
          "Restarts"));
        assertTrue(analyses.get() > files.size());
      }
    }
  }

  /**
   * A file deleted while queued (as WALs and compacted HFiles are all the time): upstream's
   * satisfier failed to remove the deleted file's mark, re-queued the file and failed again at
   * once, for ever, two NameNode calls and a logged stack trace each time (about 300 a second,
   * 18 GB of log in an hour's benchmark). Here it is forgotten, and the other files still move.
   */
  @Test
  public void forgetsAFileDeletedWhileQueued() throws Exception {
    try (TieredDfsCluster c = TieredDfsCluster.start(TestClusters.small("sps-deleted")
      .blockSizeBytes(1L << 20).startSatisfier(false).startTierMover(false))) {
      DistributedFileSystem fs = c.fileSystem();
      List<Path> files = misplacedFiles(fs, 2);
      Path doomed = files.get(0);
      long doomedId = fs.getClient().getFileInfo(doomed.toString()).getFileId();
      AtomicInteger doomedAnalyses = new AtomicInteger();
      try (InProcessSatisfier sps = InProcessSatisfier.start(c.configuration(), c.uri(), id -> {
        if (id == doomedId && doomedAnalyses.incrementAndGet() == 1) {
          try {
            // Deleted after the satisfier took it, before it looks at it.
            fs.delete(doomed, false);
          } catch (IOException e) {
            throw new IllegalStateException(e);
          }
        }
      })) {
        for (Path f : files) {
          fs.satisfyStoragePolicy(f);
        }
        Path kept = files.get(1);
        waitFor("the other file on SSD; satisfier " + sps.status(), 60_000,
          () -> PlacementCheck.satisfied(fs, kept));
        waitFor("the deleted file looked at", 30_000, () -> doomedAnalyses.get() > 0);
        Thread.sleep(3_000);
        assertFalse(fs.exists(doomed));
        assertEquals("analyses of the deleted file (re-queued after each failure?); satisfier "
          + sps.status(), 1, doomedAnalyses.get());
        assertOnSsd(fs, List.of(kept));
        assertEquals(sps.status().toString(), 0, sps.restarts());
        assertTrue(sps.status().toString(), sps.isRunning());
      }
    }
  }

  /** The most free space on an SSD volume of any live DataNode, as the NameNode has it. */
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

  /**
   * No DataNode has room on SSD: upstream's satisfier retried the file forever, said why only in
   * its debug log, and saw a DataNode that joined with room only at its next DataNode refresh, 5
   * minutes on. Here it counts as stalled, says why (naming the tier and the space), restarts,
   * and the file reaches SSD within seconds of the new DataNode joining.
   */
  @Test
  public void saysWhyItStallsAndSeesNewRoomAtOnce() throws Exception {
    try (TieredDfsCluster c = TieredDfsCluster.start(TestClusters.small("sps-stall")
      .blockSizeBytes(1L << 20).ssdBytesPerDataNode(1L << 19).startTierMover(false)
      .dfs(HdfsKeys.SPS_STALL_MS, "3000"))) {
      DistributedFileSystem fs = c.fileSystem();
      assertTrue("SSD volumes smaller than a block", ssdRoom(fs) < (1 << 20));
      fs.mkdirs(new Path("/ssd"));
      Path file = new Path("/ssd/one");
      try (FSDataOutputStream out = fs.create(file, (short) 1)) {
        out.write(new byte[1 << 20]);
      }
      fs.setStoragePolicy(new Path("/ssd"), "ALL_SSD");
      fs.satisfyStoragePolicy(file);

      InProcessSatisfier sps = c.satisfier();
      waitFor("a stall", 30_000, () -> sps.stalls() > 0);
      SatisfierStatus s = sps.status();
      assertTrue(s.toString(), s.running());
      assertTrue(s.toString(), s.lastStall().contains("no live DataNode has room on SSD"));
      assertTrue(s.toJson().toString(), s.toJson().get("stalls").asLong() > 0);
      assertFalse(s.toString(), PlacementCheck.satisfied(fs, file));

      // A DataNode with room on SSD joins.
      MiniDFSCluster mc = c.miniCluster();
      mc.startDataNodes(new Configuration(c.configuration()), 1,
        new StorageType[][] { { StorageType.SSD, StorageType.DISK } }, true, null, null, null,
        null, null, false, false, false, null, null, null);
      mc.waitActive();
      waitFor("room on SSD", 30_000, () -> ssdRoom(fs) >= (1 << 20));
      long joined = System.currentTimeMillis();
      waitFor("the file on SSD after a DataNode with room joined; satisfier " + sps.status(),
        60_000, () -> PlacementCheck.satisfied(fs, file));
      System.err.printf("SatisfierSupervisionIT: on SSD %d ms after a DataNode with room "
        + "joined, %d stalls%n", System.currentTimeMillis() - joined, sps.stalls());
      assertOnSsd(fs, List.of(file));
      assertEquals(0, sps.restarts());
    }
  }

  /**
   * Block moves slower than the stall setting (a slow SSD volume): the satisfier is restarted for
   * stalls while its moves run. Upstream's satisfier, restarted, analysed the files again and
   * dispatched the running moves a second time, two concurrent copies of one replica on one
   * DataNode. Here each block is copied to SSD once: the bytes the DataNodes copied off their
   * DISK volumes are one copy of each block and its checksums.
   */
  @Test
  public void aStallRestartDoesNotMoveABlockTwice() throws Exception {
    try (TieredDfsCluster c = TieredDfsCluster.start(TestClusters.small("sps-slow")
      .blockSizeBytes(1L << 20).startTierMover(false)
      .dfs(HdfsKeys.SPS_STALL_MS, "2000")
      .dfs(DFSConfigKeys.DFS_STORAGE_POLICY_SATISFIER_RECHECK_TIMEOUT_MILLIS_KEY, "2000"))) {
      DistributedFileSystem fs = c.fileSystem();
      fs.mkdirs(new Path("/ssd"));
      List<Path> files = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        Path p = new Path("/ssd/slow" + i);
        try (FSDataOutputStream out = fs.create(p, (short) 1)) {
          out.write(new byte[1 << 20]);
        }
        files.add(p);
      }
      fs.setStoragePolicy(new Path("/ssd"), "ALL_SSD");
      // A move within a DataNode copies the replica's files with the source volume's I/O: every
      // DISK volume copies a megabyte in about 10 s, each move outlasting the stall setting
      // several times. What the DISK volumes copy out is what was moved.
      List<SlowVolumes> slowed = new ArrayList<>();
      List<String> diskVolumes = new ArrayList<>();
      for (DataNode dn : c.miniCluster().getDataNodes()) {
        SlowVolumes sv = SlowVolumes.install(dn);
        slowed.add(sv);
        try (FsDatasetSpi.FsVolumeReferences refs = dn.getFSDataset().getFsVolumeReferences()) {
          for (FsVolumeSpi v : refs) {
            if (v.getStorageType() == StorageType.DISK) {
              sv.slow(v, Duration.ofMillis(50), 100 << 10);
              diskVolumes.add(v.getStorageID());
            }
          }
        }
      }
      try {
        InProcessSatisfier sps = c.satisfier();
        for (Path f : files) {
          fs.satisfyStoragePolicy(f);
        }
        waitFor("both files on SSD; satisfier " + sps.status(), 120_000,
          () -> PlacementCheck.satisfied(fs, files.get(0))
            && PlacementCheck.satisfied(fs, files.get(1)));
        assertOnSsd(fs, files);
        long written = 0;
        for (int i = 0; i < slowed.size(); i++) {
          for (String id : diskVolumes) {
            written += slowed.get(i).bytesWritten(id);
          }
        }
        System.err.printf("SatisfierSupervisionIT: %d stalls while moving, %d bytes copied to "
          + "SSD for %d blocks of 1 MiB, %d duplicate moves not dispatched%n", sps.stalls(),
          written, files.size(), sps.duplicateMovesSkipped());
        assertTrue("the moves outlasted the stall setting: " + sps.status(), sps.stalls() > 0);
        // One copy per block, of its data and its checksum file. A second move of a block, even
        // one that fails once the first has finished (the replica already on SSD, its source
        // files gone), starts copying and counts.
        Configuration conf = c.configuration();
        int bytesPerChecksum = conf.getInt(DFSConfigKeys.DFS_BYTES_PER_CHECKSUM_KEY,
          DFSConfigKeys.DFS_BYTES_PER_CHECKSUM_DEFAULT);
        int checksumSize = DataChecksum.newDataChecksum(DataChecksum.Type.valueOf(
          conf.get(DFSConfigKeys.DFS_CHECKSUM_TYPE_KEY,
            DFSConfigKeys.DFS_CHECKSUM_TYPE_DEFAULT)), bytesPerChecksum).getChecksumSize();
        long metaBytes = BlockMetadataHeader.getHeaderSize()
          + (long) checksumSize * (((1 << 20) + bytesPerChecksum - 1) / bytesPerChecksum);
        assertEquals("bytes copied off DISK for " + files.size() + " blocks of 1 MiB (" + metaBytes
          + " bytes of checksums each)", files.size() * ((1L << 20) + metaBytes), written);
      } finally {
        for (SlowVolumes sv : slowed) {
          sv.close();
        }
      }
    }
  }

  /**
   * A satisfier killed without stopping holds /system/mover.id until its lease is recovered:
   * upstream's connector refused at once ("Another ... is running"), so a restart within the
   * lease soft limit failed. Here the start waits it out and then serves.
   */
  @Test
  public void aRestartWaitsOutTheLeaseOfAKilledHolder() throws Exception {
    try (TieredDfsCluster c = TieredDfsCluster.start(TestClusters.small("sps-lease")
      .blockSizeBytes(1L << 20).startSatisfier(false).startTierMover(false))) {
      // The dead holder: the file open, its lease no longer renewed.
      DistributedFileSystem dead = (DistributedFileSystem) org.apache.hadoop.fs.FileSystem
        .newInstance(c.uri(), c.configuration());
      FSDataOutputStream id = dead.create(HdfsServerConstants.MOVER_ID_PATH);
      id.writeBytes("a-killed-host");
      id.hflush();
      DFSClientAdapter.stopLeaseRenewer(dead);
      c.miniCluster().setLeasePeriod(3_000, 60_000);
      Configuration conf = new Configuration(c.configuration());
      conf.setLong(HdfsKeys.SPS_START_WAIT_MS, 45_000);
      long start = System.currentTimeMillis();
      try (InProcessSatisfier sps = InProcessSatisfier.start(conf, c.uri())) {
        long took = System.currentTimeMillis() - start;
        System.err.printf("SatisfierSupervisionIT: took over the mover id file %d ms after the "
          + "killed holder's lease began to lapse%n", took);
        assertTrue(sps.status().toString(), sps.isRunning());
        // And it serves.
        DistributedFileSystem fs = c.fileSystem();
        List<Path> files = misplacedFiles(fs, 1);
        fs.satisfyStoragePolicy(files.get(0));
        waitFor("the file on SSD", 60_000, () -> PlacementCheck.satisfied(fs, files.get(0)));
      }
    }
  }

  /** With no satisfier, {@code strata mover} says so at once instead of timing out. */
  @Test
  public void moverSaysAtOnceWhenNoSatisfierRuns() throws Exception {
    try (TieredDfsCluster c = TieredDfsCluster.start(TestClusters.small("sps-none")
      .blockSizeBytes(1L << 20).startSatisfier(false))) {
      DistributedFileSystem fs = c.fileSystem();
      misplacedFiles(fs, 1);
      ByteArrayOutputStream console = new ByteArrayOutputStream();
      ByteArrayOutputStream errors = new ByteArrayOutputStream();
      PrintStream err = System.err;
      System.setErr(new PrintStream(errors, true, StandardCharsets.UTF_8));
      long start = System.currentTimeMillis();
      int code;
      try {
        code = FileMover.move(c.configuration(), List.of("/ssd"), c.uri(), 120, false,
          new PrintStream(console, true, StandardCharsets.UTF_8));
      } finally {
        System.setErr(err);
      }
      long tookMs = System.currentTimeMillis() - start;
      assertEquals(console.toString() + errors, 1, code);
      assertTrue(errors.toString(), errors.toString().contains(
        "no Storage Policy Satisfier is running"));
      assertTrue(errors.toString(), errors.toString().contains("/system/mover.id"));
      assertTrue("said after " + tookMs + " ms", tookMs < 15_000);
    }
  }

  /**
   * The tier mover says when no satisfier runs, does not count the files waiting for one as
   * failed, and moves them once one starts.
   */
  @Test
  public void tierMoverSaysWhenNoSatisfierRunsAndWaitsForOne() throws Exception {
    try (TieredDfsCluster c = TieredDfsCluster.start(TestClusters.small("sps-tiermover")
      .blockSizeBytes(1L << 20).startSatisfier(false).startTierMover(false))) {
      DistributedFileSystem fs = c.fileSystem();
      fs.mkdirs(new Path("/in"));
      fs.mkdirs(new Path("/ssd"));
      fs.setStoragePolicy(new Path("/ssd"), "ALL_SSD");
      write(fs, new Path("/in/f"), 1 << 20);
      Configuration conf = new Configuration(c.configuration());
      conf.setLong(HdfsKeys.TIERMOVER_GIVE_UP_MS, 2_000);
      java.nio.file.Path state = Files.createTempDirectory("tm").resolve("state");
      try (TierMover mover = TierMover.start(
        conf, c.uri(), state)) {
        fs.rename(new Path("/in/f"), new Path("/ssd/f"));
        long deadline = System.currentTimeMillis() + 20_000;
        TierMoverStatus st = mover.status();
        while (System.currentTimeMillis() < deadline && st.files().requests() == 0) {
          Thread.sleep(200);
          st = mover.status();
        }
        assertTrue(st.toString(), st.files().requests() > 0);
        assertFalse(st.toString(), st.satisfier().running());
        assertTrue(st.toString(), st.toString().contains("Storage Policy Satisfier not running"));
        assertFalse(st.toJson().toString(), st.toJson().get("satisfier").get("running")
          .asBoolean());
        Thread.sleep(4_000); // past the give-up time: waiting for a satisfier is no failure
        st = mover.status();
        assertEquals(st.toString(), 0, st.files().failed());
        assertEquals(st.toString(), 1, st.queue().queued());

        try (InProcessSatisfier sps = InProcessSatisfier.start(c.configuration(), c.uri())) {
          List<Path> moved = List.of(new Path("/ssd/f"));
          deadline = System.currentTimeMillis() + 60_000;
          while (System.currentTimeMillis() < deadline && (mover.status().files().moved() == 0
            || !mover.status().satisfier().running())) {
            Thread.sleep(200);
          }
          st = mover.status();
          assertEquals(st.toString(), 1, st.files().moved());
          assertTrue(st.toString(), st.satisfier().running());
          assertOnSsd(fs, moved);
        }
      }
    }
  }
}
