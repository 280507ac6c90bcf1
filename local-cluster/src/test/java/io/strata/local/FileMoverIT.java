package io.strata.local;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.strata.hdfs.mover.FileMover;
import io.strata.hdfs.mover.PlacementCheck;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.junit.Test;

/** {@code strata mover}: exactly the named files move, with the SPS, or it says why not. */
public class FileMoverIT {

  private static void write(DistributedFileSystem fs, Path p, int bytes) throws IOException {
    try (FSDataOutputStream out = fs.create(p)) {
      out.write(new byte[bytes]);
    }
  }

  private static int mover(TieredDfsCluster c, ByteArrayOutputStream console, String... paths)
    throws Exception {
    return FileMover.move(c.configuration(), List.of(paths), c.uri(), 30, false,
      new PrintStream(console, true, StandardCharsets.UTF_8));
  }

  @Test
  public void movesTheNamedFilesOnly() throws Exception {
    try (TieredDfsCluster c = TieredDfsCluster.start(TestClusters.small("mover")
      .blockSizeBytes(1L << 20))) {
      DistributedFileSystem fs = c.fileSystem();
      fs.mkdirs(new Path("/a"));
      fs.mkdirs(new Path("/b"));
      write(fs, new Path("/a/f1"), 3 << 20);
      write(fs, new Path("/a/f2"), 1 << 20);
      write(fs, new Path("/b/f3"), 1 << 20);
      fs.setStoragePolicy(new Path("/a"), "ALL_SSD");
      fs.setStoragePolicy(new Path("/b"), "ALL_SSD");
      assertTrue(!PlacementCheck.satisfied(fs, new Path("/a/f1")));

      ByteArrayOutputStream console = new ByteArrayOutputStream();
      assertEquals(console.toString(), 0, mover(c, console, "/a"));
      assertTrue(console.toString(), console.toString().contains("moved 2/2 files"));
      for (String f : new String[] { "/a/f1", "/a/f2" }) {
        for (LocatedBlock b : fs.getClient().getLocatedBlocks(f, 0).getLocatedBlocks()) {
          for (StorageType t : b.getStorageTypes()) {
            assertEquals(f, StorageType.SSD, t);
          }
        }
      }
      // /b was not named: it stays where it was written
      assertTrue(!PlacementCheck.satisfied(fs, new Path("/b/f3")));
    }
  }

  @Test
  public void saysSoWhenBlocksCannotMove() throws Exception {
    try (TieredDfsCluster c = TieredDfsCluster.start(TestClusters.small("mover-full")
      .blockSizeBytes(1L << 20).ssdBytesPerDataNode(256L << 10))) {
      DistributedFileSystem fs = c.fileSystem();
      write(fs, new Path("/big"), 4 << 20);
      fs.setStoragePolicy(new Path("/big"), "ALL_SSD");
      ByteArrayOutputStream console = new ByteArrayOutputStream();
      PrintStream err = System.err;
      ByteArrayOutputStream errors = new ByteArrayOutputStream();
      System.setErr(new PrintStream(errors, true, StandardCharsets.UTF_8));
      int code;
      try {
        code = FileMover.move(c.configuration(), List.of("/big"), c.uri(), 8, false,
          new PrintStream(console, true, StandardCharsets.UTF_8));
      } finally {
        System.setErr(err);
      }
      assertEquals(console.toString(), 1, code);
      assertTrue(errors.toString(), errors.toString().contains("not on their tier"));
      assertTrue(errors.toString(), errors.toString().contains("/big"));
    }
  }
}
