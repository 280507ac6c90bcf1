package io.strata.hdfs.overlay;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.server.namenode.FSNamesystem;
import org.apache.hadoop.test.GenericTestUtils;
import org.apache.hadoop.util.ExitUtil;
import org.junit.Test;

/**
 * A configured policy that disappears: a file written under {@code RAM_SSD}, the NameNode
 * restarted without its definition, one of the file's DataNodes stopped so that the redundancy
 * monitor chooses targets for the block. Upstream's suite returns null for the id, and the
 * monitor's NullPointerException terminates the NameNode ({@code ExitUtil.terminate}, which
 * MiniDFSCluster turns into an ExitException in the monitor's thread). With the overlay the
 * NameNode stays up, places the block with the default policy and names the id in its log.
 */
public class VanishedStoragePolicyClusterTest {

  private static final int LEN = 1 << 20;

  /** The restart replays the edits that wrote the file (no checkpoint since). */
  @Test
  public void theNameNodeReplaysEditsOfAFileUnderAVanishedPolicy() throws Exception {
    run(false);
  }

  /**
   * The restart loads a checkpoint that has the file: the start itself needs no policy, the
   * redundancy monitor does.
   */
  @Test
  public void theRedundancyMonitorSurvivesAFileUnderAVanishedPolicy() throws Exception {
    run(true);
  }

