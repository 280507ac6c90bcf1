package io.strata.hbase.tiering;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.regionserver.DefaultStoreEngine;
import org.apache.hadoop.hbase.regionserver.StoreEngine;

/**
 * Which store engine a column family runs, resolved as HBase resolves
 * {@code hbase.hstore.engine.class} for a store (the family's value, else the table's, else the
 * site's, else {@link DefaultStoreEngine}), and whether that engine applies Strata's placement.
 * A family that names another engine (upstream's date-tiered or stripe engine, or a custom one)
 * on a site that runs {@link TieredStoreEngine} gets none of Strata's placement: HBase builds the
 * family's engine alone, so nothing of Strata runs for its files. The validator warns of it and
 * the placement report names each family's engine. Pure logic; thread-safe.
 */
public final class StoreEngines {
  /** Upstream's key naming a store's engine (site, table or family). */
  public static final String KEY = StoreEngine.STORE_ENGINE_CLASS_KEY;

  private StoreEngines() {
  }

  /** The engine class a store of this family runs; {@code table} and {@code family} may be null. */
  public static String engineOf(Configuration site, TableDescriptor table,
    ColumnFamilyDescriptor family) {
    String v = family == null ? null : trimmed(family.getConfigurationValue(KEY));
    if (v == null && table != null) {
      v = trimmed(table.getValue(KEY));
    }
    if (v == null && site != null) {
      v = trimmed(site.get(KEY));
    }
    return v == null ? DefaultStoreEngine.class.getName() : v;
  }

  /** The site's engine: what every family runs unless its table or itself names another. */
  public static String siteEngine(Configuration site) {
    return engineOf(site, null, null);
  }

  /**
   * Whether an engine class applies Strata's placement: {@link TieredStoreEngine},
   * {@link TieredDateTieredStoreEngine} or a subclass ({@link PlacingStoreEngine}).
   * A class that cannot be loaded here does not (HBase cannot open such a store either).
   */
  public static boolean places(String engineClass) {
    if (engineClass == null) {
      return false;
    }
    if (TieredStoreEngine.class.getName().equals(engineClass)) {
      return true;
    }
    try {
      Class<?> c = Class.forName(engineClass, false, StoreEngines.class.getClassLoader());
      return PlacingStoreEngine.class.isAssignableFrom(c);
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /**
   * Why Strata's placement is off for this family although the site runs a placing engine, or
   * null when it is not (the family's engine places, or the site's engine does not place either,
   * in which case Strata's placement is not configured and nothing is lost unawares).
   */
  public static String placementOffReason(Configuration site, TableDescriptor table,
    ColumnFamilyDescriptor family) {
    String siteEngine = siteEngine(site);
    if (!places(siteEngine)) {
      return null;
    }
    String engine = engineOf(site, table, family);
    if (places(engine)) {
      return null;
    }
    String level = family != null && trimmed(family.getConfigurationValue(KEY)) != null
      ? "the family's" : "the table's";
    return "its store engine is " + engine + " (" + level + " " + KEY + "), not "
      + "one of Strata's placing engines as on this site (" + siteEngine
      + "): HBase runs that engine alone, so Strata pins no storage policy on its flushed, "
      + "compacted, archived or bulk-loaded files; they take their directories' policies "
      + "(upstream's STORAGE_POLICY, or the HDFS default)";
  }

  private static String trimmed(String v) {
    if (v == null) {
      return null;
    }
    v = v.trim();
    return v.isEmpty() ? null : v;
  }
}
