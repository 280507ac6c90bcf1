/**
 * YCSB against HBase 2.6: Strata's own binding ({@link io.strata.bench.ycsb.HBaseClient26}),
 * YCSB's workload files, the table helper and a runner that starts YCSB in its own JVM and
 * parses its report.
 */
package io.strata.bench.ycsb;
