package io.strata.hdfs.volume;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.strata.hdfs.HdfsKeys;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.server.blockmanagement.DatanodeDescriptor;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.FsDatasetSpi;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.FsVolumeSpi;
import org.apache.hadoop.util.DiskChecker;
import org.junit.Test;

/**
 * A DataNode volume whose file system goes read-only is failed: the DataNode drops it and stays
 * up, the NameNode counts the volume failure and re-replicates, and every file reads back whole.
 *
 * <p>Four DataNodes, replication 3; the fourth has two volumes, one of them the watched one. As
 * root with loop devices, that volume is its own ext4 on a loop device, turned read-only by
 * ext4's error trigger ({@code /sys/fs/ext4/DEV/trigger_fs_error}, {@code errors=remount-ro}),
 * and the watcher runs as configured in {@code dfs.datanode.plugins}; where the kernel shows the
 * state as {@code emergency_ro} (Linux 6.15 on) the test also shows that HDFS's own directory
 * check still passes on it and that the create probe refuses it. Elsewhere the volume is a plain directory, and
 * the watcher, started on the DataNode by the test, is told it is read-only: the same failing
 * path through the DataNode, without the kernel's part.
 */
public class ReadOnlyVolumeWatcherIT {
  private static final int BLOCK = 256 << 10;
  private static final int FILES = 12;

