package io.strata.hdfs.overlay;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DFSTestUtil;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.Block;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.FsDatasetSpi;
import org.apache.hadoop.test.GenericTestUtils;
import org.apache.hadoop.test.GenericTestUtils.LogCapturer;
import org.junit.Test;
import org.mockito.Mockito;
import org.mockito.stubbing.Answer;
import org.slf4j.LoggerFactory;

/**
 * Patch 0002's block deletion against a move across storage, on a real DataNode with a DISK and
 * an SSD volume: the deletion of the block's DISK replica ({@code removeReplicaFromMem}, under
 * the DISK volume's lock only) is held between finding the replica and removing it, while
 * {@code moveBlockAcrossStorage} copies the block to SSD and maps the copy (under the SSD
 * volume's lock). The deletion must then leave the SSD replica mapped: the NameNode was told the
 * block is there, and the block must read back. Removing by block id and generation stamp, as
 * the patch first did, dropped the SSD replica from the DataNode's replica map.
 *
 * <p>The pause is a Mockito spy on the dataset's replica map (sharing the real map's sets),
 * holding the deleting thread after its lookup; nothing else in the DataNode is replaced.
 */
public class DeletionRacingMoveIT {
  private static final long WAIT_S = 30;

  @Test
  public void aDeletionOnTheOldVolumeLeavesTheMovedReplicaMapped() throws Exception {
    File base = new File("target/it-work/deletion-racing-move").getAbsoluteFile();
    Configuration conf = new HdfsConfiguration();
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, base.getAbsolutePath());
    conf.setInt(DFSConfigKeys.DFS_REPLICATION_KEY, 1);
    conf.setInt(DFSConfigKeys.DFS_HEARTBEAT_INTERVAL_KEY, 1);
    MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf, base).numDataNodes(1)
      .storagesPerDatanode(2)
      .storageTypes(new StorageType[][] { { StorageType.DISK, StorageType.SSD } }).build();
    ExecutorService pool = Executors.newSingleThreadExecutor();
    CountDownLatch paused = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    try {
      cluster.waitActive();
      DistributedFileSystem fs = cluster.getFileSystem();
      Path file = new Path("/moved");
      byte[] data = new byte[256 << 10];
      new Random(42).nextBytes(data);
      try (FSDataOutputStream out = fs.create(file, (short) 1)) {
        out.write(data);
      }
      ExtendedBlock block = DFSTestUtil.getFirstBlock(fs, file);
      String bpid = block.getBlockPoolId();
      DataNode dn = cluster.getDataNodes().get(0);
      FsDatasetSpi<?> ds = dn.getFSDataset();
      String from = ds.getClass().getProtectionDomain().getCodeSource().getLocation().getPath();
      assertFalse(ds.getClass().getName() + " must come from the overlay, not " + from,
        new File(from).getName().startsWith("hadoop-hdfs-"));
      assertEquals("the block starts on DISK (HOT)", StorageType.DISK,
        ds.getVolume(block).getStorageType());

      // Hold the deletion after its lookup: it has found the DISK replica and holds the DISK
      // volume's lock, but has not removed the replica from the map yet.
      pauseAfterLookup(ds, block.getBlockId(), paused, release);
      LogCapturer logs = LogCapturer.captureLogs(LoggerFactory.getLogger(ds.getClass()));
      ds.invalidate(bpid, new Block[] { block.getLocalBlock() });
      assertTrue("the asynchronous deletion did not reach removeReplicaFromMem",
        paused.await(WAIT_S, TimeUnit.SECONDS));

      // The move finishes meanwhile: the copy on SSD is finalized and mapped, and the DataNode
      // tells the NameNode the block is on SSD.
      Future<?> move = pool.submit(() -> ds.moveBlockAcrossStorage(block, StorageType.SSD,
        null));
      move.get(WAIT_S, TimeUnit.SECONDS);
      assertEquals("mapped on SSD after the move", StorageType.SSD,
        ds.getVolume(block).getStorageType());

      release.countDown();
      GenericTestUtils.waitFor(() -> ds.getPendingAsyncDeletions() == 0, 10,
        (int) TimeUnit.SECONDS.toMillis(WAIT_S));

      assertNotNull("the DataNode no longer maps " + block + " after the deletion on DISK",
        ds.getStoredBlock(bpid, block.getBlockId()));
      assertEquals(StorageType.SSD, ds.getVolume(block).getStorageType());
      assertTrue(block + " is a valid finalized replica with its files on SSD",
        ds.isValidBlock(block));
      assertTrue(logs.getOutput(), logs.getOutput().contains("Did not delete replica "
        + block.getLocalBlock() + " from volume "));
      GenericTestUtils.waitFor(() -> ssdOnNameNode(fs, file), 100,
        (int) TimeUnit.SECONDS.toMillis(WAIT_S));
      assertArrayEquals("the file reads back from the moved replica", data,
        DFSTestUtil.readFileAsBytes(fs, file));
    } finally {
      release.countDown();
      pool.shutdownNow();
      cluster.shutdown(true);
    }
  }

  /**
   * Replaces the dataset's replica map by a spy that, once, holds the thread of
   * {@code removeReplicaFromMem} right after it looked the block up, until {@code release}.
   */
  private static void pauseAfterLookup(FsDatasetSpi<?> ds, long blockId, CountDownLatch paused,
    CountDownLatch release) throws ReflectiveOperationException {
    AtomicBoolean armed = new AtomicBoolean(true);
    Field field = ds.getClass().getDeclaredField("volumeMap");
    field.setAccessible(true);
    Object real = field.get(ds);
    Answer<Object> answer = inv -> {
      Object result = inv.callRealMethod();
      if (inv.getMethod().getName().equals("get") && result != null
        && inv.getArgument(1) instanceof Block b && b.getBlockId() == blockId
        && calledFrom("removeReplicaFromMem") && armed.compareAndSet(true, false)) {
        paused.countDown();
        release.await(2 * WAIT_S, TimeUnit.SECONDS);
      }
      return result;
    };
    // The spy copies the real map's fields, so both share the block pools' replica sets.
    field.set(ds, Mockito.mock(real.getClass(),
      Mockito.withSettings().spiedInstance(real).defaultAnswer(answer)));
  }

  private static boolean calledFrom(String method) {
    return Arrays.stream(Thread.currentThread().getStackTrace())
      .anyMatch(e -> e.getMethodName().equals(method));
  }

  private static boolean ssdOnNameNode(DistributedFileSystem fs, Path file) {
    try {
      LocatedBlock b = fs.getClient().getLocatedBlocks(file.toString(), 0).get(0);
      return Arrays.equals(b.getStorageTypes(), new StorageType[] { StorageType.SSD });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
