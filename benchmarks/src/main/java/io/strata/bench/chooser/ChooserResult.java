package io.strata.bench.chooser;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import io.strata.bench.common.RunLabels;
import io.strata.hdfs.HdfsKeys;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What {@code strata bench chooser} found, as {@code --json} writes it: the run's settings, per
 * policy where the blocks went and how fast, the cost of a latency probe, the monitoring
 * timeline. The JSON field names are the {@code @JsonProperty} names (kept as the bench has
 * always written them; ChooserResultJsonTest holds them); the console table is rendered from this
 * record. Labelled first (commit, date, transport, emulation: see
 * io.strata.bench.common.RunLabels); the transport is {@code none}: the bench writes HDFS files
 * through one DataNode, no HBase RPC.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
record ChooserResult(@JsonProperty("commit") String commit, @JsonProperty("date") String date,
  @JsonProperty("transport") String transport, @JsonProperty("emulation") String emulation,
  @JsonProperty("settings") Recorded settings,
  @JsonProperty("policies") Map<String, Policy> policies, @JsonProperty("probe") Probe probe,
  @JsonProperty("monitoring") JsonNode monitoring) {

  /** The settings a run had, with the chooser's keys at their defaults. */
  record Recorded(@JsonProperty("volumes") int volumes,
    @JsonProperty("storage_type") String storageType,
    @JsonProperty("slow_volume_index") int slowVolumeIndex,
    @JsonProperty("delay_ms") long delayMs, @JsonProperty("slow_mib_per_s") long slowMibPerS,
    @JsonProperty("files") int files, @JsonProperty("file_mb") int fileMb,
    @JsonProperty("block_mb") int blockMb, @JsonProperty("writers") int writers,
    @JsonProperty("replication") int replication,
    @JsonProperty(HdfsKeys.CHOOSER_PROBE_INTERVAL_MS) long probeIntervalMs,
    @JsonProperty(HdfsKeys.CHOOSER_PROBE_BYTES) int probeBytes,
    @JsonProperty(HdfsKeys.CHOOSER_SLOW_RATIO) double slowRatio,
    @JsonProperty(HdfsKeys.CHOOSER_SLOW_MIN_MS) double slowMinMs,
    @JsonProperty(HdfsKeys.CHOOSER_EWMA_WEIGHT) double ewmaWeight) {
  }

  /** One policy's run: where its blocks went (by volume directory) and its throughput. */
  record Policy(@JsonProperty("class") String policyClass,
    @JsonProperty("slow_share") double slowShare, @JsonProperty("mb_per_s") double mibPerS,
    @JsonProperty("slow_volume") String slowVolume, @JsonProperty("slow_blocks") long slowBlocks,
    @JsonProperty("blocks") long blocks,
    @JsonProperty("blocks_per_volume") Map<String, Long> blocksPerVolume,
    @JsonProperty("files") int files, @JsonProperty("bytes") long bytes,
    @JsonProperty("seconds") double seconds) {
  }

  /** The latency probe's cost on these volumes before the slowdown (ms). */
  record Probe(@JsonProperty("samples") int samples, @JsonProperty("mean_ms") double meanMs,
    @JsonProperty("p50_ms") double p50Ms, @JsonProperty("max_ms") double maxMs,
    @JsonProperty("busy_fraction_at_default_interval") double busyFraction) {
  }

  static ChooserResult of(RunLabels labels, ChooserBench.Settings s,
    List<ChooserBench.Outcome> outcomes, ChooserBench.ProbeCost probe, JsonNode monitoring) {
    Recorded settings = new Recorded(ChooserBench.VOLUMES, "DISK", ChooserBench.SLOW_INDEX,
      s.delayMs(), s.slowMibPerS(), s.files(), s.fileMb(), s.blockMb(), s.writers(), 1,
      HdfsKeys.CHOOSER_PROBE_INTERVAL_MS_DEFAULT, HdfsKeys.CHOOSER_PROBE_BYTES_DEFAULT,
      HdfsKeys.CHOOSER_SLOW_RATIO_DEFAULT, HdfsKeys.CHOOSER_SLOW_MIN_MS_DEFAULT,
      HdfsKeys.CHOOSER_EWMA_WEIGHT_DEFAULT);
    Map<String, Policy> policies = new LinkedHashMap<>();
    for (ChooserBench.Outcome o : outcomes) {
      policies.put(o.policy(), new Policy(o.policyClass().getName(), o.slowShare(), o.mibPerS(),
        o.slowVolume(), o.slowBlocks(), o.blocks(), o.blocksPerVolume(), o.files(), o.bytes(),
        o.seconds()));
    }
    Probe p = probe == null ? null : new Probe(probe.samples(), probe.meanMs(), probe.p50Ms(),
      probe.maxMs(), probe.meanMs() / HdfsKeys.CHOOSER_PROBE_INTERVAL_MS_DEFAULT);
    return labels == null ? new ChooserResult(null, null, null, null, settings, policies, p,
      monitoring)
      : new ChooserResult(labels.commit(), labels.date(), labels.transport(), labels.emulation(),
        settings, policies, p, monitoring);
  }

  /** The console table: one line per policy, then the probe's cost. */
  static String table(ChooserResult r) {
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT, "%-14s %7s %11s %11s %9s %8s   %s%n", "policy", "blocks",
      "slow blocks", "slow share", "seconds", "MiB/s", "blocks per volume (* slowed)"));
    r.policies().forEach((name, o) -> {
      StringBuilder perVolume = new StringBuilder();
      o.blocksPerVolume().forEach((vol, n) -> perVolume.append(vol).append('=').append(n)
        .append(vol.equals(o.slowVolume()) ? "* " : " "));
      sb.append(String.format(Locale.ROOT, "%-14s %7d %11d %10.1f%% %9.1f %8.1f   %s%n", name,
        o.blocks(), o.slowBlocks(), 100 * o.slowShare(), o.seconds(), o.mibPerS(),
        perVolume.toString().trim()));
    });
    Probe p = r.probe();
    if (p != null) {
      sb.append(String.format(Locale.ROOT, "latency probe (%d B, write+sync+delete) on these "
        + "volumes: mean %.2f ms, p50 %.2f ms, max %.2f ms over %d probes: %.2f%% of a "
        + "volume's time at one probe per %d ms%n", r.settings().probeBytes(), p.meanMs(),
        p.p50Ms(), p.maxMs(), p.samples(), 100 * p.busyFraction(),
        r.settings().probeIntervalMs()));
    }
    return sb.toString();
  }
}
