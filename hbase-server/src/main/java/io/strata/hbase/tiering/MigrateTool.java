package io.strata.hbase.tiering;

import io.strata.hbase.placement.FileKind;
import io.strata.hbase.placement.PlacedFile;
import io.strata.hbase.placement.PlacementScanner;
import io.strata.hdfs.mover.FileMover;
import io.strata.hdfs.mover.PlacementCheck;
import io.strata.hdfs.sps.SatisfierMarks;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.regionserver.StoreUtils;
import org.apache.hadoop.hbase.util.CommonFSUtils;
import org.apache.hadoop.hdfs.DistributedFileSystem;

/**
 * {@code strata migrate}: moves a table's existing HFiles to their kind's current policy, after
 * an {@code alter} changed it (new files follow the new policy on their own). Flushed files go
 * to the flush policy, compacted files to the small or large compaction policy by their length,
 * archived files to the archive policy, each policy chosen as the store engine chooses it
 * ({@link TierPolicies}; where upstream's per-family policy wins, that policy); a store file the
 * family's age rule covers to the aged policy, a date-tiered compaction output with upstream's
 * window policies to its window's policy. Only the table's
 * own directories are listed; each file that is not where its policy wants it is moved by the
 * Storage Policy Satisfier. Its options are parsed by the tools module's {@code MigrateCommand}.
 */
public final class MigrateTool {
  private MigrateTool() {
  }

  /**
   * Moves the HFiles of {@code tableName} (or of its {@code family}) to their kind's current
   * policy; returns the exit code: 0 placed (or queued, with {@code noWait}), 1 not placed within
   * the timeout, 2 bad input.
   *
   * @param family   only this column family, or null for all
   * @param zk       the ZooKeeper quorum as HOST[:PORT], or null for the configuration's
   * @param root     the HBase root directory URI, or null for {@code hbase.rootdir}
   * @param timeoutS seconds to wait for the blocks to move
   * @param noWait   queue the moves and return
   */
  public static int migrate(Configuration base, String tableName, String family, String zk,
    String root, long timeoutS, boolean noWait, PrintStream out) throws Exception {
    Configuration conf = new Configuration(base);
    if (zk != null) {
      String[] hp = zk.split(":");
      conf.set(HConstants.ZOOKEEPER_QUORUM, hp[0]);
      if (hp.length > 1) {
        conf.set(HConstants.ZOOKEEPER_CLIENT_PORT, hp[1]);
      }
    }
    if (root != null) {
      conf.set(HConstants.HBASE_DIR, root);
    }
    long timeoutMs = timeoutS * 1000;
    TableName table = TableName.valueOf(tableName);
    Path rootDir = CommonFSUtils.getRootDir(conf);
    FileSystem fs = rootDir.getFileSystem(conf);
    if (!(fs instanceof DistributedFileSystem)) {
      System.err.println("strata migrate: " + rootDir + " is not on HDFS");
      return 2;
    }
    DistributedFileSystem dfs = (DistributedFileSystem) fs;

    TableDescriptor td;
    try (Connection c = ConnectionFactory.createConnection(conf); Admin admin = c.getAdmin()) {
      td = admin.getDescriptor(table);
    }
    Map<String, TierPolicies> policies = new HashMap<>();
    for (ColumnFamilyDescriptor cfd : td.getColumnFamilies()) {
      if (family == null || family.equals(cfd.getNameAsString())) {
        policies.put(cfd.getNameAsString(),
          TierPolicies.resolve(StoreUtils.createStoreConfiguration(conf, td, cfd), td, cfd));
      }
    }
    if (policies.isEmpty()) {
      System.err.println("strata migrate: table " + table + " has no family "
        + family);
      return 2;
    }

    String tableDir = table.getNamespaceAsString() + "/" + table.getQualifierAsString();
    List<PlacedFile> files = new PlacementScanner(dfs, conf).scan(rootDir,
      HConstants.BASE_NAMESPACE_DIR + "/" + tableDir,
      HConstants.HFILE_ARCHIVE_DIRECTORY + "/" + HConstants.BASE_NAMESPACE_DIR + "/" + tableDir)
      .files();
    List<Path> queued = new ArrayList<>();
    SatisfierMarks marks = new SatisfierMarks(dfs, conf);
    int inPlace = 0;
    for (PlacedFile f : files) {
      Path path = new Path(f.path());
      TierPolicies p = policies.get(path.getParent().getName());
      String target = p == null ? null : target(f, p);
      if (target == null) {
        continue;
      }
      PlacementCheck.Placement now = PlacementCheck.inspect(dfs, path);
      if (now.policy().getName().equalsIgnoreCase(target) && now.misplaced().isEmpty()) {
        inPlace++;
        continue;
      }
      dfs.setStoragePolicy(path, target);
      // A stale mark (a satisfier died holding the file) would make the NameNode ignore this.
      boolean cleared = marks.request(path) == SatisfierMarks.Outcome.CLEARED_STALE_MARK;
      queued.add(path);
      out.printf(Locale.ROOT, "queued %-9s %s -> %s%s%n", f.kind().jsonName(), path, target,
        cleared ? " (stale satisfier mark cleared)" : "");
    }
    out.printf(Locale.ROOT, "%s: %d files to move, %d already in place%n", table, queued.size(),
      inPlace);
    if (noWait || queued.isEmpty()) {
      return 0;
    }
    return FileMover.waitUntilPlaced(dfs, queued, timeoutMs, out);
  }

  private static String target(PlacedFile f, TierPolicies p) {
    if (f.ageMs() != null && (f.kind() == FileKind.FLUSHED || f.kind() == FileKind.COMPACTED
      || f.kind() == FileKind.BULKLOADED)) {
      // The age chore's rule: an aged file is not taken back to its kind's policy.
      TierPolicies.Choice aged = p.aged(f.ageMs());
      if (aged != null) {
        return aged.policy();
      }
    }
    if (f.kind() == FileKind.COMPACTED && f.rule() != null
      && f.rule().rule().startsWith("date-tiered window")) {
      return f.rule().policy(); // upstream's window policy, as its compaction chose it
    }
    switch (f.kind()) {
      case FLUSHED:
        return p.flush();
      case COMPACTED:
        return p.forCompaction(f.bytes());
      case ARCHIVED:
        return p.archive();
      case BULKLOADED:
        return p.bulkLoad();
      default:
        return null; // WALs, references, links: not a placement kind of a family
    }
  }
}
