package io.strata.bench.dnlocks;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import io.strata.hdfs.testing.OneDataNodeCluster;
import io.strata.hdfs.testing.SlowVolumes;
import java.io.File;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.Block;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.datanode.ReplicaHandler;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.FsDatasetSpi;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.FsVolumeSpi;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.RoundRobinVolumeChoosingPolicy;
import org.junit.Test;

/**
 * What patches/hdfs/0002 changes, on a real DataNode: while a DISK volume's createRbw is stalled
 * in its I/O (holding its locks), a transfer into the SSD volume (createTemporary), a deletion
 * on it (the asynchronous removal from the replica map) and a createRbw, write and finalizeBlock
 * on it all complete within {@value #BOUND_MS} ms. Upstream 3.4.2 makes each of them wait until
 * the DISK operation ends (createTemporary's and the deletion's block-pool write lock queue
 * behind it, and every other volume operation queues behind them).
 */
public class DataNodeVolumeLocksIT {
  private static final long DELAY_MS = 3000;
  private static final long BOUND_MS = 1000;
  private static final long GS = 1001;
  private static final byte[] DATA = new byte[64 << 10];

  @Test
  public void fastVolumeNeverWaitsForTheSlowVolume() throws Exception {
    String from = DnLocksWorkload.datasetSource().getPath();
    assertTrue("FsDatasetImpl must come from the overlay, not " + from,
      DnLocksWorkload.isPatched(from));
    File base = new File("target/it-work/dn-volume-locks").getAbsoluteFile();
    FileUtil.fullyDelete(base);
    Configuration conf = OneDataNodeCluster.conf(base, RoundRobinVolumeChoosingPolicy.class,
      1 << 20);
    MiniDFSCluster cluster = OneDataNodeCluster.start(conf, base, List.of(
      "[DISK]" + new File(base, "disk"), "[SSD]" + new File(base, "ssd")));
    ExecutorService pool = Executors.newCachedThreadPool();
    try (SlowVolumes slow = SlowVolumes.install(cluster.getDataNodes().get(0))) {
      DataNode dn = cluster.getDataNodes().get(0);
      FsDatasetSpi<?> ds = dn.getFSDataset();
      String bpid = cluster.getNamesystem().getBlockPoolId();
      String diskId = storageId(ds, StorageType.DISK);
      String ssdId = storageId(ds, StorageType.SSD);
      long id = 1L << 40;
      ExtendedBlock old = new ExtendedBlock(bpid, id++, 0, GS);
      writeAndFinalize(ds, old, ssdId);
      assertTrue(ds.contains(old));

      slow.slow(diskId, Duration.ofMillis(DELAY_MS));
      ExtendedBlock slowBlock = new ExtendedBlock(bpid, id++, 0, GS);
      Future<ReplicaHandler> slowCreate =
        pool.submit(() -> ds.createRbw(StorageType.DISK, diskId, slowBlock, false));
      // In its first delayed I/O the DISK createRbw holds the block pool's read lock and the
      // DISK volume's write lock; it stays there for two delays (exists check, file creation).
      waitUntil(() -> slow.delayedOps(diskId) > 0, 10_000, "the DISK createRbw to reach its I/O");

      ExtendedBlock transferred = new ExtendedBlock(bpid, id++, 0, GS);
      Future<ReplicaHandler> transfer =
        pool.submit(() -> ds.createTemporary(StorageType.SSD, ssdId, transferred, true));
      Thread.sleep(100);
      long t0 = System.nanoTime();
      ds.invalidate(bpid, new Block[] { old.getLocalBlock() });
      ExtendedBlock fresh = new ExtendedBlock(bpid, id++, 0, GS);
      writeAndFinalize(ds, fresh, ssdId);
      long freshMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
      try (ReplicaHandler h = transfer.get(BOUND_MS, TimeUnit.MILLISECONDS)) {
        Replicas.write(h.getReplica(), DATA);
        transferred.setNumBytes(DATA.length);
        ds.finalizeBlock(transferred, false);
      }
      waitUntil(() -> !ds.contains(old), BOUND_MS, "the deleted SSD replica to leave the map");
      long allMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
      assertTrue("SSD createRbw+finalizeBlock took " + freshMs + " ms", freshMs < BOUND_MS);
      assertTrue("SSD operations took " + allMs + " ms", allMs < BOUND_MS);
      assertFalse("the DISK createRbw ended before the SSD operations did; nothing was shown",
        slowCreate.isDone());

      // The stalled operation completes normally, and every replica is where it belongs.
      slow.clearAll();
      try (ReplicaHandler h = slowCreate.get(30, TimeUnit.SECONDS)) {
        Replicas.write(h.getReplica(), DATA);
        slowBlock.setNumBytes(DATA.length);
        ds.finalizeBlock(slowBlock, false);
      }
      for (ExtendedBlock b : List.of(fresh, transferred, slowBlock)) {
        assertTrue(b + " finalized, with its file", ds.isValidBlock(b));
        assertEquals(b.toString(), DATA.length, ds.getLength(b));
      }
      assertEquals(diskId, ds.getVolume(slowBlock).getStorageID());
      assertEquals(ssdId, ds.getVolume(fresh).getStorageID());
      assertEquals(ssdId, ds.getVolume(transferred).getStorageID());
    } finally {
      pool.shutdownNow();
      cluster.shutdown(true);
    }
  }

  private static void writeAndFinalize(FsDatasetSpi<?> ds, ExtendedBlock b, String storageId)
    throws IOException {
    try (ReplicaHandler h = ds.createRbw(StorageType.SSD, storageId, b, false)) {
      Replicas.write(h.getReplica(), DATA);
      b.setNumBytes(DATA.length);
      ds.finalizeBlock(b, false);
    }
  }

  private static String storageId(FsDatasetSpi<?> ds, StorageType type) throws IOException {
    try (FsDatasetSpi.FsVolumeReferences refs = ds.getFsVolumeReferences()) {
      for (FsVolumeSpi v : refs) {
        if (v.getStorageType() == type) {
          return v.getStorageID();
        }
      }
    }
    throw new AssertionError("no " + type + " volume");
  }

  private static void waitUntil(BooleanSupplier condition, long timeoutMs, String what)
    throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out after " + timeoutMs + " ms waiting for " + what);
      }
      Thread.sleep(5);
    }
  }
}
