package io.strata.hbase.tiering;

import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.RegionObserver;
import org.apache.hadoop.hbase.regionserver.Region;
import org.apache.hadoop.hbase.regionserver.Store;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One WARN per store a RegionServer opens whose engine applies none of Strata's placement
 * ({@link StoreEngines#placementOffReason}) on a site that runs a placing engine: the operator
 * reading a RegionServer's log learns which stores' files are not tiered and why, not only the
 * one reading the master's log when the table was created (the validator says it there). Loaded
 * with {@code hbase.coprocessor.region.classes}; it only reads the region's descriptors.
 */
public class PlacementOffWarning implements RegionCoprocessor, RegionObserver {
  private static final Logger LOG = LoggerFactory.getLogger(PlacementOffWarning.class);

  /**
   * The site files, read once per RegionServer (at the first table that names an engine), not at
   * each region's open: HBase makes one instance of a region coprocessor per region.
   */
  private static final class SiteFiles {
    static final Configuration CONF = HBaseConfiguration.create();
  }

  @Override
  public Optional<RegionObserver> getRegionObserver() {
    return Optional.of(this);
  }

  @Override
  public void postOpen(ObserverContext<RegionCoprocessorEnvironment> c) {
    Region region = c.getEnvironment().getRegion();
    // The reason compares the site's engine with the one this family runs. The region's
    // configuration carries its table's values over the site's: when the table names an engine,
    // the site's is read from the site files the RegionServer loaded.
    Configuration site = region.getTableDescriptor().getValue(StoreEngines.KEY) == null
      ? c.getEnvironment().getConfiguration() : SiteFiles.CONF;
    for (Store store : region.getStores()) {
      String why = StoreEngines.placementOffReason(site, region.getTableDescriptor(),
        store.getColumnFamilyDescriptor());
      if (why != null) {
        LOG.warn("Store {} of region {} (table {}, family {}): Strata's placement is off, {}; "
          + "to tier it, give the family one of Strata's engines (e.g. {} for date-tiered "
          + "compaction, {} for stripes)", store.getColumnFamilyName(),
          region.getRegionInfo().getEncodedName(), region.getTableDescriptor().getTableName(),
          store.getColumnFamilyName(), why, TieredDateTieredStoreEngine.class.getName(),
          TieredStripeStoreEngine.class.getName());
      }
    }
  }
}
