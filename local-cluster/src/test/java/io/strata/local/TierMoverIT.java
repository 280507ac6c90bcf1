package io.strata.local;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.strata.hdfs.HdfsKeys;
import io.strata.hdfs.mover.FileMover;
import io.strata.hdfs.mover.PlacementCheck;
import io.strata.hdfs.tiermover.TierMover;
import io.strata.hdfs.tiermover.TierMoverStatus;
import io.strata.hdfs.tiermover.TierMoverTool;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.SafeModeAction;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.client.HdfsClientConfigKeys;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.junit.Test;

/**
 * The tier mover on a real tiered MiniDFSCluster with the Storage Policy Satisfier: renamed files
 * end up on their new policy's storage types, through restarts of the mover and the NameNode.
 */
public class TierMoverIT {

  private static org.apache.hadoop.fs.Path p(String s) {
    return new org.apache.hadoop.fs.Path(s);
  }

  private static void write(DistributedFileSystem fs, String path, int bytes, short replication)
    throws IOException {
    try (FSDataOutputStream out = fs.create(p(path), replication)) {
      out.write(new byte[bytes]);
    }
  }

  private static void assertOn(DistributedFileSystem fs, String file, StorageType type)
    throws IOException {
    for (LocatedBlock b : fs.getClient().getLocatedBlocks(file, 0).getLocatedBlocks()) {
      for (StorageType t : b.getStorageTypes()) {
        assertEquals(file + " block " + b.getBlock(), type, t);
      }
    }
  }

  /** Waits until every file of {@code files} is on its policy; returns the milliseconds taken. */
  private static long awaitPlaced(DistributedFileSystem fs, List<org.apache.hadoop.fs.Path> files,
    long timeoutMs, TierMover mover) throws Exception {
    long start = System.currentTimeMillis();
    List<org.apache.hadoop.fs.Path> left = files;
    while (true) {
      left = PlacementCheck.unsatisfied(fs, left);
      long took = System.currentTimeMillis() - start;
      if (left.isEmpty()) {
        return took;
      }
      if (took > timeoutMs) {
        fail(left.size() + " of " + files.size() + " files not on their policy after " + took
          + " ms, e.g. " + left.get(0) + "; tier mover: " + (mover == null ? "-" : mover.status()));
      }
      Thread.sleep(200);
    }
  }

  /** The mover notices a placement at its next check of the file. */
  private static TierMoverStatus awaitMoverSees(TierMover mover, long moved) throws Exception {
    long deadline = System.currentTimeMillis() + 15_000;
    TierMoverStatus s = mover.status();
    while (s.files().moved() + s.files().alreadyInPlace() < moved
      && System.currentTimeMillis() < deadline) {
      Thread.sleep(100);
      s = mover.status();
    }
    return s;
  }

