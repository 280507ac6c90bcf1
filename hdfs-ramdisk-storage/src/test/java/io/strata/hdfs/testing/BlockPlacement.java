package io.strata.hdfs.testing;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.FsDatasetSpi;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.FsVolumeSpi;

/** Where a DataNode keeps the blocks of given files, per volume, as its dataset says. */
public final class BlockPlacement {
  private BlockPlacement() {
  }

  /** The DataNode's volumes' storage IDs, in the DataNode's order. */
  public static List<String> storageIds(DataNode dn) throws IOException {
    List<String> ids = new ArrayList<>();
    try (FsDatasetSpi.FsVolumeReferences refs = dn.getFSDataset().getFsVolumeReferences()) {
      for (FsVolumeSpi v : refs) {
        ids.add(v.getStorageID());
      }
    }
    return ids;
  }

  /**
   * Replicas of the files' blocks on each of the DataNode's volumes, keyed by storage ID (every
   * volume present, in the DataNode's order, with 0 when it holds none).
   */
  public static Map<String, Long> blocksPerVolume(DataNode dn, DistributedFileSystem fs,
    Collection<Path> files) throws IOException {
    Map<String, Long> counts = new LinkedHashMap<>();
    for (String id : storageIds(dn)) {
      counts.put(id, 0L);
    }
    for (Path file : files) {
      List<LocatedBlock> blocks = fs.getClient().getLocatedBlocks(file.toUri().getPath(), 0,
        Long.MAX_VALUE).getLocatedBlocks();
      for (LocatedBlock b : blocks) {
        FsVolumeSpi volume = dn.getFSDataset().getVolume(b.getBlock());
        if (volume != null) {
          counts.merge(volume.getStorageID(), 1L, Long::sum);
        }
      }
    }
    return counts;
  }
}
