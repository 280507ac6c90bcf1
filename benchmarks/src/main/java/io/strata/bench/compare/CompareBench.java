package io.strata.bench.compare;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.strata.bench.common.BenchCommand;
import io.strata.bench.common.BenchJson;
import io.strata.bench.common.BenchOptions;
import io.strata.bench.common.RunLabels;
import io.strata.bench.monitor.BenchMonitor;
import io.strata.bench.ycsb.HBaseClient26;
import io.strata.bench.ycsb.InProcessYcsb;
import io.strata.bench.ycsb.YcsbTable;
import io.strata.bench.ycsb.YcsbWorkloads;
import io.strata.cli.CommandLines;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code strata bench compare}: what Strata is worth against HBase 2.6.4 / HDFS 3.4.2 as a user
 * runs them today, on the same emulated devices. Three configurations, each on a fresh
 * multi-process {@code strata-cluster} (the distribution's script: {@code up --fresh}, then
 * {@code down}, which also removes the loop volumes and their blkio throttle lines):
 * <ul>
 * <li>{@code stock}: upstream jars and defaults, every SSD, DISK and ARCHIVE volume declared
 * DISK, no Strata plug-in or daemon;</li>
 * <li>{@code tuned}: the same upstream jars with the volumes declared as what they are, and the
 * knobs upstream gives an informed operator: {@code hbase.wal.storage.policy=ALL_SSD} and the
 * family's {@code STORAGE_POLICY=ONE_SSD} (HDFS's own policies);</li>
 * <li>{@code strata}: Strata's defaults (the durable {@code RAM_SSD} WAL, tiered placement,
 * satisfier and tier mover, the RAM tier).</li>
 * </ul>
 * On each cluster, two tables: one with HBase's default WAL sync ({@code hflush}) and one with
 * {@code Durability.FSYNC_WAL} ({@code hsync}); YCSB's load, then workloads A, B, C, F and E
 * (E last: its inserts grow the table), each on the hflush table then the hsync one, YCSB
 * running in this JVM over a connection made from the cluster's own client site files. Repeated
 * {@code --reps} times with the configurations' order rotated; the medians, every run and
 * Strata's ratios go to {@code --json}. The media probe ({@code fio} through the throttled
 * devices) runs at the first cluster's {@code up} and is kept with the result.
 */
public final class CompareBench {
  static final String COMMAND = "strata bench compare";
  static final String FAMILY = YcsbTable.DEFAULT_FAMILY;
  static final String CONNECTION = "compare";
  static final String TUNED_WAL_POLICY = "ALL_SSD";
  static final String TUNED_FAMILY_POLICY = "ONE_SSD";
  /** The workload files behind the JSON's keys (load runs workload A's insert phase). */
  static final Map<String, String> FILES = Map.of("load", YcsbWorkloads.A, "a", YcsbWorkloads.A,
    "b", YcsbWorkloads.B, "c", YcsbWorkloads.C, "e", YcsbWorkloads.E, "f", YcsbWorkloads.F);
  /** The order the workloads run in on each cluster. */
  static final List<String> RUN_ORDER = List.of("load", "a", "b", "c", "f", "e");
  static final List<String> MODES = List.of("hflush", "hsync");
  private static final String HEADER = "Strata against stock and tuned-upstream HBase 2.6.4 / "
    + "HDFS 3.4.2 on the same emulated devices: each configuration on a fresh multi-process "
    + "cluster, YCSB load, A, B, C, E, F with the WAL in hflush and hsync, repeated with the "
    + "order rotated; medians, runs and Strata's ratios.";

  private CompareBench() {
  }

