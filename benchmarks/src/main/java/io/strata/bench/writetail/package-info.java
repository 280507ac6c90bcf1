/**
 * {@code strata bench write-tail}: the tail latency of single-row Puts through memstore flushes
 * with HBase 2.x in-memory compaction NONE, BASIC and EAGER, side by side on one embedded tiered
 * cluster. Latencies go into HdrHistogram (brought by YCSB core); the memstore each store runs
 * and its flush and in-memory compaction activity are read from the RegionServer in this JVM.
 */
package io.strata.bench.writetail;
