package io.strata.bench.pcm;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.strata.bench.common.BenchCommand;
import io.strata.bench.common.BenchJson;
import io.strata.bench.common.BenchOptions;
import io.strata.bench.common.RunLabels;
import io.strata.cli.CommandLines;
import io.strata.bench.monitor.BenchMonitor;
import io.strata.local.LocalClusterConfig;
import io.strata.local.TieredDfsCluster;
import io.strata.pcm.AdaptationManager;
import io.strata.pcm.PolicyKey;
import io.strata.pcm.PolicyLoader;
import java.io.File;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code strata bench pcm}: the PCM paper's evaluation on a cluster of three RegionServers and
 * three DataNodes in this JVM, every comparison side by side in one run:
 * <ol>
 * <li>Table III step by step: a bulk load under S.1 (default) to S.9 (pre-split, bigger heap,
 * bigger memstore flush size, more blocking store files and a higher compaction threshold);</li>
 * <li>per workload (Fig. 5): the class's PCM policy against the default for BL, WO-Update,
 * RO-Read, RO-Scan and MixRW, for each dataset size of the scale;</li>
 * <li>adaptation: a bulk load then a read-mostly phase under the PCM watch loop (monitor,
 * classifier, hysteresis, adaptation manager, executor, in this JVM), how long the switch took
 * and the second phase's throughput against the default and the first phase's policy;</li>
 * <li>classification accuracy: YCSB's core mixes A to F, write-only insert and write-only update,
 * each driven against the cluster and classified from its metrics.</li>
 * </ol>
 * Every comparison is against two baselines ({@link Side}): stock HBase 2.6 (primary: its
 * default split policy, nothing set) and the paper's IncreasingToUpperBoundRegionSplitPolicy
 * (secondary, set per table); {@code --runs N} repeats each comparison with its sides' order
 * rotated, reported as the median and min-max of the runs' speed-ups.
 * Sizes are the paper's divided by the scale's divisor ({@link PcmScale}). A RegionServer's heap
 * cannot differ from the JVM's, and three share it: a heap of H GB is emulated by giving each
 * RegionServer the memstore and block cache shares of H GB (scaled) as fractions of this JVM's
 * heap; heap settings, like on a real cluster, need an HBase restart, the rest is applied online.
 * This class is the command line and the run's course; {@link PcmRun} does the parts'
 * work, {@link PcmResults} gathers the figures, {@link PcmResult} is the JSON and
 * {@link PcmReport} the report. Not thread-safe: one run per JVM (it starts clusters).
 */
public final class PcmBench {
  static final String COMMAND = "strata bench pcm";
  static final int REGION_SERVERS = 3;
  /** HBase's default heap in the paper (1 GB) and its default memstore and cache shares. */
  static final int DEFAULT_HEAP_GB = 1;
  static final double DEFAULT_SHARE = 0.4;
  /** The paper's node memory (8 GB), of which a policy takes its heap share. */
  static final long PAPER_NODE_RAM = 8L << 30;
  static final List<String> PARTS = List.of("table3", "workloads", "distributions",
    "adaptation", "classification");
  private static final String PARTS_LIST =
    "table3, workloads, distributions, adaptation, classification";
  private static final String HEADER = "Runs the PCM paper's evaluation on 3 RegionServers in "
    + "this JVM: Table III's bulk-load steps, PCM vs default per workload (Fig. 5) and per key "
    + "distribution (Fig. 6: uniform, Zipfian, latest), an adaptation "
    + "from bulk load to read-mostly under the watch loop, and the classification of YCSB's core "
    + "mixes; PCM against stock HBase 2.6 (primary baseline) and IncreasingToUpperBound"
    + "RegionSplitPolicy (secondary), --runs times with the order rotated. Writes report.md, results.json and PNG plots to --out. Parts: " + PARTS_LIST
    + ".";

  private PcmBench() {
  }