  /** The command line. */
  @Command(name = COMMAND, sortOptions = false, description = HEADER)
  static final class Cli extends BenchCommand<Settings> {
    @Option(names = "--quick", description = "fewer records and operations, the same shape "
      + "(within 20 minutes on a 2-core machine; not a headline)")
    boolean quick;
    @Option(names = "--reps", paramLabel = "N", defaultValue = "3",
      description = "repetitions, the configurations' order rotated (default ${DEFAULT-VALUE})")
    int reps;
    @Option(names = "--records", paramLabel = "N",
      description = "records loaded per table (default 5000 with --quick, else 2500000)")
    Long records;
    @Option(names = "--operations", paramLabel = "N",
      description = "operations per workload and table (E: a fifth of them, scans of up to 100 "
        + "rows; default 1500 with --quick, else 200000)")
    Long operations;
    @Option(names = "--threads", paramLabel = "N", defaultValue = "8",
      description = "YCSB client threads (default ${DEFAULT-VALUE})")
    int threads;
    @Option(names = "--regions", paramLabel = "N", defaultValue = "4",
      description = "regions each table is pre-split into (default ${DEFAULT-VALUE})")
    int regions;
    @Option(names = "--media", paramLabel = "blkio|in-process", defaultValue = "blkio",
      description = "the volumes' emulation (default ${DEFAULT-VALUE}; refused by the kernel, "
        + "the cluster falls back to in-process and the result says so)")
    String media;
    @Option(names = "--dist-home", paramLabel = "DIR", required = true,
      description = "the unpacked distribution whose bin/strata-cluster runs the clusters "
        + "(./strata passes it)")
    File distHome;
    @Option(names = "--source-dir", paramLabel = "DIR",
      description = "the Strata source tree whose commit labels the result (default: the one "
        + "./strata runs from, named by -D" + RunLabels.SOURCE_DIR_PROPERTY + "; without either, "
        + "or not a Strata git work tree: unknown)")
    File sourceDir;
    @Option(names = "--base-port", paramLabel = "P", defaultValue = "27000",
      description = "the clusters' first port (default ${DEFAULT-VALUE}, clear of strata "
        + "cluster's 26000)")
    int basePort;
    @Option(names = "--work-dir", paramLabel = "DIR",
      description = "the clusters' directory, wiped per cluster (default "
        + "$STRATA_WORK/bench/compare)")
    File workDir;
    @Option(names = "--out", paramLabel = "DIR",
      description = "write report.md, results.json, monitor.png and the probe's fio output "
        + "here")
    File out;
    @Mixin
    BenchOptions.JsonFile json;
    @Mixin
    BenchOptions.Monitoring monitoring;

    @Override
    protected Settings settings() {
      if (!"blkio".equals(media) && !"in-process".equals(media)) {
        throw new IllegalArgumentException("--media must be blkio or in-process, not '" + media
          + "'");
      }
      long rec = records != null ? records : quick ? 5_000 : 2_500_000;
      long ops = operations != null ? operations : quick ? 1_500 : 200_000;
      return new Settings(quick, atLeast("--reps", reps, 1), atLeast("--records", rec, 100),
        atLeast("--operations", ops, 10), atLeast("--threads", threads, 1),
        atLeast("--regions", regions, 1), media, distHome.getAbsoluteFile(),
        sourceDir != null ? sourceDir.getAbsoluteFile() : RunLabels.sourceDir(),
        atLeast("--base-port", basePort, 1024),
        (workDir != null ? workDir : CommandLines.workDir("bench/compare")).getAbsoluteFile(),
        out, json.file(), monitoring.intervalMs());
    }
  }

  /** What one run does. */
  record Settings(boolean quick, int reps, long records, long operations, int threads,
    int regions, String media, File distHome, File sourceDir, int basePort, File workDir,
    File out, File json, long monitorMs) {

    /** The cluster's size: smaller with --quick, so that starting nine of them fits. */
    List<String> clusterArgs(String config, boolean probe) {
      List<String> a = new ArrayList<>(List.of("--config", config, "--media", media,
        "--datanodes", "3", "--regionservers", quick ? "1" : "2", "--transport", "none",
        "--base-port", Integer.toString(basePort)));
      if ("tuned".equals(config)) {
        a.addAll(List.of("--wal-policy", TUNED_WAL_POLICY));
      }
      if (!quick && "blkio".equals(media)) {
        // A mixed node scaled down: per DataNode 256 MiB of RAM tier and 1 GiB of SSD hold less
        // than the 2.5 GB (x3 replicas over 3 DataNodes) of the full data set; the HDDs hold it.
        a.addAll(List.of("--ram-mb", "256", "--volume-gb", "ssd=1"));
      }
      if (!probe && "blkio".equals(media)) {
        a.add("--no-probe");
      }
      return a;
    }

    long operations(String workload) {
      return "load".equals(workload) ? records
        : "e".equals(workload) ? Math.max(1, operations / 5) : operations;
    }

    Duration phaseLimit() {
      return quick ? Duration.ofSeconds(20) : Duration.ofMinutes(30);
    }
  }

  public static void main(String[] args) {
    CommandLines.runAndHalt(COMMAND, () -> run(args, System.out));
  }

  static int run(String[] args, PrintStream out) throws Exception {
    return BenchCommand.run(new Cli(), args, out, s -> run(s, out));
  }

