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
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.regionserver.DateTieredStoreEngine;
import org.apache.hadoop.hbase.regionserver.HStore;
import org.apache.hadoop.hbase.regionserver.compactions.CompactionConfiguration;

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
    OLDWAL("oldwal", TieringKeys.OLDWAL_POLICY, TieringKeys.OLDWAL_POLICY_DEFAULT, false),
    /**
     * Store files whose newest cell is older than {@link TieringKeys#AGE_THRESHOLD}. Upstream's
     * per-family policy covers them as it covers flushed and compacted files: it places the
     * family directory they are in.
     */
    AGED("aged", TieringKeys.AGE_POLICY, TieringKeys.AGE_POLICY_DEFAULT, true);

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

  /** The age rule's threshold in ms, {@link TieringKeys#AGE_OFF} when it does not apply. */
  private long ageThresholdMs = TieringKeys.AGE_OFF;
  /** Where the age threshold came from, or why the rule is off. */
  private String ageRule = "off (Strata default)";
  /**
   * Upstream's date-tiered window policies when the family runs a date-tiered engine with
   * {@code ...storage.policy.enable}: {hot age ms, warm age ms}; null otherwise.
   */
  private long[] windowAges;
  private String[] windowPolicies;
  /** Contradictory or invalid age settings (the rule is off then); empty when none. */
  private final List<String> ageProblems = new ArrayList<>();

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
    TierPolicies resolved = new TierPolicies(choices, threshold, thresholdRule, problem);
    resolved.resolveAge(conf, table, family);
    return resolved;
  }

  /**
   * The age rule: {@link TieringKeys#AGE_THRESHOLD} at its level, off where upstream's
   * per-family policy wins over a site threshold (the precedence of every kind), refused where it
   * contradicts the family's other settings: a threshold set on the family or table while the
   * family's {@code STORAGE_POLICY} decides the aged policy (nothing of Strata's to age to), or,
   * on a date-tiered family with upstream's window policies, a threshold shorter than the warm
   * window's age (it would move data upstream keeps hot or warm) or an aged policy other than
   * the cold window's.
   */
  private void resolveAge(Configuration conf, TableDescriptor table,
    ColumnFamilyDescriptor family) {
    if (dateTieredWindows(conf, table, family)) {
      windowAges = new long[] {
        longValue(conf, table, family,
          CompactionConfiguration.DATE_TIERED_HOT_WINDOW_AGE_MILLIS_KEY, 86400000L),
        longValue(conf, table, family,
          CompactionConfiguration.DATE_TIERED_WARM_WINDOW_AGE_MILLIS_KEY, 604800000L) };
      windowPolicies = new String[] {
        normalize(value(conf, table, family,
          CompactionConfiguration.DATE_TIERED_HOT_WINDOW_STORAGE_POLICY_KEY, "ALL_SSD")),
        normalize(value(conf, table, family,
          CompactionConfiguration.DATE_TIERED_WARM_WINDOW_STORAGE_POLICY_KEY, "ONE_SSD")),
        normalize(value(conf, table, family,
          CompactionConfiguration.DATE_TIERED_COLD_WINDOW_STORAGE_POLICY_KEY, "HOT")) };
    }
    String[] found = strataValue(TieringKeys.AGE_THRESHOLD, conf, table, family);
    if (found == null) {
      return;
    }
    long ms;
    try {
      ms = TieringKeys.ageThresholdMs(found[0]);
    } catch (IllegalArgumentException e) {
      ageProblems.add(e.getMessage() + " (" + found[1] + ")");
      ageRule = "off, " + found[1] + " value invalid";
      return;
    }
    if (ms == TieringKeys.AGE_OFF) {
      ageRule = "off (" + found[1] + " " + TieringKeys.AGE_THRESHOLD + ")";
      return;
    }
    String level = found[1] + " " + TieringKeys.AGE_THRESHOLD + " = " + found[0].trim();
    if ("site".equals(found[1]) && table != null && systemTable(table.getTableName())) {
      // hbase:meta and the master's local store hold old cells that every request may need.
      ageRule = "off: " + table.getTableName() + " is a system table; " + level
        + " applies to user tables (set it on the table or family to age it)";
      return;
    }
    Choice aged = choices.get(Kind.AGED);
    if (aged.upstream()) {
      if ("site".equals(found[1])) {
        ageRule = "off: " + aged.rule() + " (" + aged.policy() + ") wins over " + level;
        return;
      }
      ageProblems.add(level + " asks to move aged files, but " + aged.rule() + " = "
        + aged.policy() + " places every file of the family and wins over "
        + TieringKeys.AGE_POLICY + " from the site or Strata's default; set "
        + TieringKeys.AGE_POLICY + " on the family or table too, or remove the threshold");
      ageRule = "off, contradicts " + aged.rule();
      return;
    }
    if (windowAges != null) {
      long warm = windowAges[1];
      String cold = windowPolicies[2];
      int before = ageProblems.size();
      if (ms < warm) {
        ageProblems.add(level + " (" + ms + " ms) is shorter than the date-tiered warm window ("
          + CompactionConfiguration.DATE_TIERED_WARM_WINDOW_AGE_MILLIS_KEY + " = " + warm
          + " ms, with " + CompactionConfiguration.DATE_TIERED_STORAGE_POLICY_ENABLE_KEY
          + " = true): it would move data the hot and warm windows keep on their policies; set "
          + "it to " + warm + " ms or more");
      }
      if (!cold.equals(aged.policy())) {
        ageProblems.add(TieringKeys.AGE_POLICY + " = " + aged.policy() + " (" + aged.rule()
          + ") differs from the date-tiered cold window's "
          + CompactionConfiguration.DATE_TIERED_COLD_WINDOW_STORAGE_POLICY_KEY + " = " + cold
          + ": aged files would move away from the policy their window gives them; make them "
          + "equal");
      }
      if (ageProblems.size() > before) {
        ageRule = "off, contradicts the date-tiered windows";
        return;
      }
    }
    ageThresholdMs = ms;
    ageRule = level;
  }

  /** HBase's own tables: the hbase namespace (meta, namespace, acl, ...) and the master's store. */
  private static boolean systemTable(TableName name) {
    return name.isSystemTable() || "master".equals(name.getNamespaceAsString());
  }

  /** Whether the family runs a date-tiered engine with upstream's window storage policies. */
  private static boolean dateTieredWindows(Configuration conf, TableDescriptor table,
    ColumnFamilyDescriptor family) {
    String engine = StoreEngines.engineOf(conf, table, family);
    boolean dateTiered;
    try {
      dateTiered = DateTieredStoreEngine.class.isAssignableFrom(
        Class.forName(engine, false, TierPolicies.class.getClassLoader()));
    } catch (ClassNotFoundException | LinkageError e) {
      dateTiered = false;
    }
    return dateTiered && Boolean.parseBoolean(value(conf, table, family,
      CompactionConfiguration.DATE_TIERED_STORAGE_POLICY_ENABLE_KEY, "false"));
  }

  private static String value(Configuration conf, TableDescriptor table,
    ColumnFamilyDescriptor family, String key, String dflt) {
    String[] v = strataValue(key, conf, table, family);
    return v == null ? dflt : v[0];
  }

  private static long longValue(Configuration conf, TableDescriptor table,
    ColumnFamilyDescriptor family, String key, long dflt) {
    try {
      return Long.parseLong(value(conf, table, family, key, Long.toString(dflt)).trim());
    } catch (NumberFormatException e) {
      return dflt; // HBase's own parsing refuses it when the store opens
    }
  }

  /**
   * The age rule's threshold in milliseconds: store files whose newest cell is at least this old
   * get the {@link Kind#AGED} policy; {@link TieringKeys#AGE_OFF} when the rule is off, invalid,
   * contradictory or outranked by upstream's per-family policy.
   */
  public long ageThresholdMs() {
    return ageThresholdMs;
  }

  /**
   * Upstream's window policy for a date-tiered compaction output whose window started
   * {@code windowAgeMs} ago, as upstream chooses it ({@code DateTieredCompactionPolicy}: hot
   * within the hot age, warm within the warm age, else cold); null when the family has no window
   * policies (a date-tiered engine with {@code ...storage.policy.enable}).
   */
  public Choice dateTieredWindow(long windowAgeMs) {
    if (windowAges == null) {
      return null;
    }
    int w = windowAgeMs <= windowAges[0] ? 0 : windowAgeMs <= windowAges[1] ? 1 : 2;
    String[] names = { "hot", "warm", "cold" };
    return new Choice(windowPolicies[w], "date-tiered window " + names[w] + " (window "
      + windowAgeMs + " ms old; hbase.hstore.compaction.date.tiered." + names[w]
      + ".window.storage.policy)", true);
  }

  /** Where the age threshold came from, or why the rule is off, as logged and reported. */
  public String ageRule() {
    return ageRule;
  }

  /**
   * The policy for a store file whose newest cell is {@code ageMs} old, when the age rule applies
   * to it, or null: the rule is off, or the file is younger (a negative age, a future timestamp
   * or none recorded, never ages).
   */
  public Choice aged(long ageMs) {
    if (ageThresholdMs == TieringKeys.AGE_OFF || ageMs < ageThresholdMs) {
      return null;
    }
    Choice c = choices.get(Kind.AGED);
    return new Choice(c.policy(), "age: newest cell " + ageMs + " ms old >= " + ageRule
      + "; policy " + c.rule(), false);
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
    problems.addAll(ageProblems);
    return problems;
  }

  /** Problems of the age settings (the age rule is off then); empty when none. */
  public List<String> ageProblems() {
    return java.util.Collections.unmodifiableList(ageProblems);
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
        + "bulkloaded -> %s (threshold: %s), aged -> %s (age: %s)",
      choices.get(Kind.FLUSHED), compactionThreshold, choices.get(Kind.COMPACTED_SMALL),
      compactionThreshold, choices.get(Kind.COMPACTED_LARGE), choices.get(Kind.ARCHIVED),
      choices.get(Kind.BULKLOADED), thresholdRule, choices.get(Kind.AGED), ageRule);
  }

  @Override
  public String toString() {
    return describe();
  }
}