  /** The command line: picocli's options, turned into {@link Settings}. */
  @Command(name = COMMAND, sortOptions = false, description = HEADER)
  static final class Cli extends BenchCommand<Settings> {
    @Option(names = "--scale", paramLabel = "quick|full", defaultValue = "quick",
      description = "quick (default, about 15 minutes) or full")
    String scale;
    @Option(names = "--runs", paramLabel = "N",
      description = "repetitions of every comparison, each with its sides in a rotated order; "
        + "reported as median and min-max (default: 1 for quick, 3 for full)")
    Integer runs;
    @Option(names = "--parts", paramLabel = "P,P",
      description = "comma-separated parts to run, of " + PARTS_LIST + " (default: all)")
    String parts;
    @Mixin
    BenchOptions.JsonFile json;
    @Option(names = "--out", paramLabel = "DIR",
      description = "report directory (default $STRATA_WORK/bench/pcm/report-SCALE)")
    File out;
    @Mixin
    BenchOptions.Monitoring monitoring;
    @Option(names = "--work-dir", paramLabel = "DIR",
      description = "cluster data, wiped at start (default $STRATA_WORK/bench/pcm/work)")
    File workDir;

    @Override
    protected Settings settings() {
      PcmScale s;
      Set<String> chosen;
      try {
        s = PcmScale.parse(scale);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("--scale: " + e.getMessage(), e);
      }
      try {
        chosen = parseParts(parts != null ? parts : String.join(",", PARTS));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("--parts: " + e.getMessage(), e);
      }
      int n = runs != null ? runs : defaultRuns(s);
      if (n < 1) {
        throw new IllegalArgumentException("--runs: " + n + " is not a number of runs; give 1 or "
          + "more");
      }
      File base = CommandLines.workDir("bench/pcm");
      return new Settings(s, chosen, n, out != null ? out : new File(base, "report-"
        + s.optionName()), workDir != null ? workDir : new File(base, "work"), json.file(),
        monitoring.intervalMs());
    }
  }

  /** What one run does. */
  record Settings(PcmScale scale, Set<String> parts, int runs, File out, File workDir,
    File json, long monitorMs) {
  }

  /** Runs when --runs is not given: one for a quick look, three for the figures kept. */
  static int defaultRuns(PcmScale scale) {
    return scale.equals(PcmScale.FULL) ? 3 : 1;
  }

  public static void main(String[] args) {
    CommandLines.runAndHalt(COMMAND, () -> run(args, System.out));
  }

  static int run(String[] args, PrintStream out) throws Exception {
    return BenchCommand.run(new Cli(), args, out, s -> run(new LocalClusterConfig()
      .workDir(s.workDir()), s.scale(), s.parts(), s.runs(), s.out(), s.json(), s.monitorMs(), out));
  }

  /** The parts named in {@code list}, each checked. */
  static Set<String> parseParts(String list) {
    Set<String> parts = new TreeSet<>();
    for (String p : list.split(",")) {
      String t = p.trim().toLowerCase(Locale.ROOT);
      if (t.isEmpty()) {
        continue;
      }
      if (!PARTS.contains(t)) {
        throw new IllegalArgumentException("unknown part '" + p.trim() + "'; the parts are "
          + String.join(", ", PARTS));
      }
      parts.add(t);
    }
    if (parts.isEmpty()) {
      throw new IllegalArgumentException("--parts names no part; the parts are "
        + String.join(", ", PARTS));
    }
    return parts;
  }

