package io.strata.hdfs.overlay;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DFSTestUtil;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * {@code strata rollback-policies} on a MiniDFSCluster with RAM_SSD configured: it refuses
 * before changing anything when an id found has no mapping, changes nothing on a dry run, and
 * otherwise leaves no entry carrying RAM_SSD, with every replica on the built-in policy's types
 * and the data intact. The run without the overlay afterwards is RollbackIT's (distribution).
 */
public class PolicyRollbackTest {

  private static final int LEN = 3 << 20;
  private static MiniDFSCluster cluster;
  private static DistributedFileSystem fs;

  @BeforeClass
  public static void start() throws Exception {
    Configuration conf = new HdfsConfiguration();
    ConfiguredStoragePoliciesTest.ramSsd().forEach(e -> conf.set(e.getKey(), e.getValue()));
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR,
      new File("target/test-dfs/rollback-" + System.nanoTime()).getAbsolutePath());
    conf.setLong(DFSConfigKeys.DFS_BLOCK_SIZE_KEY, 1 << 20);
    conf.setInt(DFSConfigKeys.DFS_HEARTBEAT_INTERVAL_KEY, 1);
    conf.setInt(DFSConfigKeys.DFS_NAMENODE_REDUNDANCY_INTERVAL_SECONDS_KEY, 1);
    conf.setInt(DFSConfigKeys.DFS_NAMENODE_SAFEMODE_EXTENSION_KEY, 0);
    final int dns = 3;
    StorageType[][] types = new StorageType[dns][];
    for (int i = 0; i < dns; i++) {
      types[i] = new StorageType[] { StorageType.NVDIMM, StorageType.SSD, StorageType.DISK };
    }
    cluster = new MiniDFSCluster.Builder(conf).numDataNodes(dns).storagesPerDatanode(3)
      .storageTypes(types).build();
    cluster.waitActive();
    fs = cluster.getFileSystem();
  }

  @AfterClass
  public static void stop() {
    if (cluster != null) {
      cluster.shutdown();
    }
  }

  private static byte[] write(Path file, int seed) throws Exception {
    byte[] data = new byte[LEN];
    new Random(seed).nextBytes(data);
    try (FSDataOutputStream o = fs.create(file, (short) 2)) {
      o.write(data);
    }
    DFSTestUtil.waitReplication(fs, file, (short) 2);
    return data;
  }

  /** The rollback of /rb with these --map values (null: none). */
  private static String run(int expected, List<String> maps, boolean dryRun, boolean checkpoint)
    throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int rc = PolicyRollback.rollback(new Configuration(fs.getConf()), null, maps, "/rb", dryRun,
      true, checkpoint, TimeUnit.MINUTES.toMillis(10),
      new PrintStream(out, true, StandardCharsets.UTF_8),
      new PrintStream(err, true, StandardCharsets.UTF_8));
    String both = out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8);
    assertEquals(both, expected, rc);
    return both;
  }

  @Test
  public void everyEntryUnderRamSsdGetsTheBuiltInPolicyAndItsTypes() throws Exception {
    Path wal = new Path("/rb/wal");
    fs.mkdirs(new Path(wal, "sub"));
    fs.setStoragePolicy(wal, "RAM_SSD");
    Path hot = new Path("/rb/hot");
    fs.mkdirs(hot);
    fs.setStoragePolicy(hot, "HOT");
    Path[] files = { new Path(wal, "a"), new Path(wal, "sub/b"), new Path(hot, "own") };
    byte[][] data = new byte[files.length][];
    for (int i = 0; i < files.length; i++) {
      data[i] = write(files[i], i);
    }
    // A file with the policy of its own in a directory without it.
    fs.setStoragePolicy(files[2], "RAM_SSD");
    for (LocatedBlock b : fs.getClient().getLocatedBlocks(files[0].toString(), 0).getLocatedBlocks()) {
      assertTrue(List.of(b.getStorageTypes()).toString(),
        List.of(b.getStorageTypes()).contains(StorageType.NVDIMM));
    }

    // No mapping: a refusal that names the policy; nothing changes.
    String refused = run(2, null, false, false);
    assertTrue(refused, refused.contains("carry RAM_SSD (id 3) and no --map names it"));
    assertEquals("RAM_SSD", fs.getStoragePolicy(wal).getName());
    // The target must be built in.
    assertTrue(run(2, List.of("RAM_SSD=RAM_SSD"), false, false).contains("not a built-in storage policy"));
    // A dry run only shows the plan.
    String dry = run(0, List.of("RAM_SSD=ONE_SSD"), true, false);
    assertTrue(dry, dry.contains("RAM_SSD (id 3) -> ONE_SSD: 4 entries under /rb"));
    assertEquals("RAM_SSD", fs.getStoragePolicy(wal).getName());

    String done = run(0, List.of("RAM_SSD=ONE_SSD"), false, true);
    assertTrue(done, done.contains("set ONE_SSD on dir /rb/wal (was RAM_SSD (id 3))"));
    assertTrue(done, done.contains("set ONE_SSD on file /rb/hot/own (was RAM_SSD (id 3))"));
    assertTrue(done, done.contains("every replica under the changed entries is on its policy's"));
    assertTrue(done, done.contains("the namespace is saved"));
    assertEquals("ONE_SSD", fs.getStoragePolicy(wal).getName());
    assertEquals("ONE_SSD", fs.getStoragePolicy(files[1]).getName());
    assertEquals("ONE_SSD", fs.getStoragePolicy(files[2]).getName());
    assertEquals("HOT", fs.getStoragePolicy(hot).getName());
    for (int i = 0; i < files.length; i++) {
      for (LocatedBlock b : fs.getClient().getLocatedBlocks(files[i].toString(), 0)
        .getLocatedBlocks()) {
        List<StorageType> t = new java.util.ArrayList<>(List.of(b.getStorageTypes()));
        t.sort(null);
        assertEquals(files[i] + " " + b, List.of(StorageType.SSD, StorageType.DISK), t);
      }
      byte[] back = new byte[LEN];
      try (FSDataInputStream in = fs.open(files[i])) {
        in.readFully(back);
      }
      assertArrayEquals(data[i], back);
    }
    assertTrue("out of safe mode", !fs.isInSafeMode());
    // Nothing left: a second run finds nothing to do.
    String again = run(0, List.of("RAM_SSD=ONE_SSD"), false, false);
    assertTrue(again, again.contains("nothing under /rb carries a configured policy [RAM_SSD]"));
  }
}
