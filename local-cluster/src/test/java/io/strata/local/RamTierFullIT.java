package io.strata.local;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.EnumMap;
import java.util.Map;
import java.util.Random;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.junit.Test;

/**
 * HDFS only: an ALL_NVDIMM file written past the RAM tier's capacity. The policy's creation
 * fallback is DISK, so the blocks that no longer fit go to DISK; the write never fails and every
 * byte reads back. The NameNode sees a volume's free space one heartbeat late; it keeps
 * {@code dfs.namenode.block-placement.min-blocks-for.write} blocks of headroom per storage type,
 * which must exceed the blocks a DataNode's RAM tier takes in within a heartbeat, else a DataNode
 * refuses a block the NameNode thought fitted and, once every DataNode is refused, the write
 * fails (upstream's default headroom is 1 block).
 */
public class RamTierFullIT {

  @Test
  public void allNvdimmFileFallsBackToDiskWhenTheRamTierIsFull() throws Exception {
    int blockSize = 1 << 20;
    try (TieredDfsCluster c = TieredDfsCluster.start(TestClusters.small("ram-full")
      .ramBytesPerDataNode(8L << 20).blockSizeBytes(blockSize).startTierMover(false)
      .dfs(DFSConfigKeys.DFS_NAMENODE_BLOCKPLACEMENTPOLICY_MIN_BLOCKS_FOR_WRITE_KEY, "4"))) {
      DistributedFileSystem fs = c.fileSystem();
      Path dir = new Path("/wal");
      fs.mkdirs(dir);
      fs.setStoragePolicy(dir, "ALL_NVDIMM");
      Path file = new Path(dir, "log");
      byte[] data = new byte[40 * blockSize];
      new Random(42).nextBytes(data);
      // Written like a WAL: small appends, each made visible with hflush, at about 2 MiB/s (two
      // blocks per heartbeat, within the headroom).
      try (FSDataOutputStream out = fs.create(file, (short) 3)) {
        for (int off = 0; off < data.length; off += 64 << 10) {
          out.write(data, off, 64 << 10);
          out.hflush();
          Thread.sleep(30);
        }
      }
      Map<StorageType, Integer> replicas = new EnumMap<>(StorageType.class);
      for (LocatedBlock b : fs.getClient().getLocatedBlocks(file.toString(), 0, Long.MAX_VALUE)
        .getLocatedBlocks()) {
        assertEquals(b.getBlock() + " replicas", 3, b.getStorageTypes().length);
        for (StorageType t : b.getStorageTypes()) {
          replicas.merge(t, 1, Integer::sum);
        }
      }
      System.out.println("ALL_NVDIMM file of 40 blocks on an 8 MiB-per-DataNode RAM tier: "
        + replicas);
      assertTrue(replicas.toString(), replicas.getOrDefault(StorageType.NVDIMM, 0) > 0);
      assertTrue(replicas.toString(), replicas.getOrDefault(StorageType.DISK, 0) > 0);
      assertEquals(replicas.toString(), 120, replicas.getOrDefault(StorageType.NVDIMM, 0)
        + replicas.getOrDefault(StorageType.DISK, 0));
      byte[] back = new byte[data.length];
      try (FSDataInputStream in = fs.open(file)) {
        in.readFully(0, back);
      }
      assertArrayEquals(data, back);
    }
  }
}
