package io.strata.bench.dnlocks;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import io.strata.bench.common.RunLabels;
import java.io.File;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What {@code strata bench dn-locks} measured, as {@code --json} writes it: the settings, each
 * variant's {@link Variant} (as its JVM wrote it) and the monitoring timeline. The JSON field
 * names are the {@code @JsonProperty} names, kept as the bench has always written them
 * (DnLocksBenchIT and docs/benchmarks/dn-locks.md hold them); the console table is rendered from
 * this record. Labelled first (commit, date, transport, emulation: see
 * io.strata.bench.common.RunLabels); the transport is {@code none}: the bench drives a DataNode's
 * dataset directly, no HBase RPC.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
record DnLocksResult(@JsonProperty("commit") String commit, @JsonProperty("date") String date,
  @JsonProperty("transport") String transport, @JsonProperty("emulation") String emulation,
  @JsonProperty("settings") Recorded settings,
  @JsonProperty(DnLocksWorkload.UPSTREAM) Variant upstream,
  @JsonProperty(DnLocksWorkload.STRATA) Variant strata,
  @JsonProperty("monitoring") JsonNode monitoring) {

  /** The result labelled with {@code labels}, its parts as measured. */
  static DnLocksResult of(RunLabels labels, Recorded settings, Variant upstream, Variant strata,
    JsonNode monitoring) {
    return new DnLocksResult(labels.commit(), labels.date(), labels.transport(),
      labels.emulation(), settings, upstream, strata, monitoring);
  }

  /** The same result with the monitoring timeline. */
  DnLocksResult monitored(JsonNode timeline) {
    return new DnLocksResult(commit, date, transport, emulation, settings, upstream, strata,
      timeline);
  }

  /** The settings a run had. */
  record Recorded(@JsonProperty("delay_ms") long delayMs,
    @JsonProperty("seconds_per_load") long secondsPerLoad,
    @JsonProperty("volumes") String volumes,
    @JsonProperty("loads") Map<String, Threads> loads) {
  }

  /** The threads of a load level. */
  record Threads(@JsonProperty("disk_writers") int diskWriters,
    @JsonProperty("ram_writers") int ramWriters,
    @JsonProperty("ram_transfers") int ramTransfers) {
    static Threads of(DnLocksWorkload.Load l) {
      return new Threads(l.slowWriters(), l.fastWriters(), l.transfers());
    }
  }

  /**
   * One variant, as its JVM writes it: where its FsDatasetImpl came from, the worst RAM volume
   * createRbw/finalizeBlock wait over its loads, and each load level.
   */
  record Variant(@JsonProperty("variant") String variant,
    @JsonProperty("fsdataset_impl_from") String fsDatasetImplFrom,
    @JsonProperty("patched") boolean patched,
    @JsonProperty("fast_wait_ms_p99") double fastWaitMsP99,
    @JsonProperty("fast_wait_ms_max") double fastWaitMsMax,
    @JsonProperty("loads") Map<String, Load> loads) {
  }

  /** One load level: its threads, what went wrong, and per volume and operation the times. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  record Load(@JsonProperty("threads") Threads threads, @JsonProperty("seconds") double seconds,
    @JsonProperty("slow_volume_delayed_ops") long slowVolumeDelayedOps,
    @JsonProperty("gc_ms") long gcMs, @JsonProperty("errors") int errors,
    @JsonProperty("first_error") String firstError,
    @JsonProperty("fast_wait_ms_p99") double fastWaitMsP99,
    @JsonProperty("fast_wait_ms_max") double fastWaitMsMax,
    @JsonProperty("ops") Map<String, Map<String, Op>> ops) {
  }

  /** One operation on one volume (ms); all 0 when it never ran. */
  record Op(@JsonProperty("count") int count, @JsonProperty("wait_ms_p50") double waitMsP50,
    @JsonProperty("wait_ms_p99") double waitMsP99, @JsonProperty("wait_ms_max") double waitMsMax,
    @JsonProperty("exec_ms_p50") double execMsP50, @JsonProperty("exec_ms_p99") double execMsP99,
    @JsonProperty("exec_ms_max") double execMsMax) {
  }

  /** The settings of a run of {@code delayMs} and {@code seconds} per load. */
  static Recorded recorded(long delayMs, long seconds) {
    Map<String, Threads> loads = new java.util.LinkedHashMap<>();
    for (DnLocksWorkload.Load l : DnLocksWorkload.LOADS) {
      loads.put(l.name(), Threads.of(l));
    }
    return new Recorded(delayMs, seconds, "DISK (slowed), NVDIMM (RAM tier, tmpfs)", loads);
  }

  /** The variants in the order they ran. */
  List<Variant> variants() {
    return List.of(upstream, strata);
  }

  /** The console table: per variant, load, volume and operation; then each variant's summary. */
  static String table(DnLocksResult r) {
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT, "%-9s %-6s %-5s %-16s %7s %10s %10s %10s %10s %10s%n",
      "variant", "load", "vol", "operation", "ops", "wait p50", "wait p99", "wait max",
      "exec p99", "exec max"));
    for (Variant v : r.variants()) {
      v.loads().forEach((load, l) -> l.ops().forEach((vol, ops) -> ops.forEach((op, o) ->
        sb.append(String.format(Locale.ROOT,
          "%-9s %-6s %-5s %-16s %7d %10.2f %10.2f %10.2f %10.2f %10.2f%n", v.variant(), load,
          vol.equals(DnLocksWorkload.FAST) ? "RAM" : "DISK", op, o.count(), o.waitMsP50(),
          o.waitMsP99(), o.waitMsMax(), o.execMsP99(), o.execMsMax())))));
    }
    sb.append("(ms; wait: call to its first file operation, after its locks; exec: from there to "
      + "its return)\n");
    for (Variant v : r.variants()) {
      StringBuilder perLoad = new StringBuilder();
      v.loads().forEach((load, l) -> {
        perLoad.append(String.format(Locale.ROOT, "; %s p99 %.2f max %.2f (GC %d ms)", load,
          l.fastWaitMsP99(), l.fastWaitMsMax(), l.gcMs()));
        if (l.errors() > 0) {
          perLoad.append(" (").append(l.errors()).append(" failed operations: ")
            .append(l.firstError()).append(')');
        }
      });
      sb.append(String.format(Locale.ROOT, "%-9s RAM createRbw+finalizeBlock wait ms: p99 %.2f "
          + "max %.2f%s  [FsDatasetImpl from %s]%n", v.variant(), v.fastWaitMsP99(),
        v.fastWaitMsMax(), perLoad, new File(v.fsDatasetImplFrom()).getName()));
    }
    return sb.toString();
  }
}
