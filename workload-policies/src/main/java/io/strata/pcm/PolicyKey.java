package io.strata.pcm;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The keys a policy file may set: each with the scope it is applied at, the name HBase reads it
 * under there, and how its value is checked. Immutable: safe from any thread.
 *
 * @param name   the key in the policy file (HBase 2.6's site key name where there is one)
 * @param scope  where it takes effect
 * @param target the name it is written under: descriptor value, family attribute or
 *               configuration key, site key, or hbase-env.sh variable
 * @param kind   how its value is checked
 */
public final class PolicyKey {
  private final String name;
  private final Scope scope;
  private final String target;
  private final Kind kind;

  public PolicyKey(String name, Scope scope, String target, Kind kind) {
    this.name = name;
    this.scope = scope;
    this.target = target;
    this.kind = kind;
  }

  public String name() {
    return name;
  }

  public Scope scope() {
    return scope;
  }

  public String target() {
    return target;
  }

  public Kind kind() {
    return kind;
  }

  /** How a value is checked. */
  public enum Kind {
    /** A constant fraction of the heap, above 0 and below 1. */
    FRACTION,
    /** A positive number, possibly scaled by X or maxed with X or dataset/regions. */
    POSITIVE,
    /** A region split policy class. */
    SPLIT_POLICY,
    /** An HDFS storage policy name. */
    STORAGE_POLICY
  }

  /** The paper's heap recommendation, (0.5 to 0.75) x RAM. */
  public static final String HEAP_RAM_FRACTION = "pcm.heap.ram.fraction";
  /** N of the pre-split count P = N x #RegionServers. */
  public static final String PRESPLIT_PER_SERVER = "pcm.presplit.regions.per.server";
  public static final String GLOBAL_MEMSTORE = "hbase.regionserver.global.memstore.size";
  public static final String GLOBAL_MEMSTORE_LOWER =
    "hbase.regionserver.global.memstore.size.lower.limit";
  public static final String BLOCK_CACHE = "hfile.block.cache.size";
  public static final String FLUSH_SIZE = "hbase.hregion.memstore.flush.size";
  public static final String BLOCK_MULTIPLIER = "hbase.hregion.memstore.block.multiplier";
  public static final String COMPACTION_THRESHOLD = "hbase.hstore.compactionThreshold";
  public static final String BLOCKING_STORE_FILES = "hbase.hstore.blockingStoreFiles";
  public static final String SPLIT_POLICY = "hbase.regionserver.region.split.policy";
  public static final String MAX_FILESIZE = "hbase.hregion.max.filesize";
  public static final String BLOCKSIZE = "BLOCKSIZE";
  /** Compaction's minimum files, the name CompactionConfiguration reads before the old one. */
  public static final String COMPACTION_MIN = "hbase.hstore.compaction.min";
  /** Compaction's maximum files: raised with the minimum so that minor compactions still run. */
  public static final String COMPACTION_MAX = "hbase.hstore.compaction.max";

  /** HDFS's storage policies (Hadoop 3.4), the values Strata's placement keys take. */
  public static final Set<String> STORAGE_POLICIES = Set.of("HOT", "WARM", "COLD", "ALL_SSD",
    "ONE_SSD", "LAZY_PERSIST", "PROVIDED", "ALL_NVDIMM");

  /** HBase 2.6's region split policies, by simple name. */
  public static final Set<String> SPLIT_POLICIES = Set.of("ConstantSizeRegionSplitPolicy",
    "IncreasingToUpperBoundRegionSplitPolicy", "SteppingSplitPolicy", "KeyPrefixRegionSplitPolicy",
    "DelimitedKeyPrefixRegionSplitPolicy", "DisabledRegionSplitPolicy", "BusyRegionSplitPolicy");

  private static final Map<String, PolicyKey> KEYS = new LinkedHashMap<>();

  static {
    add(HEAP_RAM_FRACTION, Scope.RESTART_ENV, "HBASE_HEAPSIZE", Kind.FRACTION);
    add(PRESPLIT_PER_SERVER, Scope.ADVICE, "pre-split regions", Kind.POSITIVE);
    // The heap shares go to table values that PcmHeapTuner, on the RegionServer, steers toward
    // online; the memstore lower limit is read only at a RegionServer's start.
    add(GLOBAL_MEMSTORE, Scope.TABLE, PcmKeys.TABLE_MEMSTORE_SHARE, Kind.FRACTION);
    add(GLOBAL_MEMSTORE_LOWER, Scope.RESTART_SITE, GLOBAL_MEMSTORE_LOWER, Kind.FRACTION);
    add(BLOCK_CACHE, Scope.TABLE, PcmKeys.TABLE_BLOCKCACHE_SHARE, Kind.FRACTION);
    // Table descriptor values HRegion reads in place of the site keys.
    add(FLUSH_SIZE, Scope.TABLE, "MEMSTORE_FLUSHSIZE", Kind.POSITIVE);
    add(MAX_FILESIZE, Scope.TABLE, "MAX_FILESIZE", Kind.POSITIVE);
    add(SPLIT_POLICY, Scope.TABLE, "SPLIT_POLICY", Kind.SPLIT_POLICY);
    // HRegion reads the multiplier from the site configuration overlaid with the table's values.
    add(BLOCK_MULTIPLIER, Scope.TABLE, BLOCK_MULTIPLIER, Kind.POSITIVE);
    add(COMPACTION_THRESHOLD, Scope.FAMILY_CONFIG, COMPACTION_MIN, Kind.POSITIVE);
    add(BLOCKING_STORE_FILES, Scope.FAMILY_CONFIG, BLOCKING_STORE_FILES, Kind.POSITIVE);
    add(BLOCKSIZE, Scope.FAMILY, BLOCKSIZE, Kind.POSITIVE);
    for (String k : new String[] { "strata.flush.storage.policy",
      "strata.compaction.storage.policy.small", "strata.compaction.storage.policy.large" }) {
      add(k, Scope.FAMILY, k, Kind.STORAGE_POLICY);
    }
  }

  private static void add(String name, Scope scope, String target, Kind kind) {
    KEYS.put(name, new PolicyKey(name, scope, target, kind));
  }

  /** The key named {@code name}, or null when a policy file may not set it. */
  public static PolicyKey of(String name) {
    return KEYS.get(name);
  }

  /** Every key a policy file may set, in a fixed order. */
  public static Iterable<PolicyKey> all() {
    return KEYS.values();
  }

  /**
   * Parses and checks {@code raw} for this key.
   *
   * @throws IllegalArgumentException saying what is wrong
   */
  public PolicyValue parse(String raw) {
    switch (kind) {
      case FRACTION: {
        PolicyValue v = PolicyValue.numeric(raw);
        if (v.form() != PolicyValue.Form.CONST || v.number() <= 0 || v.number() >= 1) {
          throw new IllegalArgumentException("'" + raw + "' must be a fraction above 0 and below 1");
        }
        return v;
      }
      case POSITIVE: {
        PolicyValue v = PolicyValue.numeric(raw);
        if (v.number() <= 0) {
          throw new IllegalArgumentException("'" + raw + "' must be above 0");
        }
        if (name.equals(BLOCKSIZE) && (v.form() != PolicyValue.Form.CONST
          || v.number() < 1024 || v.number() > 16 * 1024 * 1024)) {
          throw new IllegalArgumentException("'" + raw + "' must be a size from 1KB to 16MB "
            + "(HBase's limits on a family's block size)");
        }
        return v;
      }
      case SPLIT_POLICY: {
        String s = raw.trim();
        String simple = s.substring(s.lastIndexOf('.') + 1);
        if (!SPLIT_POLICIES.contains(simple)) {
          throw new IllegalArgumentException("'" + raw + "' is not one of HBase's split policies "
            + SPLIT_POLICIES);
        }
        return PolicyValue.text(s.contains(".") ? s
          : "org.apache.hadoop.hbase.regionserver." + s);
      }
      default: {
        String s = raw.trim();
        if (!STORAGE_POLICIES.contains(s)) {
          throw new IllegalArgumentException("'" + raw + "' is not an HDFS storage policy "
            + STORAGE_POLICIES);
        }
        return PolicyValue.text(s);
      }
    }
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof PolicyKey)) {
      return false;
    }
    PolicyKey o = (PolicyKey) other;
    return Objects.equals(name, o.name)
      && Objects.equals(scope, o.scope)
      && Objects.equals(target, o.target)
      && Objects.equals(kind, o.kind);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, scope, target, kind);
  }

  @Override
  public String toString() {
    return "PolicyKey[name=" + name + ", scope=" + scope + ", target=" + target +
      ", kind=" + kind + "]";
  }
}
