/**
 * Otus-style monitoring of a benchmark run: a sampler that records, at a fixed interval, the
 * machine's CPU, disk and network counters from {@code /proc} and the RegionServers' metrics over
 * their {@code /jmx} servlets (memstore, flush and compaction queues, store files, blocked
 * updates, GC time), with the run's phases marked on the same time axis; the timeline goes to
 * the bench's results.json and to a PNG with one panel per kind of metric.
 */
package io.strata.bench.monitor;
