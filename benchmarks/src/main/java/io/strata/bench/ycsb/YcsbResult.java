package io.strata.bench.ycsb;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What {@code strata bench ycsb} measured, as {@code --json} writes it: one part per experiment,
 * a part the run did not do (null) left out. The JSON field names are the {@code @JsonProperty}
 * names, kept as the bench has always written them (the ITs, docs/benchmarks/ycsb*.md and the
 * kept results under benchmarks/results/ycsb-* hold them); figures are rounded as the bench
 * always rounded them, when the part is made from its experiment's result. Labelled first
 * (commit, date, transport, emulation: see io.strata.bench.common.RunLabels).
 */
record YcsbResult(@JsonProperty("commit") String commit, @JsonProperty("date") String date,
  @JsonProperty("transport") String transport, @JsonProperty("emulation") String emulation,
  @JsonProperty("settings") Settings settings,
  @JsonProperty("phases") List<Step> phases, @JsonProperty("presplit") Presplit presplit,
  @JsonProperty("bulkload") BulkLoad bulkload, @JsonProperty("raw_lag") List<Lag> rawLag,
  @JsonProperty("rpc_compare") Rpc rpcCompare, @JsonProperty("filters") List<Filter> filters,
  @JsonProperty("filters_summary") FiltersSummary filtersSummary, @JsonProperty("acl") Acl acl,
  @JsonProperty("monitoring") JsonNode monitoring) {

  /** Reading gives an absent monitoring section as JSON's null: none, as it was written. */
  YcsbResult {
    monitoring = monitoring == null || monitoring.isNull() ? null : monitoring;
  }

  static double rounded(double v, double scale) {
    return Math.round(v * scale) / scale;
  }

  /** The run's settings. Booleans boxed: results kept from before a flag existed lack it. */
  record Settings(@JsonProperty("phases") String phases, @JsonProperty("clients") int clients,
    @JsonProperty("threads") int threads, @JsonProperty("records") long records,
    @JsonProperty("operations") long operations, @JsonProperty("regions") int regions,
    @JsonProperty("rounds") int rounds, @JsonProperty("settle_quiet_s") long settleQuietS,
    @JsonProperty("settle_max_s") long settleMaxS, @JsonProperty("raw_records") int rawRecords,
    @JsonProperty("raw_target_ops_per_s") int rawTargetOpsPerS,
    @JsonProperty("rpc_compare") Boolean rpcCompare,
    @JsonProperty("acl_compare") Boolean aclCompare,
    @JsonProperty("filter_compare") Boolean filterCompare,
    @JsonProperty("ycsb") Map<String, String> ycsb) {
    static Settings of(YcsbBench.Settings s) {
      return new Settings(String.join(",", s.phases().stream().map(MultiPhaseRun.Step::name)
        .toList()), s.clients(), s.threads(), s.records(), s.operations(), s.regions(),
        s.rounds(), s.settle().quiet().toSeconds(), s.settle().bound().toSeconds(),
        s.rawRecords(), s.rawTarget(), s.rpcCompare() != null, s.acl() != null,
        s.filters() != null, new LinkedHashMap<>(s.ycsb()));
    }
  }

  /** Count, mean and percentiles of one operation's latency (YCSB's microseconds). */
  record Latency(@JsonProperty("count") long count, @JsonProperty("mean") double mean,
    @JsonProperty("p50") long p50, @JsonProperty("p99") long p99,
    @JsonProperty("p99_9") long p999, @JsonProperty("p99_99") long p9999,
    @JsonProperty("max") long max) {
    static Latency of(LatencySummary s) {
      return new Latency(s.count(), rounded(s.mean(), 10), s.p50(), s.p99(), s.p999(), s.p9999(),
        s.max());
    }
  }

  /** YCSB's figures of a phase; the spreads only for more than one client process. */
  record Figures(@JsonProperty("clients") int clients,
    @JsonProperty("operations") long operations, @JsonProperty("failed") long failed,
    @JsonProperty("seconds") double seconds, @JsonProperty("ops_per_s") double opsPerS,
    @JsonProperty("latency_us") Map<String, Latency> latencyUs,
    @JsonProperty("start_spread_ms") Double startSpreadMs,
    @JsonProperty("arrival_spread_ms") Double arrivalSpreadMs,
    @JsonProperty("jvm_start_spread_ms") Double jvmStartSpreadMs) {
    static Figures of(PhaseFigures f) {
      Map<String, Latency> lat = new LinkedHashMap<>();
      f.latenciesUs().forEach((op, s) -> lat.put(op, Latency.of(s)));
      boolean many = f.clients() > 1;
      return new Figures(f.clients(), f.operations(), f.failed(), rounded(f.seconds(), 1000),
        rounded(f.opsPerSec(), 10), lat, many ? rounded(f.startSpreadMs(), 10) : null,
        many ? rounded(f.arrivalSpreadMs(), 10) : null,
        many ? rounded(f.jvmStartSpreadMs(), 10) : null);
    }
  }

  /** The servers' flushes and compactions (counters) and state (gauges). */
  record Activity(@JsonProperty("flushes") long flushes,
    @JsonProperty("flushed_bytes") long flushedBytes,
    @JsonProperty("compactions") long compactions,
    @JsonProperty("major_compactions") long majorCompactions,
    @JsonProperty("compacted_input_bytes") long compactedInputBytes,
    @JsonProperty("compacted_output_bytes") long compactedOutputBytes,
    @JsonProperty("flush_queue") int flushQueue,
    @JsonProperty("compaction_queue") int compactionQueue,
    @JsonProperty("compactions_running") int compactionsRunning,
    @JsonProperty("store_files") int storeFiles, @JsonProperty("regions") int regions) {
    static Activity of(ActivitySnapshot a) {
      return new Activity(a.flushes(), a.flushedBytes(), a.compactions(), a.majorCompactions(),
        a.compactedInputBytes(), a.compactedOutputBytes(), a.flushQueue(), a.compactionQueue(),
        a.compactionsRunning(), a.storeFiles(), a.regions());
    }
  }

  /** How a settle step's wait ended. */
  record SettleWait(@JsonProperty("mode") String mode, @JsonProperty("settled") boolean settled,
    @JsonProperty("fallback") boolean fallback, @JsonProperty("seconds") double seconds) {
    static SettleWait of(Settle.Outcome o) {
      return new SettleWait(o.mode(), o.settled(), o.fallback(), o.waited().toMillis() / 1000.0);
    }
  }

  /** A step of the multi-phase run: YCSB's figures for load and workloads, settle's wait. */
  record Step(@JsonProperty("name") String name, @JsonProperty("kind") String kind,
    @JsonProperty("wall_seconds") double wallSeconds, @JsonProperty("ycsb") Figures ycsb,
    @JsonProperty("settle") SettleWait settle, @JsonProperty("activity") Activity activity) {
    static Step of(MultiPhaseRun.StepResult r) {
      return new Step(r.step().name(), r.step().kind().name().toLowerCase(Locale.ROOT),
        rounded(r.seconds(), 1000), r.figures() == null ? null : Figures.of(r.figures()),
        r.settle() == null ? null : SettleWait.of(r.settle()), Activity.of(r.activity()));
    }
  }

  /** One load of the pre-split comparison. */
  record Load(@JsonProperty("regions_at_start") int regionsAtStart,
    @JsonProperty("regions_at_end") int regionsAtEnd, @JsonProperty("splits") int splits,
    @JsonProperty("ycsb") Figures ycsb, @JsonProperty("activity") Activity activity) {
    static Load of(PresplitComparison.Variant v) {
      return new Load(v.regionsAtStart(), v.activity().regions(),
        v.activity().regions() - v.regionsAtStart(), Figures.of(v.load()),
        Activity.of(v.activity()));
    }
  }

  /** A round of the pre-split comparison: both loads. */
  record LoadRound(@JsonProperty("presplit") Load presplit, @JsonProperty("single") Load single) {
  }

  /** The pre-split comparison. */
  record Presplit(@JsonProperty("regions") int regions, @JsonProperty("rounds") int rounds,
    @JsonProperty("presplit_ops_per_s") double presplitOpsPerS,
    @JsonProperty("single_ops_per_s") double singleOpsPerS,
    @JsonProperty("ratio") double ratio, @JsonProperty("per_round") List<LoadRound> perRound) {
    static Presplit of(PresplitComparison.Result r) {
      List<LoadRound> rounds = new java.util.ArrayList<>();
      for (int i = 0; i < r.presplit().size(); i++) {
        rounds.add(new LoadRound(Load.of(r.presplit().get(i)), Load.of(r.single().get(i))));
      }
      return new Presplit(r.regions(), r.presplit().size(), rounded(r.presplitOpsPerSec(), 10),
        rounded(r.singleOpsPerSec(), 10), rounded(r.ratio(), 1000), rounds);
    }
  }

  /** One bulk load. */
  record Bulk(@JsonProperty("regions") int regions, @JsonProperty("rows") long rows,
    @JsonProperty("write_hfiles_s") double writeHfilesS,
    @JsonProperty("bulk_load_s") double bulkLoadS, @JsonProperty("seconds") double seconds,
    @JsonProperty("rows_per_s") double rowsPerS, @JsonProperty("hfiles") int hfiles) {
    static Bulk of(BulkLoadComparison.BulkLoad b) {
      return new Bulk(b.regions(), b.rows(), rounded(b.writeSeconds(), 1000),
        rounded(b.loadSeconds(), 1000), rounded(b.writeSeconds() + b.loadSeconds(), 1000),
        rounded(b.rowsPerSec(), 10), b.files());
    }
  }

  /** A round of bulk loads: into the pre-split table and into the single-region one. */
  record BulkRound(@JsonProperty("presplit") Bulk presplit, @JsonProperty("single") Bulk single) {
  }

  /** The bulk loads. */
  record BulkLoads(@JsonProperty("presplit_rows_per_s") double presplitRowsPerS,
    @JsonProperty("single_rows_per_s") double singleRowsPerS,
    @JsonProperty("per_round") List<BulkRound> perRound) {
  }

  /** The bulk-load comparison: the insert loads, the bulk loads, bulk over insert. */
  record BulkLoad(@JsonProperty("insert") Presplit insert, @JsonProperty("bulk") BulkLoads bulk,
    @JsonProperty("bulk_over_insert_presplit") double bulkOverInsertPresplit,
    @JsonProperty("bulk_over_insert_single") double bulkOverInsertSingle) {
    static BulkLoad of(BulkLoadComparison.Result r) {
      List<BulkRound> rounds = new java.util.ArrayList<>();
      for (int i = 0; i < r.presplit().size(); i++) {
        rounds.add(new BulkRound(Bulk.of(r.presplit().get(i)), Bulk.of(r.single().get(i))));
      }
      return new BulkLoad(Presplit.of(r.insert()), new BulkLoads(
        rounded(r.bulkPresplitRowsPerSec(), 10), rounded(r.bulkSingleRowsPerSec(), 10), rounds),
        rounded(r.bulkPresplitRowsPerSec() / r.insert().presplitOpsPerSec(), 100),
        rounded(r.bulkSingleRowsPerSec() / r.insert().singleOpsPerSec(), 100));
    }
  }

  /** A lag distribution in milliseconds; {@code p99_9} only for all keys. */
  record LagMs(@JsonProperty("count") long count, @JsonProperty("mean") double mean,
    @JsonProperty("p50") double p50, @JsonProperty("p99") double p99,
    @JsonProperty("p99_9") Double p999, @JsonProperty("max") double max) {
    static LagMs of(LatencySummary us, boolean p999) {
      return new LagMs(us.count(), Math.round(us.mean() / 100) / 10.0, us.p50() / 1000.0,
        us.p99() / 1000.0, p999 ? us.p999() / 1000.0 : null, us.max() / 1000.0);
    }
  }

  /** The read-after-write lag at one client write buffer size. */
  record Lag(@JsonProperty("buffer_bytes") long bufferBytes,
    @JsonProperty("client_buffering") boolean clientBuffering,
    @JsonProperty("records") int records, @JsonProperty("target_ops_per_s") int targetOpsPerS,
    @JsonProperty("sample_every") int sampleEvery, @JsonProperty("sampled") int sampled,
    @JsonProperty("writes_per_s") double writesPerS, @JsonProperty("lag_ms") LagMs lagMs,
    @JsonProperty("retried_keys") int retriedKeys,
    @JsonProperty("retried_share") double retriedShare,
    @JsonProperty("lag_retried_ms") LagMs lagRetriedMs,
    @JsonProperty("lag_retried_cdf") List<double[]> lagRetriedCdf,
    @JsonProperty("poll_rounds") long pollRounds,
    @JsonProperty("mean_poll_ms") double meanPollMs) {
    static Lag of(ReadAfterWriteLag.Result r) {
      ReadAfterWriteLag.Settings s = r.settings();
      List<double[]> cdf = new java.util.ArrayList<>();
      r.retriedCdf().forEach(p -> cdf.add(new double[] { p[0], p[1] }));
      return new Lag(s.bufferBytes(), s.bufferBytes() > 0, s.records(), s.targetOpsPerSec(),
        s.sampleEvery(), r.sampled(), rounded(r.writesPerSec(), 10), LagMs.of(r.lagUs(), true),
        r.retried(), r.retriedShare(), LagMs.of(r.retriedLagUs(), false), cdf, r.pollRounds(),
        rounded(r.meanPollMs(), 100));
    }
  }

  /** One operation type's latencies in the RPC comparison. */
  record OpLatency(@JsonProperty("count") long count, @JsonProperty("mean_us") double meanUs,
    @JsonProperty("p50_us") double p50Us, @JsonProperty("p99_us") double p99Us) {
    static OpLatency of(InProcessYcsb.Latency l) {
      return new OpLatency(l.count(), InProcessYcsb.round(l.meanUs()),
        InProcessYcsb.round(l.p50Us()), InProcessYcsb.round(l.p99Us()));
    }
  }

  /** One path's runs of a cell of the RPC comparison, with the endpoint's counters. */
  record RpcPath(@JsonProperty("ops_per_s") long opsPerS, @JsonProperty("mean_us") double meanUs,
    @JsonProperty("p50_us") double p50Us, @JsonProperty("p99_us") double p99Us,
    @JsonProperty("operations") long operations, @JsonProperty("failed") long failed,
    @JsonProperty("seconds") double seconds,
    @JsonProperty("rounds_ops_per_s") List<Long> roundsOpsPerS,
    @JsonProperty("ops") Map<String, OpLatency> ops,
    @JsonProperty("gets_over_endpoint") long getsOverEndpoint,
    @JsonProperty("mutates_over_endpoint") long mutatesOverEndpoint,
    @JsonProperty("counters") Map<String, Long> counters) {
    static RpcPath of(RpcCompare.PathRun p) {
      InProcessYcsb.Figures f = p.figures();
      Map<String, OpLatency> ops = new LinkedHashMap<>();
      f.byType().forEach((type, l) -> ops.put(type, OpLatency.of(l)));
      return new RpcPath(Math.round(f.opsPerSec()), InProcessYcsb.round(f.all().meanUs()),
        InProcessYcsb.round(f.all().p50Us()), InProcessYcsb.round(f.all().p99Us()),
        f.operations(), f.failed(), rounded(f.seconds(), 1000),
        p.roundOpsPerSec().stream().map(Math::round).toList(), ops,
        p.counter("client.Get.rdma"), p.counter("client.Mutate.rdma"),
        new LinkedHashMap<>(p.counters()));
    }
  }

  /** A workload at a thread count over both paths. */
  record RpcCell(@JsonProperty("workload") String workload, @JsonProperty("threads") int threads,
    @JsonProperty("order") List<String> order,
    @JsonProperty("load_average_1m") double loadAverage1m,
    @JsonProperty(RpcCompare.NETTY) RpcPath netty, @JsonProperty(RpcCompare.RDMA) RpcPath rdma,
    @JsonProperty("ratio_ops") double ratioOps, @JsonProperty("ratio_mean_us") double ratioMeanUs,
    @JsonProperty("ratio_p50_us") double ratioP50Us,
    @JsonProperty("ratio_p99_us") double ratioP99Us) {
    static RpcCell of(RpcCompare.Cell c) {
      InProcessYcsb.Latency r = c.rdma().figures().all();
      InProcessYcsb.Latency n = c.netty().figures().all();
      return new RpcCell(c.workload(), c.threads(), List.copyOf(c.order()),
        RpcCompare.round2(c.loadAverage()), RpcPath.of(c.netty()), RpcPath.of(c.rdma()),
        RpcCompare.round2(c.ratioOps()), RpcCompare.round2(c.ratioMean()),
        RpcCompare.round2(RpcCompare.ratio(r.p50Us(), n.p50Us())),
        RpcCompare.round2(RpcCompare.ratio(r.p99Us(), n.p99Us())));
    }
  }

  /** The load before the RPC comparison's runs. */
  record RpcLoad(@JsonProperty("operations") long operations,
    @JsonProperty("ops_per_s") long opsPerS, @JsonProperty("failed") long failed) {
  }

  /** The RPC comparison ({@code --rpc-compare}). */
  record Rpc(@JsonProperty("records") long records, @JsonProperty("record_bytes") int recordBytes,
    @JsonProperty("operations_per_run") long operationsPerRun,
    @JsonProperty("seconds_per_run_max") long secondsPerRunMax,
    @JsonProperty("rounds") int rounds, @JsonProperty("warmup_operations") long warmupOperations,
    @JsonProperty("regions") int regions, @JsonProperty("transport") String transport,
    @JsonProperty("client_processes") boolean clientProcesses,
    @JsonProperty("client_buffering") boolean clientBuffering,
    @JsonProperty("threads") List<Integer> threads, @JsonProperty("load") RpcLoad load,
    @JsonProperty("workloads") List<RpcCell> workloads,
    @JsonProperty("endpoint_verified") boolean endpointVerified,
    @JsonProperty("violations") List<String> violations) {
    static Rpc of(RpcCompare.Result r) {
      RpcCompare.Settings s = r.settings();
      return new Rpc(s.records(), r.recordBytes(), s.operations(), s.runTime().toSeconds(),
        s.rounds(), s.warmupOps(), s.regions(), r.transport(), r.clientProcesses(), false,
        List.copyOf(s.threads()), new RpcLoad(r.load().operations(),
          Math.round(r.load().opsPerSec()), r.load().failed()),
        r.cells().stream().map(RpcCell::of).toList(), r.violations().isEmpty(),
        List.copyOf(r.violations()));
    }
  }

  /** One side of a filter cell over its scans. */
  record FilterSide(@JsonProperty("ms_per_scan") double msPerScan,
    @JsonProperty("ms_mean") double msMean, @JsonProperty("scans_per_s") double scansPerS,
    @JsonProperty("bytes") long bytes, @JsonProperty("bytes_per_scan") long bytesPerScan,
    @JsonProperty("matched") long matched, @JsonProperty("rows") long rows) {
    static FilterSide of(FilterComparison.Side s) {
      return new FilterSide(rounded(s.msPerScan(), 1e4), rounded(s.msMean(), 1e4),
        rounded(1000 / s.msPerScan(), 10), s.bytes(), Math.round(s.bytesPerScan()), s.matched(),
        s.rows());
    }
  }

  /** One filter at one scan length and selectivity; {@code cells_matched} for cell filters. */
  record Filter(@JsonProperty("filter") String filter,
    @JsonProperty("hbase_filter") String hbaseFilter, @JsonProperty("scan_rows") int scanRows,
    @JsonProperty("selectivity") double selectivity, @JsonProperty("scans") int scans,
    @JsonProperty("rows_scanned") long rowsScanned,
    @JsonProperty("matched_unit") String matchedUnit, @JsonProperty("matched") long matched,
    @JsonProperty("rows_matched") long rowsMatched,
    @JsonProperty("cells_matched") Long cellsMatched,
    @JsonProperty("mb_scanned_per_scan") double mbScannedPerScan,
    @JsonProperty("server") FilterSide server, @JsonProperty("client") FilterSide client,
    @JsonProperty("ratio") double ratio, @JsonProperty("server_pays") boolean serverPays,
    @JsonProperty("agree") boolean agree) {
    /** Every cell of {@code r}, in its order. */
    static List<Filter> all(FilterComparison.Result r) {
      return r.cells().stream().map(Filter::of).toList();
    }

    static Filter of(FilterComparison.Cell c) {
      boolean rows = c.filter().selectsRows();
      return new Filter(c.filter().label, c.filter().hbaseClass, c.scanRows(),
        c.selectivity() / 100.0, c.scans(), c.rowsScanned(), rows ? "rows" : "cells",
        c.expected(), c.server().rows(), rows ? null : c.expected(),
        rounded(c.mbScannedPerScan(), 1e4), FilterSide.of(c.server()), FilterSide.of(c.client()),
        rounded(c.ratio(), 1000), c.ratio() > 1, c.agree());
    }
  }

  /** The filter comparison's settings. */
  record FilterSettings(@JsonProperty("records") long records,
    @JsonProperty("fieldcount") int fieldcount, @JsonProperty("fieldlength") int fieldlength,
    @JsonProperty("regions") int regions, @JsonProperty("repetitions") int repetitions,
    @JsonProperty("seed") long seed, @JsonProperty("scan_rows") List<Integer> scanRows,
    @JsonProperty("selectivities") List<Double> selectivities) {
  }

  /**
   * From which scan length a filter at a selectivity pays: {@code scan_rows} null (written) when
   * it never does, and then no {@code mb_scanned_per_scan}.
   */
  record PaysFrom(@JsonProperty("filter") String filter,
    @JsonProperty("selectivity") double selectivity,
    @JsonInclude(JsonInclude.Include.ALWAYS) @JsonProperty("scan_rows") Integer scanRows,
    @JsonProperty("mb_scanned_per_scan") Double mbScannedPerScan) {
  }

  /** The filter comparison's settings, load and where server-side filtering pays. */
  record FiltersSummary(@JsonProperty("settings") FilterSettings settings,
    @JsonProperty("load_s") double loadS, @JsonProperty("loaded_bytes") long loadedBytes,
    @JsonProperty("server_pays_from") List<PaysFrom> serverPaysFrom,
    @JsonProperty("agree") boolean agree, @JsonProperty("paper") String paper) {
    static FiltersSummary of(FilterComparison.Result r) {
      FilterComparison.Settings s = r.settings();
      List<PaysFrom> pays = new java.util.ArrayList<>();
      for (FilterComparison.Kind k : FilterComparison.Kind.values()) {
        for (int sel : s.selectivities()) {
          FilterComparison.Cell c = r.paysFrom(k, sel);
          pays.add(new PaysFrom(k.label, sel / 100.0, c == null ? null : c.scanRows(),
            c == null ? null : rounded(c.mbScannedPerScan(), 1e4)));
        }
      }
      return new FiltersSummary(new FilterSettings(s.records(), s.fieldCount(), s.fieldLength(),
        s.regions(), s.repetitions(), s.seed(), List.copyOf(s.scanRows()),
        s.selectivities().stream().map(k -> k / 100.0).toList()), rounded(r.loadSeconds(), 1000),
        r.loadedBytes(), pays, r.disagreements().isEmpty(), FilterComparison.PAPER);
    }
  }

  /** What YCSB++ found for ACLs. */
  record AclPaper(@JsonProperty("insert_ratio_11_entries") double insertRatio11Entries,
    @JsonProperty("insert_ratio_4_entries") double insertRatio4Entries,
    @JsonProperty("scan_ratio") String scanRatio) {
  }

  /** One timed insert and scan of an ACL variant; the baseline's figures for a protected one. */
  record AclRound(@JsonProperty("round") int round, @JsonProperty("rows") long rows,
    @JsonProperty("insert_s") double insertS,
    @JsonProperty("insert_ops_per_s") double insertOpsPerS,
    @JsonProperty("scanned_rows") long scannedRows, @JsonProperty("scan_s") double scanS,
    @JsonProperty("scan_rows_per_s") double scanRowsPerS,
    @JsonProperty("baseline_insert_ops_per_s") Double baselineInsertOpsPerS,
    @JsonProperty("baseline_scan_rows_per_s") Double baselineScanRowsPerS,
    @JsonProperty("insert_ratio") Double insertRatio,
    @JsonProperty("scan_ratio") Double scanRatio) {
    static AclRound of(AclComparison.Round r) {
      boolean b = r.baseline() != null;
      return new AclRound(r.round(), r.rows(), rounded(r.insertSeconds(), 1000),
        rounded(r.insertOpsPerSec(), 10), r.scannedRows(), rounded(r.scanSeconds(), 1000),
        rounded(r.scanRowsPerSec(), 10), b ? rounded(r.baseline().insertOpsPerSec(), 10) : null,
        b ? rounded(r.baseline().scanRowsPerSec(), 10) : null,
        b ? rounded(r.insertRatio(), 1000) : null, b ? rounded(r.scanRatio(), 1000) : null);
    }
  }

  /** What showed an ACL variant's ACLs in effect. */
  record AclProof(@JsonProperty("outsider_put_denied") boolean outsiderPutDenied,
    @JsonProperty("outsider_scan_denied") boolean outsiderScanDenied,
    @JsonProperty("outsider_scan_rows") long outsiderScanRows,
    @JsonProperty("table_grants") int tableGrants,
    @JsonProperty("cell_reader_cells") int cellReaderCells) {
  }

  /** An ACL variant: level none (no AccessController), table or cell. */
  record AclVariant(@JsonProperty("level") String level, @JsonProperty("entries") int entries,
    @JsonProperty("access_controller") boolean accessController,
    @JsonProperty("insert_ops_per_s") double insertOpsPerS,
    @JsonProperty("scan_rows_per_s") double scanRowsPerS,
    @JsonProperty("insert_ratio") double insertRatio,
    @JsonProperty("scan_ratio") double scanRatio,
    @JsonProperty("per_round") List<AclRound> perRound, @JsonProperty("proof") AclProof proof) {
  }

  /** The ACL comparison ({@code --acl-compare}). */
  record Acl(@JsonProperty("user") String user, @JsonProperty("records") long records,
    @JsonProperty("threads") int threads, @JsonProperty("rounds") int rounds,
    @JsonProperty("scan_length") int scanLength,
    @JsonProperty("client_buffer_bytes") long clientBufferBytes,
    @JsonProperty("paper") AclPaper paper, @JsonProperty("variants") List<AclVariant> variants) {
    static Acl of(AclComparison.Result r) {
      AclComparison.Settings s = r.settings();
      List<AclVariant> variants = new java.util.ArrayList<>();
      for (AclComparison.Variant v : r.variants()) {
        AclComparison.Proof p = v.proof();
        variants.add(new AclVariant(v.level(), v.entries(), !"none".equals(v.level()),
          rounded(v.insertOpsPerSec(), 10), rounded(v.scanRowsPerSec(), 10),
          rounded(r.insertRatio(v), 1000), rounded(r.scanRatio(v), 1000),
          v.rounds().stream().map(AclRound::of).toList(), new AclProof(p.outsiderPutDenied(),
            p.outsiderScanDenied(), p.outsiderScanRows(), p.tableGrants(),
            p.cellReaderCells())));
      }
      return new Acl(AclComparison.USER, s.records(), s.threads(), s.rounds(), s.scanLength(),
        s.bufferBytes(), new AclPaper(AclComparison.PAPER_INSERT_RATIO.get(11),
          AclComparison.PAPER_INSERT_RATIO.get(4), "0.5-0.6"), variants);
    }
  }
}
