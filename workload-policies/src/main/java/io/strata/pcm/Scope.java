package io.strata.pcm;

/**
 * Where a policy setting takes effect, the narrowest HBase 2.6 allows without a restart.
 */
public enum Scope {
  /** A table descriptor value, applied by {@code Admin#modifyTable} (the regions reopen). */
  TABLE,
  /** A column-family attribute (BLOCKSIZE, Strata placement keys), by {@code modifyTable}. */
  FAMILY,
  /**
   * A key in each family's CONFIGURATION map, by {@code modifyTable}: HBase merges it over the
   * site configuration when a store opens (StoreUtils.createStoreConfiguration).
   */
  FAMILY_CONFIG,
  /**
   * A RegionServer-wide site key HBase reads only at start (heap fractions): written to the plan's
   * site-file change with a rolling restart; never applied by the executor.
   */
  RESTART_SITE,
  /** The RegionServer heap (HBASE_HEAPSIZE in hbase-env.sh): a rolling restart, as above. */
  RESTART_ENV,
  /** Advice on the table's layout (pre-split region count): reported, not applied. */
  ADVICE
}
