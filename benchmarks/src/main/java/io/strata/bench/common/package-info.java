/**
 * What every bench shares: its charts ({@link io.strata.bench.common.Charts}), its latency
 * percentiles ({@link io.strata.bench.common.Latencies}) and the median of repeated runs'
 * figures ({@link io.strata.bench.common.Median}).
 */
package io.strata.bench.common;
