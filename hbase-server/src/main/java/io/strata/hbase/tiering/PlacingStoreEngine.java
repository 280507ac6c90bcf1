package io.strata.hbase.tiering;

/**
 * Marks a store engine that applies Strata's placement ({@link StorePlacement}); a family whose
 * engine is not one gets none of it ({@link StoreEngines}).
 */
public interface PlacingStoreEngine {
}
