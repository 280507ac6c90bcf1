package io.strata.bench.writetail;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import io.strata.bench.common.RunLabels;
import io.strata.bench.writetail.MemStoreActivityObserver.Counts;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.apache.hadoop.hbase.util.DirectMemoryUtils;

/**
 * What {@code strata bench write-tail} measured, as {@code --json} writes it: the settings, per
 * policy row (the off-heap variant's rows, {@code POLICY-offheap}, joined from the variant's own
 * Result) its figures, latency over time and marks, the ratios to the baseline, the study's tail
 * figures and the monitoring timelines. The JSON field names are the {@code @JsonProperty} names,
 * kept as the bench has always written them (WriteTailBenchIT and
 * docs/benchmarks/write-tail.md hold them); the table and the plot are rendered from this record.
 * Labelled first (commit, date, transport, emulation: see io.strata.bench.common.RunLabels), as the
 * run that started the off-heap variant (if any) was.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
record WriteTailResult(@JsonProperty("commit") String commit, @JsonProperty("date") String date,
  @JsonProperty("transport") String transport, @JsonProperty("emulation") String emulation,
  @JsonProperty("settings") Recorded settings,
  @JsonProperty("policies") Map<String, Policy> policies,
  @JsonProperty("baseline") String baseline, @JsonProperty("ratios") Map<String, Ratio> ratios,
  @JsonProperty("monitoring_offheap_variant") JsonNode monitoringOffheapVariant,
  @JsonProperty("study") Study study, @JsonProperty("monitoring") JsonNode monitoring) {

  /** A section the JSON left out reads as JSON null: absent, as it was. */
  WriteTailResult {
    monitoringOffheapVariant = absentIfNull(monitoringOffheapVariant);
    monitoring = absentIfNull(monitoring);
  }

  private static JsonNode absentIfNull(JsonNode n) {
    return n == null || n.isNull() ? null : n;
  }

  /** The settings of a run, the RegionServer's memstore keys as it read them. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  record Recorded(@JsonProperty("rows") long rows, @JsonProperty("threads") int threads,
    @JsonProperty("value_bytes") int valueBytes, @JsonProperty("policies") List<String> policies,
    @JsonProperty("rounds") int rounds, @JsonProperty("warmup_rows") long warmupRows,
    @JsonProperty("flush_mb") long flushMb,
    @JsonInclude(JsonInclude.Include.ALWAYS)
    @JsonProperty("in_memory_flush_factor") Double inMemoryFlushFactor,
    @JsonProperty("datanodes") int dataNodes, @JsonProperty("regions_per_table") int regions,
    @JsonProperty("profile") String profile,
    @JsonProperty("profile_keys") Map<String, String> profileKeys,
    @JsonProperty("memstore_offheap") boolean memstoreOffheap,
    @JsonProperty("offheap_memstore_mb") long offheapMemstoreMb,
    @JsonProperty("max_direct_memory_mb") long maxDirectMemoryMb,
    @JsonProperty("regionserver") Map<String, String> regionServer,
    @JsonProperty("offheap_variant") OffheapSettings offheapVariant) {
  }

  /** The off-heap variant's settings, as its own run recorded them. */
  record OffheapSettings(@JsonProperty("settings") Recorded settings) {
  }

  /** One policy's row. Latencies in µs, keyed by {@link WriteTailBench#PERCENTILE_NAMES}. */
  record Policy(@JsonProperty("table") String table,
    @JsonProperty("memstore_class") String memstoreClass,
    @JsonInclude(JsonInclude.Include.ALWAYS)
    @JsonProperty("memstore_compactor") String memstoreCompactor,
    @JsonProperty("policy_in_effect") boolean policyInEffect, @JsonProperty("ops") long ops,
    @JsonProperty("seconds") double seconds,
    @JsonProperty("throughput_ops_per_s") double throughputOpsPerS,
    @JsonProperty("latency_us") Map<String, Double> latencyUs,
    @JsonProperty("rounds_latency_us") List<Map<String, Double>> roundsLatencyUs,
    @JsonProperty("flushes") long flushes, @JsonProperty("flush_ms") double flushMs,
    @JsonProperty("compactions") long compactions,
    @JsonProperty("in_memory_compactions") long inMemoryCompactions,
    @JsonProperty("in_memory_data_compactions") long inMemoryDataCompactions,
    @JsonProperty("in_memory_compaction_ms") double inMemoryCompactionMs,
    @JsonProperty("gc") Gc gc, @JsonProperty("rows_written") long rowsWritten,
    @JsonProperty("rows_read_back") long rowsReadBack,
    @JsonProperty("read_back_complete") boolean readBackComplete,
    @JsonProperty("policy") String policy, @JsonProperty("regions") int regions,
    @JsonProperty("regions_written") int regionsWritten,
    @JsonProperty("memstore_offheap_bytes_max") long memstoreOffheapBytesMax,
    @JsonProperty("timeline") List<Point> timeline,
    @JsonProperty("turns_s") List<double[]> turnsS,
    @JsonProperty("flush_marks") List<FlushMark> flushMarks,
    @JsonProperty("gc_marks") List<GcMark> gcMarks) {

    /** E.g. {@code DefaultMemStore} or {@code CompactingMemStore/BASIC}. */
    String memstoreShortName() {
      String simple = memstoreClass.substring(memstoreClass.lastIndexOf('.') + 1);
      return memstoreCompactor == null ? simple
        : simple + "/" + memstoreCompactor.split(",")[0].trim();
    }

    /** The latency (µs) at a reported percentile, 100 for the maximum. */
    double micros(double percentile) {
      return latencyUs.get(WriteTailBench.name(percentile));
    }
  }

  /** Stop-the-world GC pauses in the policy's turns. */
  record Gc(@JsonProperty("pauses") long pauses, @JsonProperty("total_ms") long totalMs,
    @JsonProperty("max_ms") long maxMs) {
  }

  /** One second of the run: its Puts' latency percentiles. */
  record Point(@JsonProperty("t_s") long tS, @JsonProperty("p50_ms") double p50Ms,
    @JsonProperty("p99_ms") double p99Ms, @JsonProperty("p999_ms") double p999Ms,
    @JsonProperty("max_ms") double maxMs, @JsonProperty("puts") long puts) {
  }

  /** A flush of the policy's regions, seconds of the run. */
  record FlushMark(@JsonProperty("start_s") double startS, @JsonProperty("end_s") double endS) {
  }

  /** A GC pause in the policy's turns: its start (s of the run) and length. */
  record GcMark(@JsonProperty("t_s") double tS, @JsonProperty("ms") double ms) {
  }

  /**
   * A row's figures over the baseline's: throughput and latency percentiles of the whole run,
   * and (for rows of the same run) the median over rounds of the same-round ratio.
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  record Ratio(@JsonProperty("throughput") double throughput, @JsonProperty("p50") double p50,
    @JsonProperty("p99") double p99, @JsonProperty("p99.9") double p999,
    @JsonProperty("p99.99") double p9999, @JsonProperty("max") double max,
    @JsonProperty("paired_by_round") Map<String, Double> pairedByRound) {
    /** The ratio at a reported percentile. */
    double at(int percentileIndex) {
      return new double[] { p50, p99, p999, p9999, max }[percentileIndex];
    }
  }

  /** The study's tail figures, as it gives them. */
  record Study(@JsonProperty("text") String text, @JsonProperty("fix") Fix fix,
    @JsonProperty("fix_and_basic") FixAndBasic fixAndBasic) {
  }

  /** With the HBASE-21738 fix: P999 below, P9999 within (ms). */
  record Fix(@JsonProperty("p999_ms_below") int p999MsBelow,
    @JsonProperty("p9999_ms_range") List<Integer> p9999MsRange) {
  }

  /** With the fix and BASIC in-memory compaction (ms). */
  record FixAndBasic(@JsonProperty("p999_ms_below") int p999MsBelow,
    @JsonProperty("p9999_ms_about") int p9999MsAbout) {
  }

  static final Study STUDY = new Study(WriteTailReport.STUDY_TAIL, new Fix(100, List.of(200, 500)),
    new FixAndBasic(50, 100));

  /** The rows of the off-heap variant: those compared without rounds in common. */
  boolean offheapVariantRow(String label) {
    Ratio r = ratios.get(label);
    return r != null && r.pairedByRound() == null;
  }

  /** A run's Result from its outcomes; the off-heap variant is joined by {@link #withOffheap}. */
  static WriteTailResult of(RunLabels labels, WriteTailBench.Settings s, WriteTailRun.Run run,
    JsonNode monitoring) {
    List<WriteTailRun.Outcome> outcomes = run.outcomes();
    Recorded settings = new Recorded(s.rows(), s.threads(), s.valueBytes(),
      s.policies().stream().map(Enum::name).toList(), s.rounds(), s.warmupRows(),
      s.flushBytes() >> 20, s.inMemoryFlushFactor(), s.dataNodes(), s.regions(), s.profile(),
      WriteTailCluster.PROFILES.get(s.profile()), s.offheap(),
      s.offheap() ? s.offheapMemstoreMb() : 0, DirectMemoryUtils.getDirectMemorySize() >> 20,
      run.memstoreSettings(), null);
    Map<String, Policy> policies = new LinkedHashMap<>();
    for (WriteTailRun.Outcome o : outcomes) {
      policies.put(o.label(), policy(o));
    }
    WriteTailRun.Outcome base = WriteTailRun.baseline(outcomes);
    Map<String, Ratio> ratios = new LinkedHashMap<>();
    for (WriteTailRun.Outcome o : outcomes) {
      if (o == base) {
        continue;
      }
      double[] r = new double[WriteTailBench.PERCENTILES.length];
      for (int i = 0; i < r.length; i++) {
        r[i] = o.micros(WriteTailBench.PERCENTILES[i]) / base.micros(WriteTailBench.PERCENTILES[i]);
      }
      Map<String, Double> paired = new LinkedHashMap<>();
      for (double p : WriteTailBench.PAIRED_PERCENTILES) {
        paired.put(WriteTailBench.name(p), o.pairedRatio(base, p));
      }
      ratios.put(o.label(), new Ratio(o.opsPerSecond() / base.opsPerSecond(), r[0], r[1], r[2],
        r[3], r[4], paired));
    }
    return new WriteTailResult(labels == null ? null : labels.commit(),
      labels == null ? null : labels.date(), labels == null ? null : labels.transport(),
      labels == null ? null : labels.emulation(), settings, policies, base.label(), ratios, null,
      STUDY, monitoring);
  }

  private static Policy policy(WriteTailRun.Outcome o) {
    Map<String, Double> lat = percentiles(o.latencyNanos());
    lat.put("mean", o.latencyNanos().getMean() / 1e3);
    List<Map<String, Double>> rounds = new ArrayList<>();
    for (Histogram h : o.roundLatencyNanos()) {
      rounds.add(percentiles(h));
    }
    Counts a = o.activity();
    List<Point> timeline = o.timeline().buckets().stream().map(b -> new Point(b.second(),
      b.p50Ms(), b.p99Ms(), b.p999Ms(), b.maxMs(), b.puts())).toList();
    List<FlushMark> flushes = o.flushMarks().stream().map(f -> new FlushMark(f[0], f[1]))
      .toList();
    List<GcMark> gcs = o.gcMarks().stream().map(g -> new GcMark(g[0], g[1])).toList();
    return new Policy(o.table().getNameAsString(), o.memstore().memStoreClass(),
      o.memstore().compactor(), o.policyInEffect(), o.ops(), o.seconds(), o.opsPerSecond(), lat,
      rounds, a.flushes(), a.flushNanos() / 1e6, a.compactions(), a.inMemoryCompactions(),
      a.inMemoryDataCompactions(), a.inMemoryCompactionNanos() / 1e6,
      new Gc(o.gc().pauses(), o.gc().totalMs(), o.gc().maxMs()), o.readBack().expectedRows(),
      o.readBack().rowsFound(), o.readBack().complete(), o.policy().name(), o.regions(),
      o.regionsWritten(), o.offheapBytesMax(), timeline, o.turnMarks(), flushes, gcs);
  }

  private static Map<String, Double> percentiles(Histogram h) {
    Map<String, Double> m = new LinkedHashMap<>();
    for (int i = 0; i < WriteTailBench.PERCENTILES.length; i++) {
      m.put(WriteTailBench.PERCENTILE_NAMES[i],
        WriteTailRun.Outcome.micros(h, WriteTailBench.PERCENTILES[i]));
    }
    return m;
  }

  /**
   * This run's Result with the off-heap variant's rows joined: its own cluster and JVM, so its
   * ratios are of whole-run figures only (no rounds in common to pair).
   */
  WriteTailResult withOffheap(WriteTailResult variant) {
    Recorded s = settings;
    Recorded joined = new Recorded(s.rows(), s.threads(), s.valueBytes(), s.policies(),
      s.rounds(), s.warmupRows(), s.flushMb(), s.inMemoryFlushFactor(), s.dataNodes(),
      s.regions(), s.profile(), s.profileKeys(), s.memstoreOffheap(), s.offheapMemstoreMb(),
      s.maxDirectMemoryMb(), s.regionServer(), new OffheapSettings(variant.settings()));
    Map<String, Policy> allPolicies = new LinkedHashMap<>(policies);
    Map<String, Ratio> allRatios = new LinkedHashMap<>(ratios);
    Policy base = policies.get(baseline);
    variant.policies().forEach((label, p) -> {
      allPolicies.put(label, p);
      double[] r = new double[WriteTailBench.PERCENTILES.length];
      for (int i = 0; i < r.length; i++) {
        r[i] = p.micros(WriteTailBench.PERCENTILES[i]) / base.micros(WriteTailBench.PERCENTILES[i]);
      }
      allRatios.put(label, new Ratio(p.throughputOpsPerS() / base.throughputOpsPerS(), r[0], r[1],
        r[2], r[3], r[4], null));
    });
    return new WriteTailResult(commit, date, transport, emulation, joined, allPolicies, baseline,
      allRatios, variant.monitoring(),
      study, monitoring);
  }
}
