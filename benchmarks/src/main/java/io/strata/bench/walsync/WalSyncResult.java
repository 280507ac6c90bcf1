package io.strata.bench.walsync;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What {@code strata bench wal-sync} measured, as {@code --json} and {@code --out} write it. The
 * JSON field names are the {@code @JsonProperty} names, kept as the bench has always written them
 * (WalSyncBenchIT and docs/benchmarks/wal-sync.md hold them); the report is rendered from this
 * record. Labelled as every result (io.strata.bench.common.RunLabels), the command between the
 * commit and the date as the kept run has it; the date is the moment the run ended, to the
 * nanosecond, and the transport {@code none}: the bench writes through HDFS, no HBase RPC.
 */
record WalSyncResult(@JsonProperty("commit") String commit,
  @JsonProperty("command") String command, @JsonProperty("date") String date,
  @JsonProperty("transport") String transport, @JsonProperty("emulation") String emulation,
  @JsonProperty("entries_per_cell") int entries, @JsonProperty("entry_bytes") int entryBytes,
  @JsonProperty("rounds") int rounds, @JsonProperty("ram_tier_fs") String ramTierFs,
  @JsonProperty("durability") Map<String, String> durability,
  @JsonProperty("policies") Map<String, Map<String, Cell>> policies) {

  /** One policy and mode: latencies over every round, and where its files' replicas were. */
  record Cell(@JsonProperty("ops") long ops, @JsonProperty("p50_us") long p50Us,
    @JsonProperty("p99_us") long p99Us, @JsonProperty("p999_us") long p999Us,
    @JsonProperty("max_us") long maxUs, @JsonProperty("round_p50_us") List<Long> roundP50Us,
    @JsonProperty("replicas") Map<String, Long> replicas,
    @JsonProperty("as_policy") boolean asPolicy) {
  }

  /** The report: how it was measured, then one table row per policy and sync mode. */
  static String markdown(WalSyncResult r) {
    StringBuilder b = new StringBuilder();
    b.append("# WAL sync latency and durability per WAL placement\n\n");
    b.append("Command: `").append(r.command()).append("` (").append(r.date()).append("). ")
      .append(r.entries()).append(" appends of ").append(r.entryBytes())
      .append(" bytes per policy, mode and round, ").append(r.rounds())
      .append(" rounds with the policies' order rotated; one embedded HDFS of 3 DataNodes, 3 "
        + "replicas; RAM tier on ").append(r.ramTierFs()).append(", SSD and DISK directories "
        + "on the machine's own disk (media emulation: ").append(r.emulation())
      .append(", so SSD and DISK differ only by what the file system does with them). Latency "
        + "is append+sync as the WAL writer sees it.\n\n");
    b.append("| policy | sync | p50 µs | p99 µs | p99.9 µs | max µs | p50 per round µs | "
      + "replicas by type | durability |\n|---|---|---:|---:|---:|---:|---|---|---|\n");
    r.policies().forEach((p, modes) -> modes.forEach((m, c) -> b.append(String.format(
      Locale.ROOT, "| %s | %s | %d | %d | %d | %d | %s | %s%s | %s |%n", p, m, c.p50Us(),
      c.p99Us(), c.p999Us(), c.maxUs(), c.roundP50Us(), c.replicas(),
      c.asPolicy() ? "" : " **not where the policy puts them: not this policy's latency**",
      r.durability().get(p)))));
    return b.toString();
  }
}