  static int run(Settings s, PrintStream out) throws Exception {
    long t0 = System.nanoTime();
    // Decided as the run starts: the tree may change while it runs.
    String commit =
      s.sourceDir() != null ? RunLabels.commit(s.sourceDir()) : RunLabels.UNKNOWN;
    out.printf(Locale.ROOT, "%s: commit %s (source tree %s)%n", COMMAND, commit,
      s.sourceDir() != null ? s.sourceDir() : "not named");
    out.printf(Locale.ROOT, "%s: %d repetitions of stock, tuned, strata (order rotated), "
      + "%d records, %d operations per workload, %d threads, media %s, clusters in %s%n",
      COMMAND, s.reps(), s.records(), s.operations(), s.threads(), s.media(), s.workDir());
    // runs.get(mode).get(workload).get(config): every run, in the order they ran.
    Map<String, Map<String, Map<String, List<CompareResult.Run>>>> runs = new LinkedHashMap<>();
    for (String m : MODES) {
      Map<String, Map<String, List<CompareResult.Run>>> byWorkload = new LinkedHashMap<>();
      for (String w : CompareResult.WORKLOADS) {
        Map<String, List<CompareResult.Run>> byConfig = new LinkedHashMap<>();
        CompareResult.CONFIGS.forEach(c -> byConfig.put(c, new ArrayList<>()));
        byWorkload.put(w, byConfig);
      }
      runs.put(m, byWorkload);
    }
    AtomicReference<ClusterProcess> current = new AtomicReference<>();
    Thread downOnExit = new Thread(() -> {
      ClusterProcess c = current.getAndSet(null);
      if (c != null) {
        try {
          c.close();
        } catch (IOException e) {
          System.err.println(COMMAND + ": bringing the cluster in " + c.dir() + " down: " + e);
        }
      }
    }, "compare-cluster-down");
    Runtime.getRuntime().addShutdownHook(downOnExit);
    String emulation = null;
    JsonNode probe = null;
    File outDir = s.out() != null ? s.out() : s.workDir();
    ObjectNode monitoring = JsonNodeFactory.instance.objectNode();
    List<ReplicaLanding> landings = new ArrayList<>();
    try (BenchMonitor monitor = BenchMonitor.start(s.monitorMs(), true)) {
      for (int rep = 0; rep < s.reps(); rep++) {
        List<String> order = CompareStats.order(CompareResult.CONFIGS, rep);
        out.printf(Locale.ROOT, "repetition %d of %d: %s%n", rep + 1, s.reps(), order);
        for (String config : order) {
          boolean first = emulation == null;
          String phase = "rep " + (rep + 1) + " " + config;
          monitor.phase(phase + " up");
          File dir = new File(s.workDir(), "cluster");
          File log = new File(s.workDir(), "logs/rep" + (rep + 1) + "-" + config + ".log");
          Files.deleteIfExists(log.toPath());
          out.printf(Locale.ROOT, "  %s: strata-cluster up --fresh %s%n", config,
            String.join(" ", s.clusterArgs(config, first)));
          try (ClusterProcess cluster = ClusterProcess.up(s.distHome(), dir, log,
            s.clusterArgs(config, first), out)) {
            current.set(cluster);
            JsonNode status = cluster.status();
            String em = status.path("emulation").asText();
            if (first) {
              emulation = em;
              probe = status.path("probe");
              keepProbe(cluster.dir(), outDir, out);
              if (!s.media().equals(em)) {
                out.printf(Locale.ROOT, "  WARN --media %s was refused (see %s): the clusters "
                  + "run with the %s emulation, and the result says so%n", s.media(), log, em);
              }
            } else if (!emulation.equals(em)) {
              throw new IllegalStateException("The clusters' emulation changed from " + emulation
                + " to " + em + " (see " + log + "): their figures do not compare");
            }
            try (Connection conn = ConnectionFactory.createConnection(
              cluster.clientConfiguration())) {
              monitor.follow(conn);
              HBaseClient26.provideConnection(CONNECTION, conn);
              try {
                measure(conn, cluster.clientConfiguration(), config, rep, s, monitor, runs,
                  landings, out);
              } finally {
                HBaseClient26.withdrawConnection(CONNECTION);
                monitor.follow(null);
              }
            }
            monitor.phase(phase + " down");
          } finally {
            current.set(null);
          }
        }
      }
      monitor.writeIn(monitoring, outDir, COMMAND, out);
    } finally {
      Runtime.getRuntime().removeShutdownHook(downOnExit);
    }
    CompareResult result = new CompareResult(commit, Instant.now().toString(), "netty",
      emulation, probe, CompareResult.workloads(runs.get("hflush")),
      CompareResult.workloads(runs.get("hsync")));
    String report = report(result, s, (System.nanoTime() - t0) / 1e9, landings);
    out.println();
    out.print(report);
    if (s.json() != null) {
      BenchJson.write(s.json(), result);
      out.println("JSON written to " + s.json());
    }
    if (s.out() != null) {
      BenchJson.write(new File(s.out(), "results.json"), result);
      if (monitoring.has(BenchMonitor.SECTION)) {
        BenchJson.write(new File(s.out(), "monitoring.json"), monitoring);
      }
      BenchJson.write(new File(s.out(), "landing.json"), landings);
      Files.writeString(new File(s.out(), "report.md").toPath(), report, StandardCharsets.UTF_8);
      out.println("report written to " + s.out());
    }
    return 0;
  }

