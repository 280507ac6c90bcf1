package io.strata.local;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.strata.hdfs.mover.PlacementCheck;
import io.strata.hdfs.tiermover.TierMover;
import io.strata.hdfs.tiermover.TierMoverTool;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.StorageType;
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
  private static TierMover.Status awaitMoverSees(TierMover mover, long moved) throws Exception {
    long deadline = System.currentTimeMillis() + 15_000;
    TierMover.Status s = mover.status();
    while (s.moved + s.alreadyInPlace < moved && System.currentTimeMillis() < deadline) {
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
      TierMover.Status s = awaitMoverSees(c.tierMover(), 3);
      assertEquals(s.toString(), 3, s.moved);
      assertEquals(s.toString(), 0, s.failed);
      assertTrue(s.toString(), s.moveLag.max > 0 && s.moveLag.max <= 10_000 + 2_000);

      // The command: a second, independent mover with its own state, for a few seconds.
      File json = new File("target/it-work/tier-mover-status.json");
      Path state = Files.createTempDirectory("tier-mover-cli").resolve("state");
      assertEquals(0, TierMoverTool.run(new String[] { "--hdfs", c.uri().toString(), "--state",
        state.toString(), "--duration", "2", "--report-interval", "1", "--json",
        json.getPath() }, c.configuration(), System.out));
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
      while (first.status().accepted < n / 4 && System.currentTimeMillis() < deadline) {
        Thread.sleep(20);
      }
      first.close();
      TierMover.Status before = first.status();
      for (int i = n / 2; i < n; i++) {
        assertTrue(fs.rename(p("/in/f" + i), targets.get(i)));
      }
      try (TierMover second = TierMover.start(c.configuration(), c.uri(), state)) {
        long took = awaitPlaced(fs, targets, 240_000, second);
        TierMover.Status after = second.status();
        System.out.printf("%d renames placed in %d ms (rename to last placed %d ms); first mover "
          + "stopped with %s; second: %s%n", n, System.currentTimeMillis() - start, took, before,
          after);
        assertTrue("the first mover stopped with work left: " + before, before.queued > 0);
        for (int i = 0; i < n; i += 97) {
          assertOn(fs, targets.get(i).toString(), StorageType.SSD);
        }
        assertEquals(after.toString(), 0, after.failed);
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
      assertEquals(c.tierMover().status().toString(), 0, c.tierMover().status().failed);
    }
  }
}
