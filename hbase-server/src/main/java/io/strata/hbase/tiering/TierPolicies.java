package io.strata.hbase.tiering;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockStoragePolicySpi;
import org.apache.hadoop.fs.FileSystem;

/** The storage policies of one column family, read from its (compound) configuration. */
public final class TierPolicies {
  /** Policy keys and their defaults, in the order they are reported. */
  private static final Map<String, String> POLICY_KEYS = new LinkedHashMap<>();

  static {
    POLICY_KEYS.put(TieringKeys.FLUSH_POLICY, TieringKeys.FLUSH_POLICY_DEFAULT);
    POLICY_KEYS.put(TieringKeys.COMPACTION_SMALL_POLICY,
      TieringKeys.COMPACTION_SMALL_POLICY_DEFAULT);
    POLICY_KEYS.put(TieringKeys.COMPACTION_LARGE_POLICY,
      TieringKeys.COMPACTION_LARGE_POLICY_DEFAULT);
    POLICY_KEYS.put(TieringKeys.ARCHIVE_POLICY, TieringKeys.ARCHIVE_POLICY_DEFAULT);
    POLICY_KEYS.put(TieringKeys.OLDWAL_POLICY, TieringKeys.OLDWAL_POLICY_DEFAULT);
  }

  private final Map<String, String> policies;
  private final long compactionThreshold;

  private TierPolicies(Map<String, String> policies, long compactionThreshold) {
    this.policies = policies;
    this.compactionThreshold = compactionThreshold;
  }

  /**
   * Reads the policies.
   *
   * @throws IllegalArgumentException if the compaction threshold is not a byte count
   */
  public static TierPolicies from(Configuration conf) {
    Map<String, String> p = new LinkedHashMap<>();
    POLICY_KEYS.forEach((key, dflt) -> p.put(key, conf.getTrimmed(key, dflt)
      .toUpperCase(Locale.ROOT)));
    String threshold = conf.getTrimmed(TieringKeys.COMPACTION_THRESHOLD);
    long bytes = TieringKeys.COMPACTION_THRESHOLD_DEFAULT;
    if (threshold != null) {
      try {
        bytes = conf.getLongBytes(TieringKeys.COMPACTION_THRESHOLD, bytes);
      } catch (NumberFormatException e) {
        bytes = -1;
      }
      if (bytes < 0) {
        throw new IllegalArgumentException(TieringKeys.COMPACTION_THRESHOLD + " = '" + threshold
          + "' is not a size in bytes (e.g. 1610612736 or 1536m)");
      }
    }
    return new TierPolicies(p, bytes);
  }

  /** The names of the storage policies the file system offers, upper case. */
  public static Set<String> offeredPolicies(FileSystem fs) throws IOException {
    Set<String> names = new TreeSet<>();
    for (BlockStoragePolicySpi p : fs.getAllStoragePolicies()) {
      names.add(p.getName().toUpperCase(Locale.ROOT));
    }
    return names;
  }

  /**
   * Problems with these policies on a file system offering {@code offered}: one readable line per
   * key whose policy is unknown there. Empty when all are valid.
   */
  public List<String> problems(Collection<String> offered) {
    List<String> problems = new ArrayList<>();
    policies.forEach((key, policy) -> {
      if (!offered.contains(policy)) {
        problems.add(key + " = '" + policy + "' is not a storage policy of this HDFS; valid: "
          + String.join(", ", new TreeSet<>(offered)));
      }
    });
    return problems;
  }

  public String flush() {
    return policies.get(TieringKeys.FLUSH_POLICY);
  }

  /**
   * The policy of a compaction whose inputs add up to {@code inputBytes}; unknown sizes (negative)
   * count as large, where a wrong guess costs capacity on the slower tier, not on the scarce one.
   */
  public String forCompaction(long inputBytes) {
    return inputBytes >= 0 && inputBytes < compactionThreshold
      ? policies.get(TieringKeys.COMPACTION_SMALL_POLICY)
      : policies.get(TieringKeys.COMPACTION_LARGE_POLICY);
  }

  public long compactionThreshold() {
    return compactionThreshold;
  }

  public String archive() {
    return policies.get(TieringKeys.ARCHIVE_POLICY);
  }

  public String oldWal() {
    return policies.get(TieringKeys.OLDWAL_POLICY);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT,
      "flush=%s, compaction<%d bytes=%s, larger compaction=%s, archive=%s", flush(),
      compactionThreshold, forCompaction(0), forCompaction(-1), archive());
  }
}
