package io.strata.hbase.tiering;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
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
import org.apache.hadoop.hbase.regionserver.StoreUtils;
import org.apache.hadoop.hbase.util.CommonFSUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rejects a table whose placement keys name a storage policy the cluster's HDFS does not offer,
 * at create and alter time, with the key and the valid policies in the error. Upstream HBase
 * logs and ignores a bad policy; a typo would silently leave data on the default tier. Loaded
 * with {@code hbase.coprocessor.master.classes}; at master start it checks the site's values too.
 */
public class TieringValidator implements MasterCoprocessor, MasterObserver {
  private static final Logger LOG = LoggerFactory.getLogger(TieringValidator.class);

  private Configuration siteConf;
  private FileSystem fs;

  @Override
  public void start(CoprocessorEnvironment env) throws IOException {
    siteConf = env.getConfiguration();
    fs = CommonFSUtils.getRootDir(siteConf).getFileSystem(siteConf);
    List<String> problems = problems(siteConf);
    String walPolicy = siteConf.getTrimmed(HConstants.WAL_STORAGE_POLICY);
    if (walPolicy != null && !"NONE".equalsIgnoreCase(walPolicy)
      && !offered().contains(walPolicy.toUpperCase(java.util.Locale.ROOT))) {
      problems.add(HConstants.WAL_STORAGE_POLICY + " = '" + walPolicy
        + "' is not a storage policy of this HDFS; valid: " + String.join(", ", offered()));
    }
    if (!problems.isEmpty()) {
      throw new IOException("Strata placement configuration of the site is invalid: "
        + String.join("; ", problems));
    }
  }

  @Override
  public Optional<MasterObserver> getMasterObserver() {
    return Optional.of(this);
  }

  @Override
  public void preCreateTable(ObserverContext<MasterCoprocessorEnvironment> ctx,
    TableDescriptor desc, RegionInfo[] regions) throws IOException {
    check(desc);
  }

  @Override
  public TableDescriptor preModifyTable(ObserverContext<MasterCoprocessorEnvironment> ctx,
    TableName tableName, TableDescriptor currentDescriptor, TableDescriptor newDescriptor)
    throws IOException {
    check(newDescriptor);
    return newDescriptor;
  }

  private Set<String> offered() throws IOException {
    return TierPolicies.offeredPolicies(fs);
  }

  private List<String> problems(Configuration conf) throws IOException {
    try {
      return new ArrayList<>(TierPolicies.from(conf).problems(offered()));
    } catch (IllegalArgumentException e) {
      List<String> problems = new ArrayList<>();
      problems.add(e.getMessage());
      return problems;
    }
  }

  private void check(TableDescriptor desc) throws IOException {
    List<String> problems = new ArrayList<>();
    for (ColumnFamilyDescriptor cfd : desc.getColumnFamilies()) {
      for (String p : problems(StoreUtils.createStoreConfiguration(siteConf, desc, cfd))) {
        problems.add("family '" + cfd.getNameAsString() + "': " + p);
      }
    }
    if (!problems.isEmpty()) {
      String message = "Table " + desc.getTableName() + " rejected: " + String.join("; ", problems);
      LOG.warn(message);
      throw new DoNotRetryIOException(message);
    }
  }
}
