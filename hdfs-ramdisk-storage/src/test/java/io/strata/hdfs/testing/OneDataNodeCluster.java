package io.strata.hdfs.testing;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntConsumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.VolumeChoosingPolicy;

/**
 * A MiniDFSCluster with one DataNode of several DISK volumes, small blocks and replication 1, to
 * watch a volume choosing policy's decisions block by block; and the sustained writes that feed
 * it. Shared by the chooser's tests and {@code strata bench chooser}.
 */
public final class OneDataNodeCluster {
  private OneDataNodeCluster() {
  }

  /** The cluster's configuration; callers may add to it before {@link #start}. */
  public static Configuration conf(File base, Class<?> policy, long blockBytes) {
    Configuration conf = new HdfsConfiguration();
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, base.getAbsolutePath());
    conf.setLong(DFSConfigKeys.DFS_BLOCK_SIZE_KEY, blockBytes);
    conf.setLong(DFSConfigKeys.DFS_NAMENODE_MIN_BLOCK_SIZE_KEY, 64 << 10);
    conf.setInt(DFSConfigKeys.DFS_REPLICATION_KEY, 1);
    conf.setInt(DFSConfigKeys.DFS_HEARTBEAT_INTERVAL_KEY, 1);
    conf.setClass(DFSConfigKeys.DFS_DATANODE_FSDATASET_VOLUME_CHOOSING_POLICY_KEY, policy,
      VolumeChoosingPolicy.class);
    return conf;
  }

  /**
   * Starts the cluster with one DISK volume per entry of {@code capacities} (bytes; 0 or less:
   * the file system's space) and waits until it is up.
   */
  public static MiniDFSCluster start(Configuration conf, File base, long[] capacities)
    throws IOException {
    long[] caps = new long[capacities.length];
    for (int i = 0; i < caps.length; i++) {
      caps[i] = capacities[i] > 0 ? capacities[i] : -1;
    }
    return up(new MiniDFSCluster.Builder(conf, base).numDataNodes(1)
      .storagesPerDatanode(capacities.length).storageCapacities(caps));
  }

  /**
   * Starts the cluster with one volume per {@code dfs.datanode.data.dir} entry, e.g. {@code
   * [DISK]/data/disk} and {@code [NVDIMM]/dev/shm/ram}, and waits until it is up.
   */
  public static MiniDFSCluster start(Configuration conf, File base, List<String> dataDirEntries)
    throws IOException {
    Configuration dataDirs = new Configuration(false);
    dataDirs.set(DFSConfigKeys.DFS_DATANODE_DATA_DIR_KEY, String.join(",", dataDirEntries));
    return up(new MiniDFSCluster.Builder(conf, base).numDataNodes(1)
      .storagesPerDatanode(dataDirEntries.size()).manageDataDfsDirs(false)
      .dataNodeConfOverlays(new Configuration[] { dataDirs }));
  }

  private static MiniDFSCluster up(MiniDFSCluster.Builder builder) throws IOException {
    MiniDFSCluster cluster = builder.build();
    try {
      cluster.waitActive();
    } catch (IOException | RuntimeException e) {
      cluster.shutdown(true);
      throw e;
    }
    return cluster;
  }

  /**
   * Writes {@code files} files of {@code fileBytes} bytes in {@code blockBytes} blocks under
   * {@code dir}, {@code writers} at a time; {@code done} (may be null) hears the number of files
   * finished after each one.
   */
  public static List<Path> write(DistributedFileSystem fs, String dir, int files, long fileBytes,
    long blockBytes, int writers, IntConsumer done) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    try {
      List<Future<Path>> pending = new ArrayList<>();
      for (int i = 0; i < files; i++) {
        Path p = new Path(dir, String.format(Locale.ROOT, "f%05d", i));
        pending.add(pool.submit(() -> {
          byte[] chunk = new byte[64 << 10];
          try (FSDataOutputStream out = fs.create(p, true, chunk.length, (short) 1,
            blockBytes)) {
            for (long n = 0; n < fileBytes; n += chunk.length) {
              out.write(chunk, 0, (int) Math.min(chunk.length, fileBytes - n));
            }
          }
          return p;
        }));
      }
      List<Path> written = new ArrayList<>();
      for (Future<Path> f : pending) {
        written.add(f.get());
        if (done != null) {
          done.accept(written.size());
        }
      }
      return written;
    } finally {
      pool.shutdownNow();
    }
  }
}
