package io.strata.hbase.tiering;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockStoragePolicySpi;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.regionserver.HStore;

/**
 * The storage policy of each kind of file of one column family, and the rule that chose it. The
 * one place where Strata's precedence is decided; the store engine, the validator and
 * {@code strata migrate} all resolve through it. Immutable, so thread-safe.
 *
 * <p>Precedence, first match wins, for flushed and compacted files:
 * <ol>
 * <li>the kind's {@code strata.*} key on the column family (its values or CONFIGURATION);</li>
 * <li>the kind's {@code strata.*} key on the table;</li>
 * <li>upstream's explicit per-family policy, as HBase itself reads it for the family directory:
 * the family's {@code STORAGE_POLICY}, else {@code hbase.hstore.block.storage.policy} on the
 * family, else on the table. HBase applies it to the family directory and to its {@code .tmp}
 * directory; Strata pins nothing then, so the files are placed exactly as upstream places
 * them;</li>
 * <li>the kind's {@code strata.*} key in the site configuration;</li>
 * <li>upstream's {@code hbase.hstore.block.storage.policy} in the site configuration (again
 * applied by HBase, not pinned by Strata);</li>
 * <li>Strata's default.</li>
 * </ol>
 * The upstream value {@code NONE} (HBase's "defer to HDFS") counts as not set. Archived HFiles,
 * bulk-loaded HFiles and rolled WALs are never placed by upstream's per-family policy (HBase does not apply it to
 * {@code archive/} or {@code oldWALs/}, and a bulk load renames files whose blocks were written
 * elsewhere): for them only rules 1, 2, 4 and 6 apply (rolled WALs:
 * 4 and 6, they belong to no family).
 */
public final class TierPolicies {

  /** The kinds of file Strata places, with their key and default. */
  public enum Kind {
    FLUSHED("flushed", TieringKeys.FLUSH_POLICY, TieringKeys.FLUSH_POLICY_DEFAULT, true),
    COMPACTED_SMALL("compacted small", TieringKeys.COMPACTION_SMALL_POLICY,
      TieringKeys.COMPACTION_SMALL_POLICY_DEFAULT, true),
    COMPACTED_LARGE("compacted large", TieringKeys.COMPACTION_LARGE_POLICY,
      TieringKeys.COMPACTION_LARGE_POLICY_DEFAULT, true),
    ARCHIVED("archived", TieringKeys.ARCHIVE_POLICY, TieringKeys.ARCHIVE_POLICY_DEFAULT, false),
    BULKLOADED("bulkloaded", TieringKeys.BULKLOAD_POLICY, TieringKeys.BULKLOAD_POLICY_DEFAULT,
      false),
    OLDWAL("oldwal", TieringKeys.OLDWAL_POLICY, TieringKeys.OLDWAL_POLICY_DEFAULT, false);

    private final String label;
    private final String key;
    private final String defaultPolicy;
    private final boolean upstreamApplies;

    Kind(String label, String key, String defaultPolicy, boolean upstreamApplies) {
      this.label = label;
      this.key = key;
      this.defaultPolicy = defaultPolicy;
      this.upstreamApplies = upstreamApplies;
    }

    public String key() {
      return key;
    }

    public String label() {
      return label;
    }
  }

  /** A kind's policy and the rule that chose it. */
  public static final class Choice {
    private final String policy;
    private final String rule;
    private final boolean upstream;

    Choice(String policy, String rule, boolean upstream) {
      this.policy = policy;
      this.rule = rule;
      this.upstream = upstream;
    }

    /** The storage policy name, upper case. */
    public String policy() {
      return policy;
    }

    /**
     * The rule, as logged: {@code family <key>}, {@code table <key>}, {@code site <key>} or
     * {@code Strata default}.
     */
    public String rule() {
      return rule;
    }

    /**
     * Whether upstream's policy was chosen: HBase applies it to the directories the file is
     * written in, and Strata pins nothing.
     */
    public boolean upstream() {
      return upstream;
    }

    @Override
    public String toString() {
      return policy + " (" + rule + ")";
    }
  }

  private final EnumMap<Kind, Choice> choices;
  private final long compactionThreshold;
  private final String thresholdRule;
  /** The problem with a bad threshold value (the default is used then), or null. */
  private final String thresholdProblem;