  /**
   * The two tables, then every workload on each, on one configuration's fresh cluster; where
   * the replicas are after the load and after the workloads.
   */
  static void measure(Connection conn, Configuration clusterConf,
    String config, int rep, Settings s, BenchMonitor monitor,
    Map<String, Map<String, Map<String, List<CompareResult.Run>>>> runs,
    List<ReplicaLanding> landings, PrintStream out) throws Exception {
    try (Admin admin = conn.getAdmin()) {
      for (String mode : MODES) {
        createTable(admin, table(mode), config, mode, s.regions());
      }
    }
    File workloadDir = new File(s.workDir(), "workloads");
    for (String w : RUN_ORDER) {
      for (String mode : MODES) {
        monitor.phase("rep " + (rep + 1) + " " + config + " " + w + " " + mode);
        Properties p = properties(w, mode, s, workloadDir);
        boolean load = "load".equals(w);
        long ops = s.operations(w);
        InProcessYcsb.Figures f = InProcessYcsb.run(p, !load, s.threads(), ops, s.phaseLimit());
        if (f.failed() > Math.max(1, f.operations() / 100)) {
          throw new IllegalStateException(config + " " + w + " " + mode + ": " + f.failed()
            + " of " + f.operations() + " operations failed (see the cluster's logs)");
        }
        CompareResult.Run run = new CompareResult.Run(rep + 1,
          CompareStats.round(f.opsPerSec(), 1), us(f, 50), us(f, 99), us(f, 99.9));
        runs.get(mode).get(w).get(config).add(run);
        out.printf(Locale.ROOT, "    %-6s %-4s %-6s %s%s%n", config, w, mode, f,
          f.operations() < ops ? " (stopped at the phase limit of " + s.phaseLimit().toSeconds()
            + " s)" : "");
        if (load && f.operations() < ops) {
          completeLoad(p, f.operations(), s, config, mode, out);
        }
      }
      if ("load".equals(w)) {
        // The loaded rows go to HFiles, placed as the configuration places flushed files; the
        // workloads then read them there (or from the block cache, as HBase would).
        try (Admin admin = conn.getAdmin()) {
          for (String mode : MODES) {
            admin.flush(TableName.valueOf(table(mode)));
          }
        }
        TimeUnit.SECONDS.sleep(2);
        landings.add(landing(clusterConf, config, rep, "after load", out));
      }
    }
    landings.add(landing(clusterConf, config, rep, "after workloads", out));
  }

  /** Where the replicas are now; a failure to read them is said, and the run goes on. */
  private static ReplicaLanding landing(Configuration clusterConf,
    String config, int rep, String when, PrintStream out) {
    try {
      ReplicaLanding l = ReplicaLanding.measure(clusterConf, config, rep + 1, when);
      out.printf(Locale.ROOT, "    %-6s replicas %s: %s%n", config, when, l.bytes());
      return l;
    } catch (IOException e) {
      out.printf(Locale.ROOT, "    WARN %s: could not read where the replicas are %s: %s%n",
        config, when, e);
      return new ReplicaLanding(config, rep + 1, when, Map.of());
    }
  }

  /**
   * The rest of a load the phase limit stopped (the slowest configuration's hsync, on HDDs),
   * unmeasured and with HBase's default WAL sync ({@code SYNC_WAL} on each Put overrides the
   * table's {@code FSYNC_WAL}), so that the workloads after it find every record. The load's
   * threads take key numbers from one counter, so the keys below {@code done - threads} are
   * in; the few above may be, and are written again.
   */
  static void completeLoad(Properties loadProps, long done, Settings s, String config,
    String mode, PrintStream out) throws Exception {
    Properties p = new Properties();
    p.putAll(loadProps);
    long start = Math.max(0, done - s.threads());
    long count = s.records() - start;
    p.setProperty("insertstart", Long.toString(start));
    p.setProperty("insertcount", Long.toString(count));
    p.setProperty(HBaseClient26.DURABILITY, Durability.SYNC_WAL.name());
    InProcessYcsb.Figures f = InProcessYcsb.run(p, false, s.threads(), count,
      Duration.ofMinutes(30));
    if (f.operations() < count || f.failed() > 0) {
      throw new IllegalStateException(config + " " + mode + ": completing the load wrote "
        + f.operations() + " of " + count + " records, " + f.failed() + " failed");
    }
    out.printf(Locale.ROOT, "    %-6s load %-6s completed (unmeasured, hflush): %s%n", config,
      mode, f);
  }