  @Test
  public void aReadOnlyVolumeIsFailedAndItsReplicasReReplicated() throws Exception {
    File base = new File("target/it-work/readonly-" + UUID.randomUUID().toString().substring(0, 8))
      .getAbsoluteFile();
    Configuration conf = new HdfsConfiguration();
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, base.getPath());
    conf.setLong(DFSConfigKeys.DFS_BLOCK_SIZE_KEY, BLOCK);
    conf.setLong(DFSConfigKeys.DFS_NAMENODE_MIN_BLOCK_SIZE_KEY, 64 << 10);
    conf.setInt(DFSConfigKeys.DFS_REPLICATION_KEY, 3);
    conf.setInt(DFSConfigKeys.DFS_HEARTBEAT_INTERVAL_KEY, 1);
    conf.setInt(DFSConfigKeys.DFS_NAMENODE_REDUNDANCY_INTERVAL_SECONDS_KEY, 1);
    conf.setInt(DFSConfigKeys.DFS_DF_INTERVAL_KEY, 1000);
    LoopVolume loop = null;
    MiniDFSCluster cluster = null;
    ReadOnlyVolumeWatcher byTest = null;
    try {
      loop = LoopVolume.tryCreate(new File(base, "loop"));
      cluster = new MiniDFSCluster.Builder(conf, base).numDataNodes(3).storagesPerDatanode(1)
        .build();
      cluster.waitActive();
      // The fourth DataNode: the watched volume and one other, each with room for every block.
      File watched = loop != null ? new File(loop.mount, "dn") : new File(base, "watched/dn");
      File other = new File(base, "other/dn");
      Configuration dnConf = new HdfsConfiguration(conf);
      dnConf.set(DFSConfigKeys.DFS_DATANODE_DATA_DIR_KEY,
        "[DISK]" + watched.toURI() + ",[DISK]" + other.toURI());
      dnConf.setInt(DFSConfigKeys.DFS_DATANODE_FAILED_VOLUMES_TOLERATED_KEY, 1);
      dnConf.setLong(HdfsKeys.READONLY_CHECK_INTERVAL_MS, 300);
      dnConf.setLong(HdfsKeys.READONLY_PROBE_INTERVAL_MS, 500);
      AtomicBoolean readOnly = new AtomicBoolean();
      if (loop != null) {
        dnConf.set(DFSConfigKeys.DFS_DATANODE_PLUGINS_KEY, ReadOnlyVolumeWatcher.class.getName());
      }
      cluster.startDataNodes(dnConf, 1, false, null, null);
      cluster.waitActive();
      DataNode dn = cluster.getDataNodes().get(3);
      java.nio.file.Path watchedDir = watched.toPath().toRealPath();
      if (loop == null) {
        byTest = new ReadOnlyVolumeWatcher((v, dir) -> readOnly.get() && dir.equals(watchedDir)
          ? "told so by the test" : null);
        byTest.start(dn);
      }

      DistributedFileSystem fs = cluster.getFileSystem();
      List<byte[]> contents = new ArrayList<>();
      Random random = new Random(7);
      for (int i = 0; i < FILES; i++) {
        byte[] b = new byte[2 * BLOCK];
        random.nextBytes(b);
        contents.add(b);
        try (FSDataOutputStream out = fs.create(new Path("/f" + i))) {
          out.write(b);
        }
      }
      int onWatched = replicasOn(dn, watchedDir);
      assertTrue("some replicas on the watched volume before the fault: " + onWatched,
        onWatched > 0);

      if (loop != null) {
        loop.triggerError();
        String opts = loop.mountinfoLine();
        if (opts.contains("emergency_ro")) {
          // HDFS's own check passes on the read-only file system: why the watcher exists.
          DiskChecker.checkDir(new File(watched, "current"));
          assertTrue("the create probe refuses it too",
            ReadOnlyVolumeWatcher.probe(watchedDir) != null);
        }
        // Older kernels: mounted ro (HDFS's check or the mount table), or, on some, only the
        // create probe's I/O error shows it. Either way the volume must be failed.
      } else {
        readOnly.set(true);
      }

      waitFor("the DataNode to fail the read-only volume", 60,
        () -> dn.getFSDataset().getNumFailedVolumes() == 1);
      DatanodeDescriptor dd = cluster.getNamesystem().getBlockManager().getDatanodeManager()
        .getDatanode(dn.getDatanodeId());
      waitFor("the NameNode to count the volume failure", 60, () -> dd.getVolumeFailures() == 1);
      assertTrue("the DataNode stays up on its other volume", dn.isDatanodeUp());
      assertEquals("volumes left on the DataNode", 1, volumes(dn).size());
      waitFor("every block to have 3 replicas again", 120, () -> {
        try {
          return fs.getLowRedundancyBlocksCount() == 0 && allReplicated(fs, 3);
        } catch (IOException e) {
          return false;
        }
      });
      for (int i = 0; i < FILES; i++) {
        byte[] back = new byte[contents.get(i).length];
        try (FSDataInputStream in = fs.open(new Path("/f" + i))) {
          in.readFully(back);
        }
        assertArrayEquals("/f" + i + " reads back whole", contents.get(i), back);
      }
    } finally {
      try {
        if (byTest != null) {
          byTest.stop();
        }
        if (cluster != null) {
          cluster.shutdown();
        }
      } finally {
        if (loop != null) {
          loop.close();
        }
      }
    }
  }

  private static List<FsVolumeSpi> volumes(DataNode dn) throws IOException {
    List<FsVolumeSpi> out = new ArrayList<>();
    try (FsDatasetSpi.FsVolumeReferences refs = dn.getFSDataset().getFsVolumeReferences()) {
      refs.forEach(out::add);
    }
    return out;
  }

  /** Finalized block files under the volume directory. */
  private static int replicasOn(DataNode dn, java.nio.file.Path dir) throws IOException {
    try (java.util.stream.Stream<java.nio.file.Path> s = Files.walk(dir)) {
      return (int) s.filter(p -> p.getFileName().toString().matches("blk_-?\\d+")).count();
    }
  }

  private static boolean allReplicated(DistributedFileSystem fs, int n) throws IOException {
    for (int i = 0; i < FILES; i++) {
      Path p = new Path("/f" + i);
      for (BlockLocation l : fs.getFileBlockLocations(p, 0, fs.getFileStatus(p).getLen())) {
        if (l.getHosts().length < n) {
          return false;
        }
      }
    }
    return true;
  }

  private static void waitFor(String what, int seconds, BooleanSupplier done)
    throws InterruptedException {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > until) {
        throw new AssertionError("waited " + seconds + " s for " + what);
      }
      Thread.sleep(200);
    }
  }

  /** An ext4 file system on a loop device, mounted as a volume's would be; null when not root. */
  private static final class LoopVolume implements AutoCloseable {
    final File image;
    final String device;
    final File mount;

    private LoopVolume(File image, String device, File mount) {
      this.image = image;
      this.device = device;
      this.mount = mount;
    }

    static LoopVolume tryCreate(File dir) throws Exception {
      if (!"root".equals(System.getProperty("user.name")) || !new File("/sys/fs/ext4").isDirectory()
        || run("losetup", "--version") != 0) {
        return null;
      }
      Files.createDirectories(dir.toPath());
      File image = new File(dir, "volume.img");
      File mount = new File(dir, "mnt");
      Files.createDirectories(mount.toPath());
      if (run("truncate", "-s", "128M", image.getPath()) != 0) {
        return null;
      }
      Process p = new ProcessBuilder("losetup", "-f", "--show", image.getPath())
        .redirectErrorStream(true).start();
      String device = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      if (p.waitFor() != 0 || !device.startsWith("/dev/loop")) {
        Files.deleteIfExists(image.toPath());
        return null;
      }
      LoopVolume v = new LoopVolume(image, device, mount);
      if (run("mkfs.ext4", "-q", device) != 0
        || run("mount", "-o", "noatime,errors=remount-ro", device, mount.getPath()) != 0) {
        v.close();
        return null;
      }
      return v;
    }

    void triggerError() throws IOException {
      Files.writeString(Paths.get("/sys/fs/ext4", new File(device).getName(), "trigger_fs_error"),
        "1\n", StandardCharsets.UTF_8);
    }

    String mountinfoLine() throws IOException {
      String mp = mount.toPath().toRealPath().toString();
      for (String l : Files.readAllLines(MountTable.PROC_MOUNTINFO)) {
        if (l.contains(" " + mp + " ")) {
          return l;
        }
      }
      return "";
    }

    @Override
    public void close() throws Exception {
      run("umount", "-l", mount.getPath());
      run("losetup", "-d", device);
      Files.deleteIfExists(image.toPath());
    }

    /** A command's exit code; -1 when it cannot be started (not installed) or does not end. */
    private static int run(String... cmd) throws InterruptedException {
      Process p;
      try {
        p = new ProcessBuilder(cmd).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      } catch (IOException e) {
        return -1;
      }
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return -1;
      }
      return p.exitValue();
    }
  }
}
