package io.strata.bench.media;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.NullNode;
import io.strata.bench.common.RunLabels;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code strata bench media} measured, as {@code results.json} holds it: the run's settings,
 * per case its placement keys, load figures, bytes written per storage type, placement at the
 * end and resources, the SSD-count comparison when it ran, and the study's findings. The JSON
 * field names are the {@code @JsonProperty} names, kept as the bench has always written them
 * (MediaBenchIT, SsdScalingTest and docs/benchmarks/media.md hold them; MediaResultJsonTest the
 * whole documents): a failed case has its error and time only; a ratio with no all-HDD case to
 * compare with, and an uncapped controller, are JSON null.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
record MediaResult(@JsonProperty("commit") String commit, @JsonProperty("date") String date,
  @JsonProperty("transport") String transport, @JsonProperty("emulation") String emulation,
  @JsonProperty("settings") Recorded settings,
  @JsonProperty("cases") Map<String, Case> cases,
  @JsonProperty("ssd_scaling") Scaling ssdScaling,
  @JsonProperty("findings") List<Finding> findings) {

  /**
   * A run's Result, labelled (commit, date, transport, emulation: see docs/benchmarks.md) with
   * {@code labels}; none when null.
   */
  static MediaResult of(RunLabels labels, Recorded settings, Map<String, Case> cases,
    Scaling ssdScaling, List<Finding> findings) {
    return labels == null
      ? new MediaResult(null, null, null, null, settings, cases, ssdScaling, findings)
      : new MediaResult(labels.commit(), labels.date(), labels.transport(), labels.emulation(),
        settings, cases, ssdScaling, findings);
  }

  /** The run's settings, the scale's sizes and the emulated media. */
  record Recorded(@JsonProperty("scale") String scale, @JsonProperty("datanodes") int dataNodes,
    @JsonProperty("replication") int replication,
    @JsonProperty("ram_tier_bytes_per_datanode") long ramTierBytesPerDataNode,
    @JsonProperty("ram_tier_dir") String ramTierDir,
    @JsonProperty("ram_tier_ram_backed") boolean ramTierRamBacked,
    @JsonProperty("record_bytes") int recordBytes,
    @JsonProperty("ycsb_threads") int ycsbThreads,
    @JsonProperty("ycsb_client_buffer_bytes") long ycsbClientBufferBytes,
    @JsonProperty("memstore_flush_bytes") long memstoreFlushBytes,
    @JsonProperty("compaction_threshold_bytes") long compactionThresholdBytes,
    @JsonProperty("hdfs_block_bytes") long hdfsBlockBytes,
    @JsonProperty("wal_block_bytes") long walBlockBytes,
    @JsonProperty("load_seconds_limit") int loadSecondsLimit,
    @JsonProperty("datasets") Map<String, DatasetSize> datasets,
    @JsonProperty("media") Map<String, Emulated> media,
    @JsonProperty("study_tuning") Tuning studyTuning,
    @JsonProperty("bytes_written_source") String bytesWrittenSource) {
  }

  /** A dataset at this scale. */
  record DatasetSize(@JsonProperty("bytes") long bytes, @JsonProperty("records") long records,
    @JsonProperty("regions") int regions) {
  }

  /** A medium: its storage policy and what is emulated of it. */
  record Emulated(@JsonProperty("policy") String policy,
    @JsonProperty("emulated") boolean emulated,
    @JsonProperty("delay_us_per_operation") double delayUsPerOperation,
    @JsonProperty("bandwidth_bytes_per_s") long bandwidthBytesPerS) {
  }

  /** The study's Table 8 tuning every case runs with. */
  record Tuning(@JsonProperty("hbase") Map<String, String> hbase,
    @JsonProperty("hdfs") Map<String, String> hdfs) {
  }

  /**
   * One case. A failed case has {@code error} and {@code case_seconds} after {@code ok} and
   * nothing measured; the ratios are JSON null (a {@link NullNode}) when there is no all-HDD
   * case of the dataset to compare with.
   */
  record Case(@JsonProperty("dataset") String dataset, @JsonProperty("study") String study,
    @JsonProperty("ssd_volumes_per_datanode") int ssdVolumesPerDataNode,
    @JsonInclude(JsonInclude.Include.ALWAYS)
    @JsonProperty("ssd_controller_cap_bytes_per_s") Long ssdControllerCapBytesPerS,
    @JsonProperty("placement_keys") Map<String, String> placementKeys,
    @JsonProperty("tuning") Map<String, String> tuning, @JsonProperty("ok") boolean ok,
    @JsonProperty("error") String error, @JsonProperty("records") Long records,
    @JsonProperty("records_target") Long recordsTarget,
    @JsonProperty("load_stopped_at_time_limit") Boolean loadStoppedAtTimeLimit,
    @JsonProperty("throughput_ops") Double throughputOps,
    @JsonProperty("latency_us_avg") Double latencyUsAvg,
    @JsonProperty("latency_us_p99") Double latencyUsP99,
    @JsonProperty("throughput_vs_hdd") JsonNode throughputVsHdd,
    @JsonProperty("latency_avg_vs_hdd") JsonNode latencyAvgVsHdd,
    @JsonProperty("latency_p99_vs_hdd") JsonNode latencyP99VsHdd,
    @JsonProperty("inserts_failed") Long insertsFailed,
    @JsonProperty("load_seconds") Double loadSeconds,
    @JsonProperty("case_seconds") double caseSeconds,
    @JsonProperty("bytes_written_per_storage_type") Map<String, Long> bytesWritten,
    @JsonProperty("placement_at_end") JsonNode placementAtEnd,
    @JsonProperty("resources") Map<String, Double> resources) {

    /** A case read back without a placement report has none (not a JSON null). */
    Case {
      placementAtEnd = placementAtEnd == null || placementAtEnd.isNull() ? null : placementAtEnd;
    }
  }

  /** The SSD-count cases side by side, their ratios, and the study's. */
  record Scaling(@JsonProperty("what") String what,
    @JsonProperty("ssd_volumes_per_datanode") List<Integer> ssdVolumesPerDataNode,
    @JsonProperty("controller_caps_bytes_per_s") List<Long> controllerCapsBytesPerS,
    @JsonProperty("ssd_bytes_per_s_per_volume") long ssdBytesPerSPerVolume,
    @JsonProperty("study_controller_cap_bytes_per_s") long studyControllerCapBytesPerS,
    @JsonProperty("cases") List<ScalingCase> cases,
    @JsonProperty("comparisons") List<Comparison> comparisons,
    @JsonProperty("study") ScalingStudy study) {
  }

  /** One SSD-count case; a failed one has its error only after {@code ok}. */
  record ScalingCase(@JsonProperty("case") String name,
    @JsonProperty("ssd_volumes_per_datanode") int ssdVolumesPerDataNode,
    @JsonInclude(JsonInclude.Include.ALWAYS)
    @JsonProperty("controller_cap_bytes_per_s") Long controllerCapBytesPerS,
    @JsonProperty("cap_below_volumes_combined_rate") boolean capBelowVolumesCombinedRate,
    @JsonProperty("ok") boolean ok, @JsonProperty("error") String error,
    @JsonProperty("throughput_ops") Double throughputOps,
    @JsonProperty("latency_us_avg") Double latencyUsAvg,
    @JsonProperty("latency_us_p99") Double latencyUsP99,
    @JsonProperty("records") Long records,
    @JsonProperty("load_stopped_at_time_limit") Boolean loadStoppedAtTimeLimit,
    @JsonProperty("ssd_write_bytes_per_s_per_datanode") Double ssdWriteBytesPerSPerDataNode) {
  }

  /** More SSD volumes against fewer, under one cap (null: none). */
  record Comparison(@JsonProperty("case") String name, @JsonProperty("against") String against,
    @JsonInclude(JsonInclude.Include.ALWAYS)
    @JsonProperty("controller_cap_bytes_per_s") Long controllerCapBytesPerS,
    @JsonProperty("throughput_ratio") double throughputRatio,
    @JsonProperty("latency_avg_ratio") double latencyAvgRatio,
    @JsonProperty("latency_p99_ratio") double latencyP99Ratio,
    @JsonProperty("little_gain") boolean littleGain) {
  }

  /** The study's own 8 against 4 SSDs: ratios from its text, no absolute figures. */
  record ScalingStudy(@JsonProperty("cases") String cases,
    @JsonProperty("throughput_ratio_8_vs_4") double throughputRatio8Vs4,
    @JsonProperty("latency_ratio_8_vs_4") double latencyRatio8Vs4,
    @JsonInclude(JsonInclude.Include.ALWAYS)
    @JsonProperty("throughput_ops") Double throughputOps,
    @JsonInclude(JsonInclude.Include.ALWAYS) @JsonProperty("latency_us") Double latencyUs,
    @JsonProperty("source") String source, @JsonProperty("figures_show") String figuresShow) {
  }

  /** One of the study's findings, checked against this run. */
  record Finding(@JsonProperty("claim") String claim, @JsonProperty("study") String study,
    @JsonProperty("strata") String strata, @JsonProperty("verdict") String verdict) {
  }

  /** The medium whose storage policy keeps every replica on it ({@code HOT}: HDD). */
  static Medium medium(String policy) {
    for (Medium m : Medium.values()) {
      if (m.policy().equals(policy)) {
        return m;
      }
    }
    throw new IllegalArgumentException("storage policy " + policy + " is none of the media's "
      + java.util.Arrays.toString(Medium.values()));
  }

  /** A ratio, JSON null when not a number. */
  static JsonNode ratio(double v) {
    return Double.isNaN(v) ? NullNode.getInstance() : DoubleNode.valueOf(v);
  }

  /** A controller cap in bytes/s, null when uncapped. */
  static Long cap(long bytesPerSecond) {
    return bytesPerSecond == 0 ? null : bytesPerSecond;
  }

  /** The resources rounded to 0.001, NaN as JSON null. */
  static Map<String, Double> resources(Map<String, Double> means) {
    Map<String, Double> out = new LinkedHashMap<>();
    means.forEach((k, v) -> out.put(k, Double.isNaN(v) ? null : Math.round(v * 1000) / 1000.0));
    return out;
  }
}
