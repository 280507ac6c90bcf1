package io.strata.hbase.tiering;

import io.strata.compat.VersionCheck;
import java.io.IOException;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.CoprocessorEnvironment;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.coprocessor.WALCoprocessor;
import org.apache.hadoop.hbase.coprocessor.WALCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.WALObserver;
import org.apache.hadoop.hbase.regionserver.wal.WALActionsListener;
import org.apache.hadoop.hbase.util.CommonFSUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves rolled WALs off the WAL tier. Upstream HBase renames a rolled WAL into {@code oldWALs/}
 * and its blocks stay on the WAL's tier, filling the scarcest storage with data only replication
 * and backups read. Loaded with {@code hbase.coprocessor.wal.classes}, it gives each archived WAL
 * the {@value TieringKeys#OLDWAL_POLICY} policy and asks HDFS to move its blocks.
 */
public class OldWalTiering implements WALCoprocessor {
  private static final Logger LOG = LoggerFactory.getLogger(OldWalTiering.class);

  @Override
  public void start(CoprocessorEnvironment env) throws IOException {
    if (!(env instanceof WALCoprocessorEnvironment)) {
      throw new IOException(getClass().getName() + " is a WAL coprocessor: load it with "
        + "hbase.coprocessor.wal.classes");
    }
    Configuration conf = env.getConfiguration();
    VersionCheck.hbasePlugin("OldWalTiering (WAL coprocessor)", TieringKeys.versionCheck(conf));
    String policy = TierPolicies.from(conf).oldWal();
    boolean requestMoves = TieringKeys.requestMoves(conf);
    Path oldWals = new Path(CommonFSUtils.getWALRootDir(conf), HConstants.HREGION_OLDLOGDIR_NAME);
    try {
      TierPolicies.offeredPolicies(oldWals.getFileSystem(conf));
    } catch (UnsupportedOperationException e) {
      // A file system without storage policies (a file:// root): nothing to place, as upstream.
      LOG.info("Rolled WAL placement off: {} has no storage policies ({})", oldWals,
        e.getMessage());
      return;
    } catch (IOException e) {
      // Each archived WAL is pinned when it is archived; a NameNode that does not answer now
      // only means the directory's policy below may not be set.
      LOG.warn("Could not list the storage policies of {} ({}); rolled WALs will still be "
        + "pinned as they are archived", oldWals, e.toString());
    }
    ((WALCoprocessorEnvironment) env).getWAL().registerWALActionsListener(
      new WALActionsListener() {
        @Override
        public void postLogArchive(Path oldPath, Path newPath) {
          FileSystem fs;
          try {
            fs = newPath.getFileSystem(conf);
          } catch (IOException e) {
            LOG.warn("No file system for archived WAL {}: {}", newPath, e.toString());
            return;
          }
          if (BlockMover.pinAndMove(fs, newPath, policy, "archived WAL", requestMoves)) {
            long bytes = 0;
            try {
              bytes = fs.getFileStatus(newPath).getLen();
            } catch (IOException e) {
              LOG.debug("Archived WAL {} is gone already: {}", newPath, e.toString());
            }
            TieringMetrics.placed("oldwal", policy, bytes);
          }
        }
      });
    // WALs that WAL splitting moves to oldWALs/ pass no listener: give them the policy by
    // directory, so that 'strata migrate' or the mover can move their blocks.
    try {
      FileSystem fs = oldWals.getFileSystem(conf);
      fs.mkdirs(oldWals);
      fs.setStoragePolicy(oldWals, policy);
    } catch (IOException | RuntimeException e) {
      LOG.warn("Could not set storage policy {} on {}: {}", policy, oldWals, e.toString());
    }
    LOG.info("Rolled WALs will move to storage policy {}", policy);
  }

  @Override
  public Optional<WALObserver> getWALObserver() {
    return Optional.empty();
  }
}
