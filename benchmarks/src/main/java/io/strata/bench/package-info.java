/**
 * Strata's benchmarks: JMH microbenchmarks and YCSB workloads against the embedded tiered
 * cluster, with the storage-media study's placement cases. Long experiments live here, not in
 * the test suite.
 */
package io.strata.bench;
