package io.strata.hbase.tiering;

import io.strata.compat.VersionCheck;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockStoragePolicySpi;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hbase.CoprocessorEnvironment;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.coprocessor.MasterCoprocessor;
import org.apache.hadoop.hbase.coprocessor.MasterCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.MasterObserver;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.util.CommonFSUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rejects a table whose placement keys name a storage policy the cluster's HDFS does not offer,
 * or a compaction threshold that is not a size, at create and alter time, with the key and the
 * valid policies in the error. Upstream HBase logs and ignores a bad policy; a typo would silently
 * leave data on the default tier. Loaded with {@code hbase.coprocessor.master.classes}; at master
 * start it checks the site's values too. Policy names are not checked where the file system has
 * no storage policies, or while its NameNode does not answer (logged). At start it also refuses
 * a volatile {@code hbase.wal.storage.policy} ({@link WalDurability#enforce}: the master writes
 * the master-region WAL and recovered.edits with it), and at create and alter a volatile one on
 * the table or a family. At create and alter it logs a WARN per family whose store engine
 * applies none of Strata's placement on a site that runs {@link TieredStoreEngine}
 * ({@link StoreEngines}). Thread-safety: the
 * master calls it from its RPC handlers; it keeps only what {@link #start} set.
 */
public class TieringValidator implements MasterCoprocessor, MasterObserver {
  private static final Logger LOG = LoggerFactory.getLogger(TieringValidator.class);

  private Configuration siteConf;
  private FileSystem fs;

  @Override
  public void start(CoprocessorEnvironment env) throws IOException {
    VersionCheck.hbasePlugin("TieringValidator (master coprocessor)",
      TieringKeys.versionCheck(env.getConfiguration()));
    siteConf = env.getConfiguration();
    fs = CommonFSUtils.getRootDir(siteConf).getFileSystem(siteConf);
    Set<String> offered;
    try {
      offered = offered();
    } catch (UnsupportedOperationException e) {
      // A file system without storage policies (a file:// root): the stores turn placement off
      // and write as upstream does; only values that are invalid anywhere are checked.
      LOG.info("Storage policy names in placement keys are not checked: {} has no storage "
        + "policies ({})", fs.getUri(), e.getMessage());
      offered = null;
    } catch (IOException e) {
      LOG.warn("Storage policy names of the site's placement keys are not checked: the NameNode "
        + "of {} did not answer getAllStoragePolicies ({}); tables are checked when created or "
        + "altered", fs.getUri(), e.toString());
      offered = null;
    }
    List<String> problems = new ArrayList<>(TierPolicies.from(siteConf).problems(offered));
    String walPolicy = siteConf.getTrimmed(HConstants.WAL_STORAGE_POLICY);
    if (offered != null && walPolicy != null && !"NONE".equalsIgnoreCase(walPolicy)
      && !offered.contains(walPolicy.toUpperCase(java.util.Locale.ROOT))) {
      problems.add(HConstants.WAL_STORAGE_POLICY + " = '" + walPolicy
        + "' is not a storage policy of this HDFS; valid: " + String.join(", ", offered));
    }
    if (!problems.isEmpty()) {
      throw new IOException("Strata placement configuration of the site is invalid: "
        + String.join("; ", problems));
    }
    if (offered != null) {
      // The master writes its own WALs (master region) and splits WALs into recovered.edits
      // with the same key: it refuses a volatile policy as the RegionServers do.
      try {
        WalDurability.enforce(siteConf, "Master");
      } catch (WalDurability.Unanswered e) {
        LOG.warn("{}; the RegionServers check it again until the NameNode answers", e.getMessage());
      }
    }
  }

  @Override
  public Optional<MasterObserver> getMasterObserver() {
    return Optional.of(this);
  }

  @Override
  public void preCreateTable(ObserverContext<MasterCoprocessorEnvironment> ctx,
    TableDescriptor desc, RegionInfo[] regions) throws IOException {
    check(desc, regions == null ? -1 : regions.length);
  }

  @Override
  public TableDescriptor preModifyTable(ObserverContext<MasterCoprocessorEnvironment> ctx,
    TableName tableName, TableDescriptor currentDescriptor, TableDescriptor newDescriptor)
    throws IOException {
    check(newDescriptor);
    return newDescriptor;
  }

  /**
   * A table- or family-level {@code hbase.wal.storage.policy}. HBase 2.6.4 reads the key only
   * from the server's configuration (AbstractFSWAL for live WALs, WALSplitUtil for
   * recovered.edits), so it has no effect there; a volatile one is still refused as the site's
   * would be, since it states an intent to put WALs on RAM only. Null when there is nothing to
   * refuse.
   */
  private String walPolicyProblem(String level, String policy, TableName table)
    throws IOException {
    if (policy == null || policy.trim().isEmpty()
      || HConstants.DEFAULT_WAL_STORAGE_POLICY.equalsIgnoreCase(policy.trim())) {
      return null;
    }
    LOG.warn("Table {}: {}-level {} = {} has no effect; live WALs and recovered.edits take the "
      + "RegionServers' site value", table, level, HConstants.WAL_STORAGE_POLICY, policy);
    Collection<? extends BlockStoragePolicySpi> all;
    try {
      all = fs.getAllStoragePolicies();
    } catch (UnsupportedOperationException | IOException e) {
      return null;
    }
    WalDurability.Verdict v = WalDurability.judge(policy.trim(), all,
      fs.getDefaultReplication(CommonFSUtils.getWALRootDir(siteConf)),
      TieringKeys.ramTierPersistent(siteConf));
    if (v == null || v.durable() || TieringKeys.unsafeWalVolatileAccept(siteConf)) {
      return null;
    }
    return WalDurability.refusal(level + " " + HConstants.WAL_STORAGE_POLICY + " = " + policy, v);
  }

  private Set<String> offered() throws IOException {
    return TierPolicies.offeredPolicies(fs);
  }

  /**
   * The policies the file system offers, or null when they cannot be known: it has none (the
   * stores turn placement off), or its NameNode did not answer (the stores defer placement and
   * log an unknown policy with its fallback). Placement is an optimisation: a table is not
   * refused for a check that could not run.
   */
  private Set<String> offeredOrNull(TableName table) {
    try {
      return offered();
    } catch (UnsupportedOperationException e) {
      return null;
    } catch (IOException e) {
      LOG.warn("Storage policy names of table {} are not checked: the NameNode of {} did not "
        + "answer getAllStoragePolicies ({})", table, fs.getUri(), e.toString());
      return null;
    }
  }

  /**
   * One WARN per family whose store engine does not apply Strata's placement on a site that runs
   * {@link TieredStoreEngine} (see {@link StoreEngines#placementOffReason}); the table is not
   * refused: another engine is a legitimate choice, made unawares only if nobody says so.
   */
  private void warnUnplacedEngines(TableDescriptor desc, int regions) {
    for (ColumnFamilyDescriptor cfd : desc.getColumnFamilies()) {
      String reason = StoreEngines.placementOffReason(siteConf, desc, cfd);
      if (reason != null) {
        LOG.warn("Table {} family {}: Strata's placement is off for the stores of this family "
          + "({}): {}. Strata's engines that place: {} (default), {} (date-tiered), {} (stripe)",
          desc.getTableName(), cfd.getNameAsString(),
          regions < 0 ? "every region" : regions + " region(s) at create", reason,
          TieredStoreEngine.class.getName(), TieredDateTieredStoreEngine.class.getName(),
          TieredStripeStoreEngine.class.getName());
      }
    }
  }

  private void check(TableDescriptor desc) throws IOException {
    check(desc, -1);
  }

  private void check(TableDescriptor desc, int regions) throws IOException {
    warnUnplacedEngines(desc, regions);
    List<String> problems = new ArrayList<>();
    Set<String> offered = offeredOrNull(desc.getTableName());
    for (ColumnFamilyDescriptor cfd : desc.getColumnFamilies()) {
      for (String p : TierPolicies.resolve(siteConf, desc, cfd).problems(offered)) {
        problems.add("family '" + cfd.getNameAsString() + "': " + p);
      }
    }
    String walProblem = walPolicyProblem("table", desc.getValue(HConstants.WAL_STORAGE_POLICY),
      desc.getTableName());
    if (walProblem != null) {
      problems.add(walProblem);
    }
    for (ColumnFamilyDescriptor cfd : desc.getColumnFamilies()) {
      walProblem = walPolicyProblem("family '" + cfd.getNameAsString() + "'",
        cfd.getConfigurationValue(HConstants.WAL_STORAGE_POLICY), desc.getTableName());
      if (walProblem != null) {
        problems.add(walProblem);
      }
    }
    if (!problems.isEmpty()) {
      String message = "Table " + desc.getTableName() + " rejected: " + String.join("; ", problems);
      LOG.warn(message);
      throw new DoNotRetryIOException(message);
    }
  }
}
