package io.strata.hdfs.overlay;

import io.strata.compat.VersionCheck;
import org.apache.hadoop.conf.Configuration;

/**
 * Configuration keys read by the patched Hadoop classes of the overlay, with their defaults. Each
 * is listed in docs/configuration.md; {@link #versionCheck} validates its key.
 */
public final class OverlayKeys {
  private OverlayKeys() {
  }

  /**
   * NameNode: comma-separated names of storage policies defined in configuration, added to HDFS's
   * built-in ones. Default empty. Each name {@code N} needs the keys below with {@code <NAME>}
   * replaced by {@code N}.
   */
  public static final String STORAGE_POLICIES = "strata.storage.policies";

  /** Prefix of a configured policy's keys: {@code strata.storage.policy.<NAME>.}. */
  public static final String STORAGE_POLICY_PREFIX = "strata.storage.policy.";

  /**
   * Required: the policy's id, 1..15 and not a built-in one's (free in Hadoop 3.4.2: 3, 4, 6, 8,
   * 9, 11, 13). It is stored in the namespace with every file and directory using the policy, so
   * it must never change once used.
   */
  public static final String ID_SUFFIX = ".id";

  /**
   * Required: the storage types of a block's replicas in order, e.g. {@code NVDIMM,SSD,SSD}; the
   * last one repeats for higher replication.
   */
  public static final String STORAGE_TYPES_SUFFIX = ".storage-types";

  /** Storage types tried when a new block's types are full. Default none. */
  public static final String CREATION_FALLBACKS_SUFFIX = ".creation-fallbacks";

  /** Storage types tried when re-replicating and the types are full. Default none. */
  public static final String REPLICATION_FALLBACKS_SUFFIX = ".replication-fallbacks";

  /**
   * What the overlay's helpers do when the running Hadoop is not the release whose sources the
   * overlay's classes were patched from ({@link io.strata.compat.SupportedVersions#HADOOP}):
   * {@code strict} (default) stops the NameNode as it loads the configured storage policies,
   * naming both versions; {@code warn} starts on the untested version and logs a WARN at every
   * start. Checked once per process.
   */
  public static final String VERSION_CHECK = VersionCheck.KEY;
  public static final String VERSION_CHECK_DEFAULT = VersionCheck.KEY_DEFAULT;

  /** {@link #VERSION_CHECK}: {@code strict} or {@code warn}, any other value refused. */
  public static VersionCheck.Mode versionCheck(Configuration conf) {
    return VersionCheck.mode(conf.getTrimmed(VERSION_CHECK));
  }
}