  /**
   * Runs the parts {@code runs} times on a cluster made from {@code config}, monitored every
   * {@code monitorMs} (0: not); 0 when every part ran. Each repetition starts its own HBase
   * clusters and runs each comparison's sides in an order rotated by its index; the
   * classification, which compares no sides, runs in the first only.
   */
  static int run(LocalClusterConfig config, PcmScale scale, Set<String> parts, int runs,
    File outDir, File json, long monitorMs, PrintStream out) throws Exception {
    long started = System.nanoTime();
    String splitPolicy = config.hbaseOverrides().get(PolicyKey.SPLIT_POLICY);
    if (splitPolicy != null) {
      // The stock baseline is HBase's own default; a cluster-wide policy would replace it.
      throw new IllegalArgumentException("the cluster sets " + PolicyKey.SPLIT_POLICY + " to "
        + splitPolicy + "; the stock baseline runs under HBase's default split policy, so the "
        + "bench's cluster must leave it unset (the secondary baseline sets its own per table)");
    }
    config.dataNodes(REGION_SERVERS).regionServers(REGION_SERVERS).tieredPlacement(false)
      .startSatisfier(false).startTierMover(false).ramBytesPerDataNode(128L << 20);
    // RegionServers report their counters to the master twice a second, so that the monitor's
    // one-second reads see fresh counts (default every 3 s).
    config.hbase("hbase.regionserver.msginterval", "500");
    config.hbase("hbase.master.wait.on.regionservers.mintostart", Integer.toString(REGION_SERVERS));
    config.hbase("hbase.master.wait.on.regionservers.timeout", "1000");
    config.hbase("hbase.master.wait.on.regionservers.interval", "100");
    // The paper's defaults, scaled: 128 MB flushes, 10 GB regions.
    config.hbase(PolicyKey.FLUSH_SIZE, Long.toString(scale.scaled(128)));
    config.hbase(PolicyKey.MAX_FILESIZE, Long.toString(scale.scaled(10L << 10)));
    BenchMonitor.hbaseKeys(monitorMs).forEach(config::hbase);
    PcmResults results = new PcmResults(scale, Runtime.getRuntime().maxMemory());
    results.runs(runs);
    out.printf(Locale.ROOT, "[pcm] scale %s: sizes / %d, bulk load %,d records of 1 KB, "
      + "datasets %s, %d RegionServers in one JVM of %d MiB heap, %d run(s); baselines: %s "
      + "(primary, HBase's default split policy), %s (split policy %s); report in %s%n",
      scale.optionName(), scale.sizeDivisor(), scale.bulkRecords(), scale.datasets(),
      REGION_SERVERS, Runtime.getRuntime().maxMemory() >> 20, runs, Side.STOCK.label(),
      Side.INCREASING_TO_UPPER_BOUND.label(), Side.INCREASING_TO_UPPER_BOUND.splitPolicy(),
      outDir);
    AdaptationManager manager = new AdaptationManager(PolicyLoader.load(null));
    // Decided as the run starts: the commit measured, HBase's client transport, no media emulation.
    RunLabels labels = RunLabels.now(RunLabels.clientTransport(config.hbaseOverrides()::get),
      RunLabels.NO_EMULATION);
    try (TieredDfsCluster dfs = TieredDfsCluster.start(config);
      BenchMonitor monitor = BenchMonitor.start(monitorMs, true)) {
      PcmRun b = new PcmRun(dfs, scale, manager, results, monitor, out);
      for (int r = 0; r < runs; r++) {
        b.repetition(r);
        List<PcmRun.Job> jobs = new ArrayList<>();
        for (String part : PARTS) {
          if (!parts.contains(part)) {
            continue;
          }
          switch (part) {
            case "table3":
              b.table3(jobs);
              break;
            case "workloads":
              b.workloads(jobs);
              break;
            case "distributions":
              b.distributions(jobs);
              break;
            case "adaptation":
              b.adaptation(jobs);
              break;
            default:
              if (r == 0) {
                b.classification(jobs);
              }
          }
        }
        if (runs > 1) {
          out.printf(Locale.ROOT, "[pcm] run %d of %d%n", r + 1, runs);
        }
        b.runGrouped(jobs);
      }
      ObjectNode monitored = new ObjectMapper().createObjectNode();
      if (monitor.writeIn(monitored, outDir, COMMAND, out) != null) {
        results.monitoring((ObjectNode) monitored.get(BenchMonitor.SECTION));
      }
    }
    results.seconds((System.nanoTime() - started) / 1e9);
    PcmResult result = PcmResult.of(labels, results);
    List<File> written = new PcmReport(result, scale).write(outDir);
    if (json != null) {
      BenchJson.write(json, result);
      written.add(json);
    }
    out.printf(Locale.ROOT, "%n%s%n[pcm] done in %.1f s%n", PcmReport.summary(result),
      (System.nanoTime() - started) / 1e9);
    for (File f : written) {
      out.println("[pcm] wrote " + f);
    }
    return results.failed.isEmpty() ? 0 : 1;
  }
}
