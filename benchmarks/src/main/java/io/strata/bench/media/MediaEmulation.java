package io.strata.bench.media;

import io.strata.hdfs.testing.SlowVolumes;
import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.FsDatasetSpi;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.FsVolumeSpi;

/**
 * Turns the volumes of in-process DataNodes into emulated media: every volume gets the delay per
 * I/O operation and the bandwidth cap of the {@link Medium} its storage type stands for, through
 * the DataNode's {@code FileIoProvider} fault-injection hook ({@link SlowVolumes}). The same hook
 * counts the bytes each volume takes in, summed here per storage type.
 *
 * <p>A DataNode's SSD volumes can also share a controller's bandwidth ({@link #controllerCap}),
 * as the storage-media paper's eight SSDs shared two SATA controllers: each volume keeps its own
 * rate, and all of them together get at most the controller's.
 *
 * <p>Not thread-safe to configure: install, set the cap and close from one thread, between loads;
 * the DataNodes' I/O threads go through the thread-safe hooks meanwhile.
 */
public final class MediaEmulation implements AutoCloseable {
  private final List<SlowVolumes> hooks = new ArrayList<>();
  /** Whether any volume was given a delay or cap: what the result's emulation label says. */
  private boolean slowsAny;
  /** Storage ID to storage type, per hook. */
  private final List<Map<String, StorageType>> volumes = new ArrayList<>();

  private MediaEmulation() {
  }

  /** Installs the emulation on every DataNode of the cluster. */
  public static MediaEmulation install(MiniDFSCluster cluster) throws IOException {
    MediaEmulation e = new MediaEmulation();
    try {
      for (DataNode dn : cluster.getDataNodes()) {
        Map<String, StorageType> types = new LinkedHashMap<>();
        try (FsDatasetSpi.FsVolumeReferences refs = dn.getFSDataset().getFsVolumeReferences()) {
          for (FsVolumeSpi v : refs) {
            types.put(v.getStorageID(), v.getStorageType());
          }
        }
        SlowVolumes hook = SlowVolumes.install(dn);
        e.hooks.add(hook);
        e.volumes.add(types);
        types.forEach((id, type) -> {
          Medium m = Medium.of(type);
          if (m.emulated()) {
            hook.slow(id, m.perOperation(), m.bytesPerSecond());
            e.slowsAny = true;
          }
        });
      }
      return e;
    } catch (IOException | RuntimeException ex) {
      e.close();
      throw ex;
    }
  }

  /**
   * Caps the bandwidth all SSD volumes of each DataNode share at {@code bytesPerSecond}, one
   * controller per DataNode (0: no cap; each volume keeps its own {@link Medium#SSD} rate). Takes
   * effect for the transfers that start from now on.
   */
  public void controllerCap(long bytesPerSecond) {
    if (bytesPerSecond < 0) {
      throw new IllegalArgumentException("negative controller bandwidth: " + bytesPerSecond);
    }
    for (int i = 0; i < hooks.size(); i++) {
      SlowVolumes hook = hooks.get(i);
      hook.clearSharedBandwidth();
      if (bytesPerSecond > 0) {
        hook.shareBandwidth(ssdVolumes(i), bytesPerSecond);
      }
    }
  }

  /** The SSD volumes of each DataNode: the fewest any DataNode has, and the most. */
  public int[] ssdVolumesPerDataNode() {
    int min = Integer.MAX_VALUE;
    int max = 0;
    for (int i = 0; i < volumes.size(); i++) {
      int n = ssdVolumes(i).size();
      min = Math.min(min, n);
      max = Math.max(max, n);
    }
    return new int[] { volumes.isEmpty() ? 0 : min, max };
  }

  /** Storage IDs of the SSD volumes of the {@code i}-th DataNode. */
  private List<String> ssdVolumes(int i) {
    List<String> ids = new ArrayList<>();
    volumes.get(i).forEach((id, type) -> {
      if (Medium.of(type) == Medium.SSD) {
        ids.add(id);
      }
    });
    return ids;
  }

  /** Bytes written so far to the volumes of each storage type, over all DataNodes. */
  public Map<StorageType, Long> bytesWritten() {
    Map<StorageType, Long> sums = new EnumMap<>(StorageType.class);
    for (int i = 0; i < hooks.size(); i++) {
      SlowVolumes hook = hooks.get(i);
      volumes.get(i).forEach((id, type) -> sums.merge(type, hook.bytesWritten(id), Long::sum));
    }
    return sums;
  }

  /** {@code after - before}, per storage type present in {@code after}. */
  public static Map<StorageType, Long> difference(Map<StorageType, Long> after,
    Map<StorageType, Long> before) {
    Map<StorageType, Long> d = new EnumMap<>(StorageType.class);
    after.forEach((t, n) -> d.put(t, n - before.getOrDefault(t, 0L)));
    return d;
  }

  /** Whether any volume got the delay and cap of an emulated medium. */
  public boolean slowsAny() {
    return slowsAny;
  }

  @Override
  public void close() {
    hooks.forEach(SlowVolumes::uninstall);
    hooks.clear();
  }
}
