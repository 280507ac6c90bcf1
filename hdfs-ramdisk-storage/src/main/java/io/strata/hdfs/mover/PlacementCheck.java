package io.strata.hdfs.mover;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.DFSClient;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.BlockStoragePolicy;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlocks;

/**
 * Whether a file's replicas are where its effective storage policy wants them: for every block,
 * the storage types of its replicas equal the policy's choice for the block's replication (as a
 * multiset). Two NameNode calls per file; no namespace scan.
 */
public final class PlacementCheck {
  private PlacementCheck() {
  }

  /** Where one file's blocks are, against its effective storage policy. */
  public static final class Placement {
    private final BlockStoragePolicy policy;
    private final List<LocatedBlock> misplaced;
    private final boolean underConstruction;
    private final int blocks;

    Placement(BlockStoragePolicy policy, List<LocatedBlock> misplaced, boolean underConstruction,
      int blocks) {
      this.policy = policy;
      this.misplaced = misplaced;
      this.underConstruction = underConstruction;
      this.blocks = blocks;
    }

    /** How many blocks the file has. */
    public int blocks() {
      return blocks;
    }

    public BlockStoragePolicy policy() {
      return policy;
    }

    /** The blocks whose replicas are not on the storage types the policy wants. */
    public List<LocatedBlock> misplaced() {
      return misplaced;
    }

    /** Still open for write: the satisfier leaves such files alone until they are closed. */
    public boolean underConstruction() {
      return underConstruction;
    }
  }

  /** Inspects {@code file}; {@link FileNotFoundException} if it does not exist. */
  public static Placement inspect(DistributedFileSystem dfs, Path file) throws IOException {
    DFSClient client = dfs.getClient();
    String src = Path.getPathWithoutSchemeAndAuthority(dfs.makeQualified(file)).toString();
    BlockStoragePolicy policy = client.getStoragePolicy(src);
    LocatedBlocks blocks = client.getLocatedBlocks(src, 0, Long.MAX_VALUE);
    if (blocks == null) {
      throw new FileNotFoundException(src);
    }
    List<LocatedBlock> misplaced = new ArrayList<>();
    for (LocatedBlock b : blocks.getLocatedBlocks()) {
      List<StorageType> want = new ArrayList<>(
        policy.chooseStorageTypes((short) b.getLocations().length));
      for (StorageType have : b.getStorageTypes()) {
        if (!want.remove(have)) {
          misplaced.add(b);
          break;
        }
      }
    }
    return new Placement(policy, misplaced, blocks.isUnderConstruction(),
      blocks.locatedBlockCount());
  }

  /** The blocks of {@code file} whose replicas are not where its policy wants them. */
  public static List<LocatedBlock> misplacedBlocks(DistributedFileSystem dfs, Path file)
    throws IOException {
    return inspect(dfs, file).misplaced();
  }

  public static boolean satisfied(DistributedFileSystem dfs, Path file) throws IOException {
    return misplacedBlocks(dfs, file).isEmpty();
  }

  /**
   * The files of {@code files} that are not yet where their policy wants them. A file that no
   * longer exists has nothing left to move and is not listed.
   */
  public static List<Path> unsatisfied(DistributedFileSystem dfs, Collection<Path> files)
    throws IOException {
    List<Path> pending = new ArrayList<>();
    for (Path p : files) {
      try {
        if (!satisfied(dfs, p)) {
          pending.add(p);
        }
      } catch (FileNotFoundException e) {
        // deleted or compacted away meanwhile
      }
    }
    return pending;
  }
}