  /**
   * Writes {@code n} small single-replica files /in/f0.. (on DISK) and makes /ssd an ALL_SSD
   * directory; returns /ssd/f0.., where the tests rename them to.
   */
  private static List<org.apache.hadoop.fs.Path> filesToRenameIntoSsd(TieredDfsCluster c, int n)
    throws Exception {
    DistributedFileSystem fs = c.fileSystem();
    fs.mkdirs(p("/in"));
    fs.mkdirs(p("/ssd"));
    fs.setStoragePolicy(p("/ssd"), "ALL_SSD");
    List<org.apache.hadoop.fs.Path> targets = new ArrayList<>();
    List<String> sources = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      sources.add("/in/f" + i);
      targets.add(p("/ssd/f" + i));
    }
    writeSmallFiles(c, sources);
    return targets;
  }

  /** Writes small single-replica files from a few threads, with a client that closes fast. */
  private static void writeSmallFiles(TieredDfsCluster c, List<String> paths) throws Exception {
    Configuration conf = new Configuration(c.configuration());
    conf.setInt(HdfsClientConfigKeys.BlockWrite.LOCATEFOLLOWINGBLOCK_INITIAL_DELAY_MS_KEY, 10);
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try (FileSystem fs = FileSystem.newInstance(c.uri(), conf)) {
      List<Future<?>> done = new ArrayList<>();
      for (String path : paths) {
        done.add(pool.submit(() -> {
          write((DistributedFileSystem) fs, path, 4096, (short) 1);
          return null;
        }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
  }

  @Test
  public void renamedDirectoryFollowsItsNewPolicy() throws Exception {
    try (TieredDfsCluster c = TieredDfsCluster.start(TestClusters.small("tier-mover-dir")
      .blockSizeBytes(1L << 20))) {
      DistributedFileSystem fs = c.fileSystem();
      fs.mkdirs(p("/disk/d"));
      fs.mkdirs(p("/ssd"));
      fs.setStoragePolicy(p("/ssd"), "ALL_SSD");
      write(fs, "/disk/d/f1", 3 << 20, (short) 3);
      write(fs, "/disk/d/f2", 1 << 20, (short) 3);
      write(fs, "/disk/stays", 1 << 20, (short) 3);
      write(fs, "/disk/wal", 1 << 20, (short) 3);
      assertOn(fs, "/disk/d/f1", StorageType.DISK);
      // RAM_SSD exists only through the overlay's configured policies
      assertTrue(TieredDfsCluster.overlaySource(),
        !new File(TieredDfsCluster.overlaySource()).getName().startsWith("hadoop-hdfs"));
      fs.mkdirs(p("/ram-ssd"));
      fs.setStoragePolicy(p("/ram-ssd"), "RAM_SSD");
      assertTrue(fs.rename(p("/disk/wal"), p("/ram-ssd/wal")));

      long renamed = System.currentTimeMillis();
      assertTrue(fs.rename(p("/disk/d"), p("/ssd/d")));
      long took = awaitPlaced(fs, List.of(p("/ssd/d/f1"), p("/ssd/d/f2"), p("/ram-ssd/wal")),
        10_000, c.tierMover());
      System.out.printf("directory rename DISK -> ALL_SSD placed after %d ms%n",
        System.currentTimeMillis() - renamed);
      assertTrue("took " + took + " ms", took <= 10_000);
      assertOn(fs, "/ssd/d/f1", StorageType.SSD);
      assertOn(fs, "/ssd/d/f2", StorageType.SSD);
      assertOn(fs, "/disk/stays", StorageType.DISK);
      List<StorageType> wal = new ArrayList<>(List.of(fs.getClient()
        .getLocatedBlocks("/ram-ssd/wal", 0).get(0).getStorageTypes()));
      Collections.sort(wal);
      assertEquals(List.of(StorageType.SSD, StorageType.NVDIMM, StorageType.SSD).stream()
        .sorted().toList(), wal);
      TierMoverStatus s = awaitMoverSees(c.tierMover(), 3);
      assertEquals(s.toString(), 3, s.files().moved());
      assertEquals(s.toString(), 0, s.files().failed());
      assertTrue(s.toString(),
        s.lags().move().max() > 0 && s.lags().move().max() <= 10_000 + 2_000);

      // The command (what strata tier-mover calls): a second, independent mover with its own
      // state, for a few seconds.
      File json = new File("target/it-work/tier-mover-status.json");
      Path state = Files.createTempDirectory("tier-mover-cli").resolve("state");
      assertEquals(0, TierMoverTool.follow(c.configuration(), c.uri(), state.toString(), null, 1,
        2, json, System.out));
      JsonNode doc = new ObjectMapper().readTree(json);
      for (String field : new String[] { "txid", "txids_behind", "renames", "files_accepted",
        "queued", "moved", "already_in_place", "gone", "failed", "move_requests" }) {
        assertTrue(field + " in " + doc, doc.has(field));
      }
      assertTrue(doc.toString(), doc.get("txid").asLong() > 0);
      assertTrue(doc.toString(), doc.get("move_lag_ms").has("p99"));
      assertTrue(Files.readString(state).contains("txid " + doc.get("txid").asLong()));
    }
  }

  @Test
  public void thousandRenamesThroughAMoverRestartAreAllPlaced() throws Exception {
    try (TieredDfsCluster c = TieredDfsCluster.start(TestClusters.small("tier-mover-1000")
      .blockSizeBytes(1L << 20).startTierMover(false))) {
      DistributedFileSystem fs = c.fileSystem();
      int n = 1000;
      List<org.apache.hadoop.fs.Path> targets = filesToRenameIntoSsd(c, n);
      Path state = Files.createTempDirectory("tier-mover").resolve("state");
      long start = System.currentTimeMillis();
      TierMover first = TierMover.start(c.configuration(), c.uri(), state);
      for (int i = 0; i < n / 2; i++) {
        assertTrue(fs.rename(p("/in/f" + i), targets.get(i)));
      }
      // Stopped while it still has renamed files to place.
      long deadline = System.currentTimeMillis() + 20_000;
      while (first.status().files().accepted() < n / 4 && System.currentTimeMillis() < deadline) {
        Thread.sleep(20);
      }
      first.close();
      TierMoverStatus before = first.status();
      for (int i = n / 2; i < n; i++) {
        assertTrue(fs.rename(p("/in/f" + i), targets.get(i)));
      }
      try (TierMover second = TierMover.start(c.configuration(), c.uri(), state)) {
        long took = awaitPlaced(fs, targets, 240_000, second);
        TierMoverStatus after = second.status();
        System.out.printf("%d renames placed in %d ms (rename to last placed %d ms); first mover "
          + "stopped with %s; second: %s%n", n, System.currentTimeMillis() - start, took, before,
          after);
        assertTrue("the first mover stopped with work left: " + before,
          before.queue().queued() > 0);
        for (int i = 0; i < n; i += 97) {
          assertOn(fs, targets.get(i).toString(), StorageType.SSD);
        }
        assertEquals(after.toString(), 0, after.files().failed());
      }
    }
  }

  @Test
  public void followsRenamesAcrossANameNodeRestart() throws Exception {
    try (TieredDfsCluster c = TieredDfsCluster.start(TestClusters.small("tier-mover-nn")
      .blockSizeBytes(1L << 20))) {
      DistributedFileSystem fs = c.fileSystem();
      List<org.apache.hadoop.fs.Path> targets = filesToRenameIntoSsd(c, 40);
      for (int i = 0; i < 20; i++) {
        assertTrue(fs.rename(p("/in/f" + i), targets.get(i)));
      }
      c.miniCluster().restartNameNode(true);
      fs = c.fileSystem();
      for (int i = 20; i < 40; i++) {
        assertTrue(fs.rename(p("/in/f" + i), targets.get(i)));
      }
      awaitPlaced(fs, targets, 120_000, c.tierMover());
      assertEquals(c.tierMover().status().toString(), 0, c.tierMover().status().files().failed());
    }
  }
  /** A copy of the tier mover's state directory as it is now: what a crash at this point leaves. */
  private static Path crashImage(Path state) throws IOException {
    Path copy = Files.createTempDirectory("tier-mover-crash").resolve("state");
    Files.copy(state, copy);
    return copy;
  }

  private static long savedTxid(Path state) throws IOException {
    for (String line : Files.readAllLines(state)) {
      if (line.startsWith("txid ")) {
        return Long.parseLong(line.substring(5));
      }
    }
    throw new AssertionError("no txid in " + state + ": " + Files.readString(state));
  }

  /** The saved position in a renamed directory's listing, if the state has one. */
  private static String listingCursor(Path state) throws IOException {
    for (String line : Files.readAllLines(state)) {
      String[] f = line.split(" ");
      if (f[0].equals("dir") && f.length == 4 && !f[2].equals("-")) {
        return f[2];
      }
    }
    return null;
  }

  /**
   * The mover crashes (its state file is taken as it is, the mover is never closed on it) while it
   * follows file and directory renames, then a new mover starts on what the crash left: every
   * rename made before the crash is followed. Once right after a save, once in the middle of one
   * (a partly written temporary file beside the state file).
   */
  @Test
  public void everyRenameBeforeACrashIsFollowedAfterARestart() throws Exception {
    try (TieredDfsCluster c = TieredDfsCluster.start(TestClusters.small("tier-mover-crash")
      .blockSizeBytes(1L << 20).startTierMover(false))) {
      DistributedFileSystem fs = c.fileSystem();
      fs.mkdirs(p("/ssd"));
      fs.setStoragePolicy(p("/ssd"), "ALL_SSD");
      List<String> sources = new ArrayList<>();
      for (int round = 0; round < 2; round++) {
        for (int i = 0; i < 40; i++) {
          sources.add("/in" + round + "/d/sub" + (i % 3) + "/f" + i);
        }
        for (int i = 0; i < 20; i++) {
          sources.add("/in" + round + "/g" + i);
        }
      }
      writeSmallFiles(c, sources);
      for (int round = 0; round < 2; round++) {
        boolean duringSave = round == 1;
        Configuration conf = new Configuration(c.configuration());
        // Room for the 20 file renames and the directory, and for 10 of the directory's 40
        // files: the crash finds the directory partly listed.
        conf.setInt(HdfsKeys.TIERMOVER_MAX_QUEUED, 30);
        conf.setLong(HdfsKeys.TIERMOVER_SAVE_INTERVAL_MS, 300);
        conf.setLong(HdfsKeys.TIERMOVER_CHECK_INTERVAL_MAX_MS, 2_000);
        Path state = Files.createTempDirectory("tier-mover").resolve("state");
        List<org.apache.hadoop.fs.Path> targets = new ArrayList<>();
        TierMover first = TierMover.start(conf, c.uri(), state);
        Path image;
        try {
          assertTrue(fs.rename(p("/in" + round + "/d"), p("/ssd/d" + round)));
          for (int i = 0; i < 20; i++) {
            assertTrue(fs.rename(p("/in" + round + "/g" + i), p("/ssd/g" + round + "-" + i)));
            targets.add(p("/ssd/g" + round + "-" + i));
          }
          for (int i = 0; i < 40; i++) {
            targets.add(p("/ssd/d" + round + "/sub" + (i % 3) + "/f" + i));
          }
          long renamedUpTo = fs.getClient().getNamenode().getCurrentEditLogTxid();
          // Crash once the first mover has taken the renames in and saved, with work left.
          long deadline = System.currentTimeMillis() + 30_000;
          while ((first.status().position().txid() < renamedUpTo - 1
            || savedTxid(state) < renamedUpTo - 1
            || listingCursor(state) == null) && System.currentTimeMillis() < deadline) {
            Thread.sleep(20);
          }
          image = crashImage(state);
          assertTrue("the crash did not find the directory partly listed: "
            + Files.readString(image), listingCursor(image) != null);
          TierMoverStatus atCrash = first.status();
          System.out.printf("crash %s a save: saved txid %d, mover %s%n", duringSave ? "during"
            : "after", savedTxid(image), atCrash);
          assertTrue("the first mover placed everything before the crash: " + atCrash,
            atCrash.queue().queued() > 0);
          if (duringSave) {
            // An interrupted save leaves the previous state and a partial temporary file.
            String newer = Files.readString(state);
            Files.writeString(image.resolveSibling("state.tmp"), "# Strata tier mover state\n"
              + "txid " + (savedTxid(image) + 1_000_000) + "\n" + newer.substring(0,
                newer.length() / 2) + "\npending 12");
          }
        } finally {
          // Only to stop its threads: the image above is what the crash left behind.
          first.close();
        }
        long saved = savedTxid(image);
        try (TierMover second = TierMover.start(conf, c.uri(), image)) {
          assertTrue("resumed at " + second.status().position().txid() + ", saved " + saved,
            second.status().position().txid() >= saved
              && second.status().position().txid() < saved + 1_000_000);
          long took = awaitPlaced(fs, targets, 120_000, second);
          System.out.printf("after a crash %s a save: %d files placed %d ms after the restart: "
            + "%s%n", duringSave ? "during" : "after", targets.size(), took, second.status());
        }
        for (org.apache.hadoop.fs.Path t : targets) {
          assertOn(fs, t.toString(), StorageType.SSD);
        }
      }
    }
  }

  /**
   * The NameNode purges edits the stopped mover has not read: on resuming it says which
   * transactions it lost and how to recover, counts them in its status, and {@code strata mover}
   * places the files renamed in the gap.
   */
  @Test
  public void anEditLogGapIsReportedAndStrataMoverRecoversIt() throws Exception {
    try (TieredDfsCluster c = TieredDfsCluster.start(TestClusters.small("tier-mover-gap")
      .blockSizeBytes(1L << 20).startTierMover(false)
      .dfs(DFSConfigKeys.DFS_NAMENODE_NUM_CHECKPOINTS_RETAINED_KEY, "1")
      // The checkpoint keeps the segment it just closed (started by the roll below) and purges
      // the ones before it.
      .dfs(DFSConfigKeys.DFS_NAMENODE_NUM_EXTRA_EDITS_RETAINED_KEY, "2")
      .dfs(DFSConfigKeys.DFS_NAMENODE_MAX_EXTRA_EDITS_SEGMENTS_RETAINED_KEY, "1"))) {
      DistributedFileSystem fs = c.fileSystem();
      List<org.apache.hadoop.fs.Path> targets = filesToRenameIntoSsd(c, 10);
      Path state = Files.createTempDirectory("tier-mover-gap").resolve("state");
      try (TierMover first = TierMover.start(c.configuration(), c.uri(), state)) {
        for (int i = 0; i < 5; i++) {
          assertTrue(fs.rename(p("/in/f" + i), targets.get(i)));
        }
        awaitPlaced(fs, targets.subList(0, 5), 60_000, first);
      }
      long stoppedAt = savedTxid(state);
      // While the mover is stopped: renames, then a checkpoint purges the edits holding them.
      for (int i = 5; i < 10; i++) {
        assertTrue(fs.rename(p("/in/f" + i), targets.get(i)));
      }
      fs.rollEdits();
      fs.setSafeMode(SafeModeAction.ENTER);
      fs.saveNamespace();
      fs.setSafeMode(SafeModeAction.LEAVE);
      fs.mkdirs(p("/after-the-gap"));

      ByteArrayOutputStream printed = new ByteArrayOutputStream();
      File json = new File("target/it-work/tier-mover-gap.json");
      assertEquals(0, TierMoverTool.follow(c.configuration(), c.uri(), state.toString(), null, 1,
        3, json, new PrintStream(printed, true, StandardCharsets.UTF_8)));
      String out = printed.toString(StandardCharsets.UTF_8);
      System.out.print(out);
      assertEquals("the renames in the gap were not followed",
        5, PlacementCheck.unsatisfied(fs, targets.subList(5, 10)).size());
      JsonNode doc = new ObjectMapper().readTree(json);
      assertEquals(doc.toString(), 1, doc.path("gaps").asLong(-1));
      assertTrue(doc.toString(), doc.path("missed_txids").asLong(-1) > 0);
      assertEquals(doc.toString(), stoppedAt + 1, doc.path("last_gap_first_txid").asLong(-1));
      assertTrue(doc.toString(), doc.path("last_gap_last_txid").asLong(-1) >= stoppedAt + 5);
      assertTrue(doc.toString(), doc.get("txid").asLong() > doc.get("last_gap_last_txid")
        .asLong());
      assertTrue(out, out.contains("transactions " + (stoppedAt + 1) + " to "));
      assertTrue(out, out.contains("strata mover -p"));

      // The recovery the report names.
      assertEquals(0, FileMover.move(c.configuration(), List.of("/ssd"), null, 60, false,
        System.out));
      for (int i = 5; i < 10; i++) {
        assertOn(fs, targets.get(i).toString(), StorageType.SSD);
      }
    }
  }

  /**
   * A policy set on a renamed file after the mover's first look, which found it in place: the
   * second look moves it (a policy change is not an inotify event).
   */
  @Test
  public void aPolicySetAfterTheFirstLookIsFollowed() throws Exception {
    try (TieredDfsCluster c = TieredDfsCluster.start(TestClusters.small("tier-mover-late")
      .blockSizeBytes(1L << 20))) {
      DistributedFileSystem fs = c.fileSystem();
      fs.mkdirs(p("/in"));
      fs.mkdirs(p("/plain"));
      writeSmallFiles(c, List.of("/in/late"));
      assertTrue(fs.rename(p("/in/late"), p("/plain/late")));
      // After the settle and the first look (on DISK, where the default policy wants it).
      Thread.sleep(HdfsKeys.TIERMOVER_SETTLE_MS_DEFAULT + 1_500);
      assertOn(fs, "/plain/late", StorageType.DISK);
      fs.setStoragePolicy(p("/plain/late"), "ALL_SSD");
      long took = awaitPlaced(fs, List.of(p("/plain/late")), 20_000, c.tierMover());
      System.out.printf("policy set after the first look: placed %d ms later; %s%n", took,
        c.tierMover().status());
      assertOn(fs, "/plain/late", StorageType.SSD);
    }
  }

  /**
   * A directory rename of 20,000 files (0-byte, plus a few with blocks), 40 times the bound on
   * what the mover may hold: every file is looked at,
   * the files with blocks are moved, the mover never holds more than its bound in memory, and the
   * state file is saved a few times, not once per event.
   */
  @Test
  public void aLargeDirectoryRenameIsFollowedInBoundedMemory() throws Exception {
    try (TieredDfsCluster c = TieredDfsCluster.start(TestClusters.small("tier-mover-large")
      .blockSizeBytes(1L << 20).startTierMover(false))) {
      DistributedFileSystem fs = c.fileSystem();
      int dirs = 20;
      int perDir = 1_000;
      long start = System.currentTimeMillis();
      createEmptyFiles(c, "/big", dirs, perDir);
      List<String> withBlocks = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        withBlocks.add("/big/blocks/f" + i);
      }
      writeSmallFiles(c, withBlocks);
      int files = dirs * perDir + withBlocks.size();
      long created = System.currentTimeMillis();
      fs.mkdirs(p("/ssd"));
      fs.setStoragePolicy(p("/ssd"), "ALL_SSD");

      int bound = 500;
      Configuration conf = new Configuration(c.configuration());
      conf.setInt(HdfsKeys.TIERMOVER_MAX_QUEUED, bound);
      conf.setLong(HdfsKeys.TIERMOVER_SETTLE_MS, 200);
      Path state = Files.createTempDirectory("tier-mover-large").resolve("state");
      try (TierMover mover = TierMover.start(conf, c.uri(), state)) {
        long renamed = System.currentTimeMillis();
        assertTrue(fs.rename(p("/big"), p("/ssd/big")));
        long seen = 0;
        long mostQueued = 0;
        long deadline = renamed + 240_000;
        TierMoverStatus s = mover.status();
        while (s.files().alreadyInPlace() + s.files().moved() + s.files().gone()
          + s.files().failed() < files) {
          mostQueued = Math.max(mostQueued, s.queue().queued());
          assertTrue("holds " + s.queue().queued() + " entries, more than " + bound + ": " + s,
            s.queue().queued() <= bound + 10);
          assertTrue("not done after 240 s: " + s, System.currentTimeMillis() < deadline);
          Thread.sleep(50);
          s = mover.status();
        }
        long took = System.currentTimeMillis() - renamed;
        JsonNode doc = new ObjectMapper().readTree(s.toJson().toString());
        System.out.printf("%d files created in %d ms; the directory rename followed in %d ms, "
          + "most queued seen %d; %s; %s%n", files, created - start, took, mostQueued, s, doc);
        assertEquals(s.toString(), files, s.files().alreadyInPlace() + s.files().moved());
        assertEquals(s.toString(), withBlocks.size(), s.files().moved());
        assertEquals(s.toString(), 0, s.files().failed());
        for (String f : withBlocks) {
          assertOn(fs, "/ssd" + f, StorageType.SSD);
        }
        assertTrue(doc.toString(), doc.path("queued_peak").asLong(-1) > 0);
        assertTrue(doc.toString(), doc.path("queued_peak").asLong() <= bound + 10);
        // Saved at most every 5 s (plus the start), never per event or per round.
        long saves = doc.path("state_saves").asLong(-1);
        assertTrue(doc.toString(), saves >= 1 && saves <= 3 + took / 5_000);
        assertTrue(doc.toString(), doc.path("state_bytes_written").asLong(-1) > 0
          && doc.path("state_bytes_written").asLong() < 100L * (bound + 10) * saves);
      }
    }
  }

  /** Creates {@code dirs} x {@code perDir} empty files under {@code root} from many threads. */
  private static void createEmptyFiles(TieredDfsCluster c, String root, int dirs, int perDir)
    throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(16);
    AtomicLong made = new AtomicLong();
    try (FileSystem fs = FileSystem.newInstance(c.uri(), c.configuration())) {
      DistributedFileSystem dfs = (DistributedFileSystem) fs;
      List<Future<?>> done = new ArrayList<>();
      for (int d = 0; d < dirs; d++) {
        String dir = root + "/d" + d;
        dfs.mkdirs(p(dir));
        for (int t = 0; t < 4; t++) {
          int part = t;
          done.add(pool.submit(() -> {
            for (int i = part; i < perDir; i += 4) {
              // create with no data: one create and one complete call, no block
              dfs.create(p(dir + "/f" + i), (short) 1).close();
              made.incrementAndGet();
            }
            return null;
          }));
        }
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
    assertEquals((long) dirs * perDir, made.get());
  }
}