  private TierPolicies(EnumMap<Kind, Choice> choices, long compactionThreshold,
    String thresholdRule, String thresholdProblem) {
    this.choices = choices;
    this.compactionThreshold = compactionThreshold;
    this.thresholdRule = thresholdRule;
    this.thresholdProblem = thresholdProblem;
  }

  /** The policies of a site configuration alone (no table or family). */
  public static TierPolicies from(Configuration conf) {
    return resolve(conf, null, null);
  }

  /**
   * The policies of one column family. {@code conf} is the site configuration, or the store's
   * compound configuration built on it (the descriptors are read first, so a value found in
   * {@code conf} after them is the site's). Never throws for a bad value: a threshold that is
   * not a size falls back to the default and is reported by {@link #problems}.
   *
   * @param table  the table, or null
   * @param family the column family, or null
   */
  public static TierPolicies resolve(Configuration conf, TableDescriptor table,
    ColumnFamilyDescriptor family) {
    EnumMap<Kind, Choice> choices = new EnumMap<>(Kind.class);
    Choice upstreamFamily = upstreamPerFamily(table, family);
    Choice upstreamSite = upstreamSite(conf, table, family);
    for (Kind kind : Kind.values()) {
      choices.put(kind, choose(kind, conf, table, family, upstreamFamily, upstreamSite));
    }

    long threshold = TieringKeys.COMPACTION_THRESHOLD_DEFAULT;
    String thresholdRule = "Strata default";
    String problem = null;
    String[] found = strataValue(TieringKeys.COMPACTION_THRESHOLD, conf, table, family);
    if (found != null) {
      thresholdRule = found[1] + " " + TieringKeys.COMPACTION_THRESHOLD;
      long bytes = TieringKeys.compactionThresholdBytes(found[0]);
      if (bytes < 0) {
        problem = TieringKeys.COMPACTION_THRESHOLD + " = '" + found[0] + "' (" + found[1]
          + ") is not a size in bytes (e.g. 1610612736 or 1536m)";
        thresholdRule = "Strata default, " + found[1] + " value invalid";
      } else {
        threshold = bytes;
      }
    }
    return new TierPolicies(choices, threshold, thresholdRule, problem);
  }

  private static Choice choose(Kind kind, Configuration conf, TableDescriptor table,
    ColumnFamilyDescriptor family, Choice upstreamFamily, Choice upstreamSite) {
    if (kind != Kind.OLDWAL) {
      String v = familyValue(family, kind.key);
      if (v != null) {
        return new Choice(normalize(v), "family " + kind.key, false);
      }
      v = table == null ? null : trimmed(table.getValue(kind.key));
      if (v != null) {
        return new Choice(normalize(v), "table " + kind.key, false);
      }
      if (kind.upstreamApplies && upstreamFamily != null) {
        return upstreamFamily;
      }
    }
    String v = trimmed(conf.get(kind.key));
    if (v != null) {
      return new Choice(normalize(v), "site " + kind.key, false);
    }
    if (kind.upstreamApplies && upstreamSite != null) {
      return upstreamSite;
    }
    return new Choice(kind.defaultPolicy, "Strata default", false);
  }

  /** Upstream's per-family policy, in HStore's order; null when not set or NONE. */
  private static Choice upstreamPerFamily(TableDescriptor table, ColumnFamilyDescriptor family) {
    if (family != null) {
      String v = upstream(family.getStoragePolicy());
      if (v != null) {
        return new Choice(v, "family STORAGE_POLICY", true);
      }
      v = upstream(familyValue(family, HStore.BLOCK_STORAGE_POLICY_KEY));
      if (v != null) {
        return new Choice(v, "family " + HStore.BLOCK_STORAGE_POLICY_KEY, true);
      }
    }
    if (table != null) {
      String v = upstream(table.getValue(HStore.BLOCK_STORAGE_POLICY_KEY));
      if (v != null) {
        return new Choice(v, "table " + HStore.BLOCK_STORAGE_POLICY_KEY, true);
      }
    }
    return null;
  }

  private static Choice upstreamSite(Configuration conf, TableDescriptor table,
    ColumnFamilyDescriptor family) {
    if (upstreamPerFamily(table, family) != null) {
      return null; // the site value is not what HBase applies to this family
    }
    String v = upstream(conf.get(HStore.BLOCK_STORAGE_POLICY_KEY));
    return v == null ? null : new Choice(v, "site " + HStore.BLOCK_STORAGE_POLICY_KEY, true);
  }

