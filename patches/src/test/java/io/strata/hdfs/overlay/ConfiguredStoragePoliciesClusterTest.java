package io.strata.hdfs.overlay;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.BlockStoragePolicy;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.tools.StoragePolicyAdmin;
import org.apache.hadoop.util.ToolRunner;
import org.junit.Test;

/**
 * A real NameNode with a configured policy: clients and {@code hdfs storagepolicies} see it, and
 * a file under it lands on its storage types; an invalid definition stops the NameNode.
 */
public class ConfiguredStoragePoliciesClusterTest {

  private static File base(String name) {
    return new File("target/test-dfs/" + name + "-" + System.nanoTime());
  }

  @Test
  public void aFileUnderAConfiguredPolicyLandsOnItsTypes() throws Exception {
    Configuration conf = new HdfsConfiguration();
    ConfiguredStoragePoliciesTest.ramSsd().forEach(e -> conf.set(e.getKey(), e.getValue()));
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, base("ram-ssd").getAbsolutePath());
    StorageType[][] types = new StorageType[3][];
    for (int i = 0; i < 3; i++) {
      types[i] = new StorageType[] { StorageType.NVDIMM, StorageType.SSD, StorageType.DISK };
    }
    MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf).numDataNodes(3)
      .storagesPerDatanode(3).storageTypes(types).build();
    try {
      cluster.waitActive();
      DistributedFileSystem fs = cluster.getFileSystem();
      boolean listed = false;
      for (BlockStoragePolicy p : fs.getStoragePolicies()) {
        listed |= p.getName().equals("RAM_SSD") && p.getId() == 3;
      }
      assertTrue("clients get RAM_SSD from the NameNode", listed);

      ByteArrayOutputStream buf = new ByteArrayOutputStream();
      PrintStream out = System.out;
      System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
      try {
        assertEquals(0, ToolRunner.run(conf, new StoragePolicyAdmin(conf),
          new String[] { "-listPolicies" }));
      } finally {
        System.setOut(out);
      }
      assertTrue(buf.toString(), buf.toString().contains("RAM_SSD"));

      Path dir = new Path("/wal");
      fs.mkdirs(dir);
      fs.setStoragePolicy(dir, "RAM_SSD");
      Path file = new Path(dir, "f");
      try (FSDataOutputStream o = fs.create(file, (short) 3)) {
        o.write(new byte[1 << 20]);
      }
      assertEquals("RAM_SSD", fs.getStoragePolicy(file).getName());
      for (LocatedBlock b : fs.getClient().getLocatedBlocks(file.toString(), 0)
        .getLocatedBlocks()) {
        List<StorageType> have = new ArrayList<>(List.of(b.getStorageTypes()));
        Collections.sort(have);
        assertEquals(b.getBlock().toString(), List.of(StorageType.SSD, StorageType.SSD,
          StorageType.NVDIMM).stream().sorted().toList(), have);
      }
    } finally {
      cluster.shutdown(true);
    }
  }

  @Test
  public void anInvalidDefinitionStopsTheNameNode() throws Exception {
    Configuration conf = new HdfsConfiguration();
    ConfiguredStoragePoliciesTest.ramSsd().forEach(e -> conf.set(e.getKey(), e.getValue()));
    conf.set("strata.storage.policy.RAM_SSD.id", "7");
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, base("bad").getAbsolutePath());
    try {
      MiniDFSCluster c = new MiniDFSCluster.Builder(conf).numDataNodes(0).build();
      c.shutdown(true);
      fail("the NameNode started with a policy on HOT's id");
    } catch (IllegalArgumentException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("strata.storage.policy.RAM_SSD.id: 7 is "
        + "the id of HOT"));
    }
  }
}
