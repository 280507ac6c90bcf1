/**
 * {@code strata bench write-tail}: the tail latency of single-row Puts through memstore flushes
 * with HBase 2.x in-memory compaction NONE, BASIC and EAGER, side by side on one embedded tiered
 * cluster, optionally under the write-tail study's RegionServer settings, with pre-split tables
 * and an off-heap memstore variant (in a JVM of its own). Latencies go into HdrHistogram (brought
 * by YCSB core), whole-run and per second; the memstore each store runs, its flush and in-memory
 * compaction activity and its off-heap bytes are read from the RegionServer in this JVM.
 */
package io.strata.bench.writetail;
