/**
 * Strata's benchmarks: RPC microbenchmarks and YCSB workloads against the embedded tiered
 * cluster, with the storage-media paper's placement cases. Long experiments live here, not in
 * the test suite.
 *
 * <p>The storage-media paper: <i>Optimize Hadoop Cluster Performance with Various Storage Media</i>.
 */
package io.strata.bench;