  /** A strata.* key's value and the level it was set at (family, table, site); or null. */
  private static String[] strataValue(String key, Configuration conf, TableDescriptor table,
    ColumnFamilyDescriptor family) {
    String v = familyValue(family, key);
    if (v != null) {
      return new String[] { v, "family" };
    }
    v = table == null ? null : trimmed(table.getValue(key));
    if (v != null) {
      return new String[] { v, "table" };
    }
    v = trimmed(conf.get(key));
    return v == null ? null : new String[] { v, "site" };
  }

  /** A family's value of a key, as HBase's store configuration reads it: values first. */
  private static String familyValue(ColumnFamilyDescriptor family, String key) {
    if (family == null) {
      return null;
    }
    String v = trimmed(family.getValue(key));
    return v != null ? v : trimmed(family.getConfigurationValue(key));
  }

  private static String upstream(String value) {
    String v = trimmed(value);
    return v == null || HConstants.DEFER_TO_HDFS_STORAGE_POLICY.equalsIgnoreCase(v) ? null
      : normalize(v);
  }

  private static String trimmed(String value) {
    if (value == null) {
      return null;
    }
    String v = value.trim();
    return v.isEmpty() ? null : v;
  }

  private static String normalize(String policy) {
    return policy.trim().toUpperCase(Locale.ROOT);
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
   * Problems with Strata's own values: one readable line per {@code strata.*} value whose policy
   * is not in {@code offered} (skipped when {@code offered} is null: a file system without
   * storage policies), and a threshold that is not a size. Empty when all are valid. Upstream's
   * policies are HBase's to check, as upstream does (it logs and ignores an unknown one).
   */
  public List<String> problems(Collection<String> offered) {
    List<String> problems = new ArrayList<>();
    if (offered != null) {
      for (Kind kind : Kind.values()) {
        Choice c = choices.get(kind);
        if (!c.upstream && !offered.contains(c.policy)) {
          problems.add(kind.key + " = '" + c.policy + "' is not a storage policy of this HDFS; "
            + "valid: " + String.join(", ", new TreeSet<>(offered)));
        }
      }
    }
    if (thresholdProblem != null) {
      problems.add(thresholdProblem);
    }
    return problems;
  }

  /** The problem with the threshold's value (the default is used instead), or null. */
  public String thresholdProblem() {
    return thresholdProblem;
  }

  public Choice choice(Kind kind) {
    return choices.get(kind);
  }

  /** The choices of every kind, in report order. */
  public Map<Kind, Choice> choices() {
    return java.util.Collections.unmodifiableMap(choices);
  }

  public String flush() {
    return choices.get(Kind.FLUSHED).policy;
  }

  /**
   * The choice for a compaction whose inputs add up to {@code inputBytes}; unknown sizes
   * (negative) count as large, where a wrong guess costs capacity on the slower tier, not on the
   * scarce one.
   */
  public Choice compaction(long inputBytes) {
    return inputBytes >= 0 && inputBytes < compactionThreshold
      ? choices.get(Kind.COMPACTED_SMALL)
      : choices.get(Kind.COMPACTED_LARGE);
  }

  /** The policy of a compaction whose inputs add up to {@code inputBytes}. */
  public String forCompaction(long inputBytes) {
    return compaction(inputBytes).policy;
  }

  public long compactionThreshold() {
    return compactionThreshold;
  }

  public String archive() {
    return choices.get(Kind.ARCHIVED).policy;
  }

  public String bulkLoad() {
    return choices.get(Kind.BULKLOADED).policy;
  }

  public String oldWal() {
    return choices.get(Kind.OLDWAL).policy;
  }

  /**
   * The store's log line: {@code flushed -> P (rule), compacted < N bytes -> P (rule), compacted
   * >= N bytes -> P (rule), archived -> P (rule)}.
   */
  public String describe() {
    return String.format(Locale.ROOT,
      "flushed -> %s, compacted < %d bytes -> %s, compacted >= %d bytes -> %s, archived -> %s, "
        + "bulkloaded -> %s (threshold: %s)",
      choices.get(Kind.FLUSHED), compactionThreshold, choices.get(Kind.COMPACTED_SMALL),
      compactionThreshold, choices.get(Kind.COMPACTED_LARGE), choices.get(Kind.ARCHIVED),
      choices.get(Kind.BULKLOADED), thresholdRule);
  }

  @Override
  public String toString() {
    return describe();
  }
}
