package io.strata.hbase.tiering;

import io.strata.compat.VersionCheck;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.util.StringUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Configuration keys of Strata's tiered placement. Each can be set in hbase-site.xml, on a table
 * or on a column family ({@code alter 't', {NAME => 'cf', CONFIGURATION => {KEY => VALUE}}}); the
 * narrowest wins, and upstream's explicit per-family {@code STORAGE_POLICY} wins over Strata's site
 * values and defaults: see {@link TierPolicies} for the whole precedence, which is also where the
 * policy keys and the threshold are read at their levels. Values are HDFS storage policy names.
 * Each key is declared once here with its default; {@link #requestMoves} and
 * {@link #compactionThresholdBytes} check values. Stateless: safe from any thread.
 */
public final class TieringKeys {
  private static final Logger LOG = LoggerFactory.getLogger(TieringKeys.class);

  private TieringKeys() {
  }

  /**
   * The store engine that places flushed and compacted HFiles and moves archived ones:
   * {@code hbase.hstore.engine.class = io.strata.hbase.tiering.TieredStoreEngine}.
   */
  public static final String ENGINE_CLASS = "io.strata.hbase.tiering.TieredStoreEngine";

  /** Policy pinned on every flushed HFile. Default {@value #FLUSH_POLICY_DEFAULT}. */
  public static final String FLUSH_POLICY = "strata.flush.storage.policy";
  public static final String FLUSH_POLICY_DEFAULT = "ALL_SSD";

  /**
   * Policy of a compaction whose input is below {@link #COMPACTION_THRESHOLD}.
   * Default {@value #COMPACTION_SMALL_POLICY_DEFAULT}.
   */
  public static final String COMPACTION_SMALL_POLICY = "strata.compaction.storage.policy.small";
  public static final String COMPACTION_SMALL_POLICY_DEFAULT = "ALL_SSD";

  /** Policy of a larger compaction. Default {@value #COMPACTION_LARGE_POLICY_DEFAULT}. */
  public static final String COMPACTION_LARGE_POLICY = "strata.compaction.storage.policy.large";
  public static final String COMPACTION_LARGE_POLICY_DEFAULT = "HOT";

  /**
   * Bytes of compaction input (the sum of the compacted files, an upper bound of the output)
   * from which a compaction is large. Default 1.5 GiB, the split of
   * <i>Optimize Hadoop Cluster Performance with Various Storage Media</i>.
   */
  public static final String COMPACTION_THRESHOLD = "strata.compaction.size.threshold";
  public static final long COMPACTION_THRESHOLD_DEFAULT = 1536L << 20;

  /**
   * A {@link #COMPACTION_THRESHOLD} value, from whichever level {@link TierPolicies} found it on,
   * in bytes: a number of bytes, or one with a binary prefix such as {@code 1536m}; -1 when it is
   * not a size of 0 or more. The caller reports a bad value and uses the default: it is read where
   * a store opens, which it must not stop.
   */
  public static long compactionThresholdBytes(String value) {
    long bytes;
    try {
      bytes = StringUtils.TraditionalBinaryPrefix.string2long(value);
    } catch (IllegalArgumentException e) {
      return -1;
    }
    return bytes < 0 ? -1 : bytes;
  }

  /**
   * Policy of HFiles HBase archives after compacting them away; their blocks are moved there.
   * Default {@value #ARCHIVE_POLICY_DEFAULT}.
   */
  public static final String ARCHIVE_POLICY = "strata.archive.storage.policy";
  public static final String ARCHIVE_POLICY_DEFAULT = "COLD";

  /**
   * Policy of HFiles handed to a store by a bulk load ({@code BulkLoadHFiles}); the store engine
   * pins it on each file once the region has taken it in and has its blocks moved there (a bulk
   * load renames files written elsewhere, so their blocks start wherever the loading tool wrote
   * them). Bulk loads are usually large imports read later, so by default they go to disk.
   * Default {@value #BULKLOAD_POLICY_DEFAULT}.
   */
  public static final String BULKLOAD_POLICY = "strata.bulkload.storage.policy";
  public static final String BULKLOAD_POLICY_DEFAULT = "HOT";

  /**
   * The age at which a store file's data moves to {@link #AGE_POLICY}: the age of the file's
   * newest cell (now minus the newest timestamp in the file's own {@code TIMERANGE} metadata).
   * A RegionServer's age chore ({@code AgeMover}) pins the policy on each store file that reached
   * it and asks the Storage Policy Satisfier to move its blocks, without waiting for a compaction
   * to rewrite it. Family, table or site; {@value #AGE_THRESHOLD_DEFAULT} (default) turns the
   * rule off; otherwise a duration: a number of milliseconds or one with a unit, {@code ms},
   * {@code s}, {@code m}, {@code h} or {@code d} (e.g. {@code 30d}). Read by
   * {@link #ageThresholdMs}.
   */
  public static final String AGE_THRESHOLD = "strata.age.threshold";
  public static final String AGE_THRESHOLD_DEFAULT = "off";
  /** {@link #ageThresholdMs}'s value for a rule that is off. */
  public static final long AGE_OFF = -1;

  /**
   * Policy of store files (flushed, compacted, bulk-loaded) whose newest cell is older than
   * {@link #AGE_THRESHOLD}. Default {@value #AGE_POLICY_DEFAULT}, as archived files.
   */
  public static final String AGE_POLICY = "strata.age.storage.policy";
  public static final String AGE_POLICY_DEFAULT = "COLD";

  /**
   * Milliseconds between two passes of a RegionServer's age chore over its stores (site-wide).
   * Default {@value #AGE_INTERVAL_MS_DEFAULT}.
   */
  public static final String AGE_INTERVAL_MS = "strata.tiering.age.interval.ms";
  public static final long AGE_INTERVAL_MS_DEFAULT = 60_000;

  /**
   * Bytes of aged store files per second a RegionServer hands to the Storage Policy Satisfier at
   * most (site-wide), so that turning the rule on over years of data does not flood the disks
   * and the satisfier. A file larger than what is left of a pass's share still goes, and the
   * next passes wait for the excess. Default {@value #AGE_BYTES_PER_SECOND_DEFAULT} (64 MiB/s).
   */
  public static final String AGE_BYTES_PER_SECOND = "strata.tiering.age.bytes.per.second";
  public static final long AGE_BYTES_PER_SECOND_DEFAULT = 64L << 20;

  /**
   * An {@link #AGE_THRESHOLD} value in milliseconds: {@link #AGE_OFF} for null, empty or
   * {@code off}; else a positive duration (a number of milliseconds, or with a unit {@code ms},
   * {@code s}, {@code m}, {@code h}, {@code d}).
   *
   * @throws IllegalArgumentException naming the key, the value and what is accepted
   */
  public static long ageThresholdMs(String value) {
    if (value == null || value.trim().isEmpty()
      || AGE_THRESHOLD_DEFAULT.equalsIgnoreCase(value.trim())) {
      return AGE_OFF;
    }
    String v = value.trim().toLowerCase(Locale.ROOT);
    long unit = 1;
    String number = v;
    String[][] units = { { "ms", "1" }, { "s", "1000" }, { "m", "60000" }, { "h", "3600000" },
      { "d", "86400000" } };
    for (String[] u : units) {
      if (v.endsWith(u[0])) {
        number = v.substring(0, v.length() - u[0].length()).trim();
        unit = Long.parseLong(u[1]);
        break;
      }
    }
    long n;
    try {
      n = Long.parseLong(number);
    } catch (NumberFormatException e) {
      n = -1;
    }
    if (n <= 0 || n > Long.MAX_VALUE / unit) {
      throw new IllegalArgumentException(AGE_THRESHOLD + " = '" + value.trim() + "' is not "
        + AGE_THRESHOLD_DEFAULT + " or a positive duration (milliseconds, or a number with ms, s, "
        + "m, h or d, e.g. 30d)");
    }
    return n * unit;
  }

  /**
   * {@link #AGE_INTERVAL_MS}; a value that is not a positive number is logged with the key and
   * the default used: it is read where a RegionServer starts its chore, which must not stop it.
   */
  public static long ageIntervalMs(Configuration conf) {
    return positiveLong(conf, AGE_INTERVAL_MS, AGE_INTERVAL_MS_DEFAULT);
  }

  /** {@link #AGE_BYTES_PER_SECOND}; a bad value is logged with the key and the default used. */
  public static long ageBytesPerSecond(Configuration conf) {
    return positiveLong(conf, AGE_BYTES_PER_SECOND, AGE_BYTES_PER_SECOND_DEFAULT);
  }

  private static long positiveLong(Configuration conf, String key, long dflt) {
    String v = conf.getTrimmed(key);
    if (v == null || v.isEmpty()) {
      return dflt;
    }
    try {
      long n = StringUtils.TraditionalBinaryPrefix.string2long(v);
      if (n > 0) {
        return n;
      }
    } catch (IllegalArgumentException e) {
      // reported below
    }
    LOG.warn("{} = '{}' is not a positive number; using {}", key, v, dflt);
    return dflt;
  }

  /**
   * Policy of rolled WALs in oldWALs/; their blocks are moved there after the rename.
   * Default {@value #OLDWAL_POLICY_DEFAULT}. (Live WALs use upstream's
   * {@code hbase.wal.storage.policy}.)
   */
  public static final String OLDWAL_POLICY = "strata.oldwal.storage.policy";
  public static final String OLDWAL_POLICY_DEFAULT = "HOT";

  /**
   * The value Strata ships for upstream's {@code hbase.wal.storage.policy} (live WALs,
   * {@code recovered.edits}, the meta and master-region WALs; upstream's default is
   * {@code NONE}): one replica on the RAM tier, the others on SSD, so that acknowledged edits
   * survive a reboot of every host holding a WAL block. The NameNode defines it
   * ({@code strata.storage.policies}, the HDFS overlay's configured policies).
   */
  public static final String WAL_POLICY_DEFAULT = "RAM_SSD";

  /**
   * The operator's declaration that the NVDIMM (and RAM_DISK) volumes of every DataNode are
   * persistent memory, e.g. NVDIMM or PMEM on a DAX mount, not tmpfs or ramfs. With it, a WAL
   * policy on those types counts as durable. {@code strata ramdisk} prints what a directory's
   * mount is. Default {@value #RAM_TIER_PERSISTENT_DEFAULT}: Strata's RAM tier is tmpfs, lost on
   * reboot.
   */
  public static final String RAM_TIER_PERSISTENT = "strata.ram.tier.persistent";
  public static final boolean RAM_TIER_PERSISTENT_DEFAULT = false;

  /**
   * Accepts a live-WAL policy that keeps fewer than two replicas on non-volatile storage (e.g.
   * {@code ALL_NVDIMM} on tmpfs): acknowledged edits not yet flushed are lost when the hosts
   * holding a WAL's replicas reboot. Without it such a policy stops the RegionServer and the
   * master at start; with it they start and log a warning at every start. Default
   * {@value #UNSAFE_WAL_VOLATILE_ACCEPT_DEFAULT}.
   */
  public static final String UNSAFE_WAL_VOLATILE_ACCEPT = "strata.unsafe.wal.volatile.accept";
  public static final boolean UNSAFE_WAL_VOLATILE_ACCEPT_DEFAULT = false;

  /** {@link #RAM_TIER_PERSISTENT}; a value other than true or false is an error naming the key. */
  public static boolean ramTierPersistent(Configuration conf) {
    return strictBoolean(conf, RAM_TIER_PERSISTENT, RAM_TIER_PERSISTENT_DEFAULT);
  }

  /**
   * {@link #UNSAFE_WAL_VOLATILE_ACCEPT}; a value other than true or false is an error naming the
   * key (a typo must not be read as either answer).
   */
  public static boolean unsafeWalVolatileAccept(Configuration conf) {
    return strictBoolean(conf, UNSAFE_WAL_VOLATILE_ACCEPT, UNSAFE_WAL_VOLATILE_ACCEPT_DEFAULT);
  }

  private static boolean strictBoolean(Configuration conf, String key, boolean dflt) {
    Boolean b = parsedBoolean(conf, key);
    return b == null ? dflt : b;
  }

  /** The key's true or false, null when unset; anything else is an error naming the key. */
  private static Boolean parsedBoolean(Configuration conf, String key) {
    String v = conf.getTrimmed(key);
    if (v == null || v.isEmpty()) {
      return null;
    }
    switch (v.toLowerCase(Locale.ROOT)) {
      case "true":
        return true;
      case "false":
        return false;
      default:
        throw new IllegalArgumentException(key + " = '" + v + "' is not true or false");
    }
  }


  /**
   * Whether HBase itself asks the Storage Policy Satisfier to move the blocks of an HFile or WAL it
   * archives. Set it to false where a tier mover ({@code strata tier-mover}) follows the
   * namespace's renames: it moves them without HBase's help. The archive policy is pinned on the
   * file either way. Files the store engine pins after their blocks were written (while the
   * NameNode did not answer) are always handed to the Storage Policy Satisfier: no rename follows
   * for a tier mover to see. Default {@value #REQUEST_MOVES_DEFAULT}.
   */
  public static final String REQUEST_MOVES = "strata.tiering.request.moves";
  public static final boolean REQUEST_MOVES_DEFAULT = true;

  /**
   * Whether a store that opens places the files written while the NameNode did not answer
   * (their file info names the policy they were to get) that still have no storage policy of
   * their own: their RegionServer stopped before the NameNode answered again (what a RegionServer
   * still running keeps in its placement queue is placed without this). The RegionServer's
   * placement queue lists the family directory once, in the background, only for a store that
   * has such files. Other files are left alone (an {@code alter} is {@code strata migrate}'s
   * business). Default {@value #CHECK_ON_OPEN_DEFAULT}.
   */
  public static final String CHECK_ON_OPEN = "strata.tiering.check.on.open";
  public static final boolean CHECK_ON_OPEN_DEFAULT = true;

  /**
   * {@link #CHECK_ON_OPEN}. A value other than true or false is logged with the key and the
   * default used instead: it is read where a store opens, which it must not stop.
   */
  public static boolean checkOnOpen(Configuration conf) {
    return bool(conf, CHECK_ON_OPEN, CHECK_ON_OPEN_DEFAULT);
  }

  /**
   * {@link #REQUEST_MOVES}. A value other than true or false is logged with the key and the
   * default used instead: it is read where a store opens, which it must not stop.
   */
  public static boolean requestMoves(Configuration conf) {
    return bool(conf, REQUEST_MOVES, REQUEST_MOVES_DEFAULT);
  }

  private static boolean bool(Configuration conf, String key, boolean dflt) {
    try {
      return strictBoolean(conf, key, dflt);
    } catch (IllegalArgumentException e) {
      LOG.warn("{}; using {}", e.getMessage(), dflt);
      return dflt;
    }
  }

  /**
   * What Strata's HBase-side plug-ins (the tiered store engines' placement, the master's
   * {@code TieringValidator}, the RegionServers' {@code WalDurabilityGuard}, the WAL coprocessor
   * {@code OldWalTiering}) do when the running
   * HBase or Hadoop is not the release they are built for
   * ({@link io.strata.compat.SupportedVersions}): {@code strict} (default) refuses to start,
   * naming the plug-in and both versions; {@code warn} starts on the untested version and logs a
   * WARN at every start. Site-wide (hbase-site.xml); checked once per process.
   */
  public static final String VERSION_CHECK = VersionCheck.KEY;
  public static final String VERSION_CHECK_DEFAULT = VersionCheck.KEY_DEFAULT;

  /** {@link #VERSION_CHECK}: {@code strict} or {@code warn}, any other value refused. */
  public static VersionCheck.Mode versionCheck(Configuration conf) {
    return VersionCheck.mode(conf.getTrimmed(VERSION_CHECK));
  }
}
