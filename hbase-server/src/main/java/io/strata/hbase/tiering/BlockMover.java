package io.strata.hbase.tiering;

import java.io.FileNotFoundException;
import java.io.IOException;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives a file that HBase renamed into another tier's directory its policy and asks HDFS to move
 * its blocks there. HDFS keeps blocks where they are on a rename; the Storage Policy Satisfier
 * ({@code satisfyStoragePolicy}, mode {@code external}) moves exactly this file's blocks, in the
 * background, without a namespace scan.
 */
final class BlockMover {
  private static final Logger LOG = LoggerFactory.getLogger(BlockMover.class);

  private BlockMover() {
  }

  /**
   * Pins {@code policy} on {@code file} and, if {@code requestMove}, queues the move of its blocks
   * (otherwise a tier mover that follows renames moves them). Never throws: it runs on HBase's
   * archiving paths, where an exception would abort the RegionServer. A failure is logged; the
   * file stays readable where it is.
   */
  static boolean pinAndMove(FileSystem fs, Path file, String policy, String what,
    boolean requestMove) {
    try {
      fs.setStoragePolicy(file, policy);
    } catch (FileNotFoundException e) {
      LOG.debug("{} {} is gone (deleted rather than archived); nothing to move", what, file);
      return false;
    } catch (IOException | RuntimeException e) {
      LOG.warn("Could not set storage policy {} on {} {}: {}; its blocks stay where they are",
        policy, what, file, e.toString());
      return false;
    }
    if (!requestMove) {
      return true;
    }
    try {
      fs.satisfyStoragePolicy(file);
      LOG.debug("Queued the move of {} {} to {}", what, file, policy);
      return true;
    } catch (IOException | RuntimeException e) {
      LOG.warn("Set storage policy {} on {} {} but could not queue the move of its blocks ({}); "
        + "is dfs.storage.policy.satisfier.mode=external with an SPS running? Run "
        + "'strata mover -p {}' to move them", policy, what, file, e.toString(), file);
      return false;
    }
  }
}