  static String table(String mode) {
    return "compare_" + mode;
  }

  /**
   * The YCSB table of one WAL mode: hsync through {@link Durability#FSYNC_WAL} on the table
   * (HBase then hsyncs the WAL for its edits), hflush with HBase's default; the family's
   * {@code STORAGE_POLICY} for tuned upstream.
   */
  static void createTable(Admin admin, String name, String config, String mode, int regions)
    throws IOException {
    ColumnFamilyDescriptorBuilder family = ColumnFamilyDescriptorBuilder.newBuilder(
      org.apache.hadoop.hbase.util.Bytes.toBytes(FAMILY));
    if ("tuned".equals(config)) {
      family.setStoragePolicy(TUNED_FAMILY_POLICY);
    }
    TableDescriptorBuilder td = TableDescriptorBuilder.newBuilder(TableName.valueOf(name))
      .setColumnFamily(family.build());
    if ("hsync".equals(mode)) {
      td.setDurability(Durability.FSYNC_WAL);
    }
    if (regions <= 1) {
      admin.createTable(td.build());
    } else {
      admin.createTable(td.build(), YcsbTable.splitKeys(regions));
    }
  }

  /** One phase's YCSB properties: the workload file's, then the run's over them. */
  static Properties properties(String workload, String mode, Settings s, File dir)
    throws IOException {
    Properties p = new Properties();
    try (InputStream in = YcsbWorkloads.open(FILES.get(workload))) {
      p.load(in);
    }
    p.setProperty("recordcount", Long.toString(s.records()));
    p.setProperty("operationcount", Long.toString(s.operations(workload)));
    p.setProperty("fieldcount", "10");
    p.setProperty("fieldlength", "100");
    p.setProperty(HBaseClient26.TABLE, table(mode));
    p.setProperty(HBaseClient26.COLUMN_FAMILY, FAMILY);
    p.setProperty(HBaseClient26.CONNECTION, CONNECTION);
    return p;
  }

  private static double us(InProcessYcsb.Figures f, double percentile) {
    return CompareStats.round(f.allNs().getValueAtPercentile(percentile) / 1000.0, 1);
  }

  /** The probe's summary and fio's own output, from the first cluster, next to the result. */
  private static void keepProbe(File clusterDir, File outDir, PrintStream out) throws IOException {
    File media = new File(clusterDir, "media");
    File[] files = media.listFiles((d, n) -> n.startsWith("probe") && n.endsWith(".json"));
    if (files == null || files.length == 0) {
      return;
    }
    File dest = new File(outDir, "probe");
    Files.createDirectories(dest.toPath());
    for (File f : files) {
      Files.copy(f.toPath(), new File(dest, f.getName()).toPath(),
        StandardCopyOption.REPLACE_EXISTING);
    }
    out.println("  media probe kept in " + dest);
  }

  static String report(CompareResult r, Settings s, double seconds,
    List<ReplicaLanding> landings) {
    StringBuilder b = new StringBuilder();
    b.append("# Strata against stock and tuned upstream\n\n");
    b.append(String.format(Locale.ROOT, "Commit %s, %s; transport %s; emulation %s; %s run, %d "
      + "repetitions (order rotated), %d records and %d operations per workload and table "
      + "(E: %d scans), %d YCSB threads, %d regions per table; %.0f s in all.%n%n", r.commit(),
      r.date(), r.transport(), r.emulation(), s.quick() ? "quick (not a headline)" : "full",
      s.reps(), s.records(), s.operations(), s.operations("e"), s.threads(), s.regions(),
      seconds));
    b.append("Spread: (max - min) / median of the runs. Ratios: Strata's median over the "
      + "other's (ops/s above 1 and p99 below 1 favour Strata).\n\n");
    b.append(CompareResult.markdown(r));
    if (!landings.isEmpty()) {
      b.append("\n## Where the replicas landed\n\n");
      b.append("Replica bytes per storage type under HBase's root (tables: the tables' files; "
        + "archive: files compactions replaced; wals: live WALs; old_wals: rolled ones), summed "
        + "over the repetitions, as shares of each part (`landing.json` has every "
        + "repetition).\n\n");
      b.append(ReplicaLanding.markdown(landings));
    }
    return b.toString();
  }
}
