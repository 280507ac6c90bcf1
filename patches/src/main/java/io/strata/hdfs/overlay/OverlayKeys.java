package io.strata.hdfs.overlay;

/**
 * Configuration keys read by the patched Hadoop classes of the overlay, with their defaults. Each
 * is listed in docs/configuration.md.
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
}
