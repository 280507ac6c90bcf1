package io.strata.hbase.tiering;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.regionserver.HStoreFile;
import org.apache.hadoop.hbase.regionserver.StoreConfigInformation;
import org.apache.hadoop.hbase.regionserver.compactions.CompactionRequestImpl;
import org.apache.hadoop.hbase.regionserver.compactions.DateTieredCompactionPolicy;
import org.apache.hadoop.hbase.regionserver.compactions.DateTieredCompactionRequest;
import org.apache.hadoop.hbase.util.EnvironmentEdgeManager;

/**
 * HBase's date-tiered compaction policy, with the storage policy of a major compaction's oldest
 * output chosen by the age of its data.
 *
 * <p>Upstream names a major compaction's outputs by their windows' start times and picks each
 * output's hot, warm or cold policy by that start (HBASE-24289). The oldest output's window is
 * keyed {@code Long.MIN_VALUE}, so it always gets the cold policy: a family whose cells are all
 * recent (one window) is rewritten onto the cold tier by its first major compaction, and reads of
 * its newest data then go to the slowest media. This policy keeps upstream's windows and every
 * other output's policy, and gives the oldest output the policy of its oldest cell's age, by
 * upstream's own hot and warm ages: cells older than the warm window still land on the cold
 * policy, recent ones on the hot policy. Strata's placement report and {@code strata migrate}
 * judge a date-tiered output by the same rule ({@link TierPolicies#dateTieredWindow}).
 *
 * <p>Used by {@link TieredDateTieredStoreEngine} when the family names no compaction policy of its
 * own ({@code hbase.hstore.defaultengine.compactionpolicy.class}).
 */
public class TieredDateTieredCompactionPolicy extends DateTieredCompactionPolicy {

  public TieredDateTieredCompactionPolicy(Configuration conf,
    StoreConfigInformation storeConfigInfo) throws java.io.IOException {
    super(conf, storeConfigInfo);
  }

  @Override
  public CompactionRequestImpl selectMajorCompaction(ArrayList<HStoreFile> candidateSelection) {
    CompactionRequestImpl r = super.selectMajorCompaction(candidateSelection);
    if (!(r instanceof DateTieredCompactionRequest) || !comConf.isDateTieredStoragePolicyEnable()) {
      return r;
    }
    DateTieredCompactionRequest request = (DateTieredCompactionRequest) r;
    Map<Long, String> policies = request.getBoundariesPolicies();
    if (policies == null || !policies.containsKey(Long.MIN_VALUE)) {
      return r;
    }
    long oldest = Long.MAX_VALUE;
    for (HStoreFile f : candidateSelection) {
      oldest = Math.min(oldest, f.getMinimumTimestamp().orElse(Long.MAX_VALUE));
    }
    if (oldest == Long.MAX_VALUE) {
      return r; // no time range recorded: upstream's choice stands
    }
    Map<Long, String> corrected = new HashMap<>(policies);
    corrected.put(Long.MIN_VALUE, policyForAge(EnvironmentEdgeManager.currentTime() - oldest));
    return new DateTieredCompactionRequest(candidateSelection, request.getBoundaries(), corrected);
  }

  /** Upstream's window rule, applied to an age: hot up to the hot age, warm up to the warm age. */
  String policyForAge(long ageMs) {
    if (ageMs <= comConf.getHotWindowAgeMillis()) {
      return comConf.getHotWindowStoragePolicy();
    }
    if (ageMs <= comConf.getWarmWindowAgeMillis()) {
      return comConf.getWarmWindowStoragePolicy();
    }
    return comConf.getColdWindowStoragePolicy();
  }
}
