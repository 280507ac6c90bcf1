package io.strata.hdfs.sps;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.protocol.BlockStoragePolicy;
import org.apache.hadoop.hdfs.protocol.HdfsLocatedFileStatus;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.server.protocol.DatanodeStorageReport;
import org.apache.hadoop.hdfs.server.protocol.StorageReport;

/**
 * Why a file the satisfier holds is not on its tier, in words an operator can act on: the
 * reasons upstream's satisfier keeps to its debug log while it retries a file forever (blocks
 * with fewer replicas than the file's replication, which it skips until the NameNode has
 * re-replicated them; a storage type the policy wants on which no live DataNode has room for a
 * block). Pure functions of what the NameNode reports; thread-safe.
 */
final class StallDiagnosis {
  private StallDiagnosis() {
  }

  /** The largest free space per storage type over the live DataNodes' volumes. */
  static Map<StorageType, Long> mostFree(DatanodeStorageReport[] live) {
    Map<StorageType, Long> free = new EnumMap<>(StorageType.class);
    for (DatanodeStorageReport dn : live) {
      for (StorageReport r : dn.getStorageReports()) {
        free.merge(r.getStorage().getStorageType(), r.getRemaining(), Math::max);
      }
    }
    return free;
  }

  /**
   * One line for a file: its name, policy, and each reason found, or that its blocks are where
   * the policy wants them (then the satisfier only has not noticed).
   */
  static String explain(long inodeId, HdfsLocatedFileStatus file, BlockStoragePolicy policy,
    Map<StorageType, Long> mostFree) {
    if (file == null) {
      return "inode " + inodeId + ": deleted";
    }
    // Looked up by inode id, the NameNode gives no name; the id finds the file:
    // hdfs dfs -stat /.reserved/.inodes/ID
    String name = file.getLocalName().isEmpty() ? "inode " + inodeId
      : "inode " + inodeId + " (" + file.getLocalName() + ")";
    if (policy == null) {
      return name + ": storage policy id " + file.getStoragePolicy() + " unknown to the satisfier";
    }
    short replication = file.getReplication();
    List<StorageType> wanted = policy.chooseStorageTypes(replication);
    List<String> reasons = new ArrayList<>();
    int lowRedundancy = 0;
    int misplaced = 0;
    long blockSize = file.getBlockSize();
    for (LocatedBlock b : file.getLocatedBlocks().getLocatedBlocks()) {
      if (b.getLocations().length < replication) {
        lowRedundancy++;
        if (lowRedundancy == 1) {
          reasons.add("block " + b.getBlock().getBlockName() + " has " + b.getLocations().length
            + " of " + replication + " replicas (the satisfier skips it until the NameNode has "
            + "re-replicated it)");
        }
      }
      List<StorageType> missing = new ArrayList<>(wanted);
      for (StorageType t : b.getStorageTypes()) {
        missing.remove(t);
      }
      if (!missing.isEmpty()) {
        misplaced++;
        blockSize = Math.max(blockSize, b.getBlockSize());
      }
    }
    if (lowRedundancy > 1) {
      reasons.add(lowRedundancy + " blocks with too few replicas in all");
    }
    if (misplaced > 0) {
      reasons.add(misplaced + " block(s) not yet on " + wanted + " (policy " + policy.getName()
        + ")");
      for (StorageType t : new java.util.LinkedHashSet<>(wanted)) {
        long free = mostFree.getOrDefault(t, -1L);
        if (free < 0) {
          reasons.add("no live DataNode has a " + t + " volume");
        } else if (free < blockSize) {
          reasons.add("no live DataNode has room on " + t + " for a block of " + blockSize
            + " bytes (most free: " + free + " bytes)");
        }
      }
    }
    if (reasons.isEmpty()) {
      return name + ": on its tier (" + policy.getName() + ") as the NameNode reports it";
    }
    return name + ": " + String.join("; ", reasons);
  }
}