  private void run(boolean checkpoint) throws Exception {
    Configuration conf = new HdfsConfiguration();
    ConfiguredStoragePoliciesTest.ramSsd().forEach(e -> conf.set(e.getKey(), e.getValue()));
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR,
      new File("target/test-dfs/vanished-" + System.nanoTime()).getAbsolutePath());
    conf.setInt(DFSConfigKeys.DFS_NAMENODE_REDUNDANCY_INTERVAL_SECONDS_KEY, 1);
    conf.setInt(DFSConfigKeys.DFS_NAMENODE_SAFEMODE_EXTENSION_KEY, 0);
    // A replication whose source DataNode is the one stopped below is retried after this.
    conf.setInt(DFSConfigKeys.DFS_NAMENODE_RECONSTRUCTION_PENDING_TIMEOUT_SEC_KEY, 10);
    final int dns = 4;
    StorageType[][] types = new StorageType[dns][];
    for (int i = 0; i < dns; i++) {
      types[i] = new StorageType[] { StorageType.NVDIMM, StorageType.SSD, StorageType.DISK };
    }
    UndefinedStoragePolicies.reset();
    ExitUtil.resetFirstExitException();
    GenericTestUtils.LogCapturer log = GenericTestUtils.LogCapturer.captureLogs(
      org.slf4j.LoggerFactory.getLogger(UndefinedStoragePolicies.class));
    MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf).numDataNodes(dns)
      .storagesPerDatanode(3).storageTypes(types).build();
    try {
      cluster.waitActive();
      DistributedFileSystem fs = cluster.getFileSystem();
      Path dir = new Path("/wal");
      fs.mkdirs(dir);
      fs.setStoragePolicy(dir, "RAM_SSD");
      Path file = new Path(dir, "f");
      byte[] data = new byte[LEN];
      new Random(7).nextBytes(data);
      try (FSDataOutputStream o = fs.create(file, (short) 3)) {
        o.write(data);
      }
      // close() waits for one replica; the NameNode learns of the others from incremental
      // block reports.
      org.apache.hadoop.hdfs.DFSTestUtil.waitReplication(fs, file, (short) 3);
      LocatedBlock block = fs.getClient().getLocatedBlocks(file.toString(), 0).get(0);
      assertEquals(3, block.getLocations().length);

      // Before the removal, the tool lists what carries the policy about to be removed.
      ByteArrayOutputStream before = new ByteArrayOutputStream();
      assertEquals(1, UndefinedPolicyFiles.list(fs.getConf(), null, Set.of("RAM_SSD"), "/", new PrintStream(before, true, StandardCharsets.UTF_8), System.err));
      String retiring = before.toString(StandardCharsets.UTF_8);
      assertTrue(retiring, retiring.contains("dir   id 3  /wal\n"));
      assertTrue(retiring, retiring.contains("file  id 3  /wal/f\n"));
      assertEquals(retiring, 0, UndefinedPolicyFiles.list(fs.getConf(), null, Set.of(), "/",
        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), System.err));

      if (checkpoint) {
        fs.setSafeMode(org.apache.hadoop.fs.SafeModeAction.ENTER);
        fs.saveNamespace();
        fs.setSafeMode(org.apache.hadoop.fs.SafeModeAction.LEAVE);
      }
      // The NameNode restarts with a configuration that no longer defines RAM_SSD (id 3).
      Configuration nnConf = cluster.getConfiguration(0);
      nnConf.unset(OverlayKeys.STORAGE_POLICIES);
      cluster.restartNameNode(0, true);
      assertTrue("the start names the dropped policy: " + log.getOutput(), log.getOutput()
        .contains("Storage policy id 3 (RAM_SSD [NVDIMM, SSD]) was defined at the previous "
          + "start of this NameNode and is not now"));
      fs = cluster.getFileSystem();
      FSNamesystem ns = cluster.getNamesystem(0);
      GenericTestUtils.waitFor(() -> !ns.isInSafeMode(), 200, 60_000);
      // A DataNode that re-registers late makes the block look under-replicated for a moment;
      // the replication then scheduled must be over before a DataNode is stopped.
      // (That replication alone can already reach the monitor's null policy.)
      GenericTestUtils.waitFor(() -> ExitUtil.terminateCalled()
        || ns.getNumLiveDataNodes() == dns
        && ns.getBlockManager().getPendingReconstructionBlocksCount() == 0
        && ns.getBlockManager().getLowRedundancyBlocksCount() == 0, 200, 60_000);
      assertFalse("the NameNode terminated: " + terminated(), ExitUtil.terminateCalled());
      for (org.apache.hadoop.hdfs.protocol.BlockStoragePolicy p : fs.getStoragePolicies()) {
        assertFalse("RAM_SSD is no longer defined", p.getName().equals("RAM_SSD"));
      }

      // One DataNode holding the block stops: the block is under-replicated and the redundancy
      // monitor chooses a target by the file's policy.
      String victim = block.getLocations()[0].getXferAddr();
      org.apache.hadoop.hdfs.protocol.DatanodeID victimId = null;
      for (org.apache.hadoop.hdfs.server.datanode.DataNode dn : cluster.getDataNodes()) {
        if (dn.getDatanodeId().getXferAddr().equals(victim)) {
          victimId = dn.getDatanodeId();
        }
      }
      assertNotNull(victim, victimId);
      assertNotNull(victim, cluster.stopDataNode(victim));
      cluster.setDataNodeDead(victimId);

      // The block is re-replicated onto the fourth DataNode, placed by the default policy.
      try {
        GenericTestUtils.waitFor(() -> {
          try {
            return fs0(cluster).getClient().getLocatedBlocks(file.toString(), 0).get(0)
              .getLocations().length == 3 || ExitUtil.terminateCalled();
          } catch (java.io.IOException e) {
            return false;
          }
        }, 500, 120_000);
      } catch (java.util.concurrent.TimeoutException e) {
        fail("the block was not re-replicated; the redundancy monitor "
          + (monitorAlive() ? "runs" : "has died") + "; terminated: " + terminated());
      }
      assertFalse("the NameNode terminated: " + terminated(), ExitUtil.terminateCalled());
      // Several more monitor rounds (1 s interval): still up.
      Thread.sleep(5_000);
      assertFalse("the NameNode terminated: " + terminated(), ExitUtil.terminateCalled());
      assertTrue("the redundancy monitor is running", monitorAlive());
      assertTrue(cluster.getNameNode(0).isActiveState());
      assertTrue("lookups of id 3 resolved to the fallback",
        UndefinedStoragePolicies.resolvedCount() > 0);

      // The file reads back.
      byte[] back = new byte[LEN];
      try (FSDataInputStream in = fs.open(file)) {
        in.readFully(back);
      }
      assertArrayEquals(data, back);

      // A new file in the directory (which still carries id 3) can be written and read.
      Path second = new Path(dir, "g");
      try (FSDataOutputStream o = fs.create(second, (short) 3)) {
        o.write(data);
      }
      try (FSDataInputStream in = fs.open(second)) {
        in.readFully(back);
      }
      assertArrayEquals(data, back);
      for (StorageType t : fs.getClient().getLocatedBlocks(second.toString(), 0).get(0)
        .getStorageTypes()) {
        assertEquals("placed by the default policy (HOT)", StorageType.DISK, t);
      }

      // The error names the id and how to list its files; logged once, not once per lookup.
      String out = log.getOutput();
      assertTrue(out, out.contains("Storage policy id 3 (RAM_SSD [NVDIMM, SSD] at the "
        + "previous start) is not defined on this NameNode"));
      assertEquals(out, 1, count(out, "is not defined on this NameNode"));
      assertTrue(out, out.contains("strata undefined-policies"));

      // The tool lists the directory where the id is set and both files.
      ByteArrayOutputStream buf = new ByteArrayOutputStream();
      int rc = UndefinedPolicyFiles.list(fs.getConf(), null, Set.of(), "/",
        new PrintStream(buf, true, StandardCharsets.UTF_8), System.err);
      String listing = buf.toString(StandardCharsets.UTF_8);
      assertEquals(listing, 1, rc);
      assertTrue(listing, listing.contains("dir   id 3  /wal\n"));
      assertTrue(listing, listing.contains("file  id 3  /wal/f\n"));
      assertTrue(listing, listing.contains("file  id 3  /wal/g\n"));

      // Recovery: a built-in policy on the directory; the listing is then empty.
      fs.setStoragePolicy(dir, "HOT");
      fs.setStoragePolicy(file, "HOT");
      fs.setStoragePolicy(second, "HOT");
      buf.reset();
      assertEquals(buf.toString(StandardCharsets.UTF_8), 0, UndefinedPolicyFiles.list(
        fs.getConf(), null, Set.of(), "/", new PrintStream(buf, true, StandardCharsets.UTF_8),
        System.err));
    } finally {
      log.stopCapturing();
      // A termination has failed an assertion above with its cause; shutdown would replace
      // that failure with its own.
      ExitUtil.resetFirstExitException();
      cluster.shutdown(true);
    }
  }

  private static DistributedFileSystem fs0(MiniDFSCluster cluster) throws java.io.IOException {
    return cluster.getFileSystem(0);
  }

  private static String terminated() {
    ExitUtil.ExitException e = ExitUtil.getFirstExitException();
    if (e == null) {
      return "no";
    }
    java.io.StringWriter w = new java.io.StringWriter();
    e.printStackTrace(new java.io.PrintWriter(w));
    return w.toString();
  }

  private static boolean monitorAlive() {
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().contains("RedundancyMonitor") && t.isAlive()) {
        return true;
      }
    }
    return false;
  }

  private static int count(String s, String what) {
    int n = 0;
    for (int i = s.indexOf(what); i >= 0; i = s.indexOf(what, i + 1)) {
      n++;
    }
    return n;
  }
}
