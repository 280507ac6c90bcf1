package io.strata.local;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.strata.cli.CommandLines;
import io.strata.cli.JsonReports;
import io.strata.hbase.placement.PlacementReport;
import io.strata.hbase.placement.PlacementScanner;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.Option;
import org.apache.commons.cli.Options;
import sun.misc.Signal;

/**
 * {@code strata local}: the embedded tiered cluster (HDFS with NVDIMM/SSD/DISK/ARCHIVE volumes,
 * the Storage Policy Satisfier, HBase on top) in one JVM, with the placement demo or serving
 * clients until Ctrl-C.
 */
public final class StrataLocal {
  private static final String HEADER = "Starts HDFS (DataNodes with NVDIMM, SSD, DISK and ARCHIVE "
    + "volumes), the Storage Policy Satisfier and HBase in this JVM. By default runs the demo "
    + "workload and prints the placement and latency report; with --serve keeps the cluster up "
    + "for clients until Ctrl-C.\n\n";

  private StrataLocal() {
  }

  static Options options() {
    Options o = new Options();
    o.addOption(null, "work-dir", true, "work directory (default .strata-work/local)");
    o.addOption(null, "ram-dir", true,
      "directory of the RAM (NVDIMM) tier (default /dev/shm/strata-USER-ID)");
    o.addOption(null, "ram-mb", true, "RAM tier size per DataNode in MiB (default 1024)");
    o.addOption(null, "datanodes", true, "number of DataNodes (default 3)");
    o.addOption(null, "regionservers", true, "number of RegionServers (default 1)");
    o.addOption(null, "data-mb", true, "MiB of rows the demo writes (default 256)");
    o.addOption(null, "value-bytes", true, "bytes per row value in the demo (default 1024)");
    o.addOption(null, "reads", true, "random Gets the demo times (default 2000)");
    o.addOption(null, "json", true, "write the placement and latency report as JSON to this file");
    o.addOption(null, "serve", false,
      "keep the cluster up for clients until Ctrl-C (skips the demo unless --demo)");
    o.addOption(null, "demo", false, "with --serve: run the demo first");
    o.addOption(null, "keep", false, "keep the RAM tier directory on shutdown");
    o.addOption(null, "upstream", false,
      "run upstream HBase's placement instead of Strata's (the baseline)");
    o.addOption(Option.builder().longOpt("hbase").hasArg().argName("KEY=VALUE")
      .desc("set an HBase configuration key (repeatable)").build());
    o.addOption(Option.builder().longOpt("dfs").hasArg().argName("KEY=VALUE")
      .desc("set an HDFS configuration key (repeatable)").build());
    o.addOption("h", "help", false, "this text");
    return o;
  }

  public static void main(String[] args) {
    CommandLines.runAndHalt("strata local", () -> run(args, System.out));
  }

  static int run(String[] args, PrintStream out) throws Exception {
    CommandLines.Parsed<Settings> parsed;
    try {
      parsed = CommandLines.settings("strata local", "strata local [options]", HEADER, options(),
        args, StrataLocal::settings);
    } catch (CommandLines.Exit e) {
      return e.code();
    }
    CommandLine cl = parsed.line();
    Settings settings = parsed.settings();
    LocalClusterConfig config = settings.config();
    boolean serve = cl.hasOption("serve");
    boolean demo = !serve || cl.hasOption("demo");
    long started = System.nanoTime();
    out.printf(Locale.ROOT, "[local] starting HDFS: %d DataNodes x [NVDIMM %d MiB in %s, SSD, "
      + "DISK, ARCHIVE under %s]%n", config.dataNodes(), config.ramBytesPerDataNode() >> 20,
      config.ramDir(), config.workDir());
    TieredDfsCluster dfs;
    try {
      dfs = TieredDfsCluster.start(config);
    } catch (IOException e) {
      System.err.println("strata local: cannot start HDFS: " + e.getMessage());
      return 1;
    }
    try {
      out.printf(Locale.ROOT, "[local] HDFS up at %s; starting HBase%n", dfs.uri());
      try (EmbeddedHBase hbase = EmbeddedHBase.start(dfs)) {
        out.printf(Locale.ROOT, "[local] HBase up in %.1f s: root %s, ZooKeeper %s%n",
          (System.nanoTime() - started) / 1e9, hbase.rootDir(), hbase.zookeeperQuorum());
        int code = 0;
        if (demo) {
          code = demo(cl, settings, dfs, hbase, out);
        }
        if (serve) {
          serve(dfs, hbase, out);
        }
        out.printf(Locale.ROOT, "[local] done in %.1f s; shutting down%n",
          (System.nanoTime() - started) / 1e9);
        return code;
      }
    } finally {
      dfs.close();
    }
  }

  /** The cluster and the demo's data size, checked before the cluster starts. */
  private record Settings(LocalClusterConfig config, long dataBytes, int valueBytes, int reads) {
  }

  private static Settings settings(CommandLine cl) {
    return new Settings(config(cl), CommandLines.wholeNumber(cl, "data-mb", 256, 1) << 20,
      (int) CommandLines.wholeNumber(cl, "value-bytes", 1024, 1),
      (int) CommandLines.wholeNumber(cl, "reads", 2000, 1));
  }

  private static int demo(CommandLine cl, Settings s, TieredDfsCluster dfs, EmbeddedHBase hbase,
    PrintStream out) throws IOException {
    PlacementDemo.Outcome outcome =
      new PlacementDemo(hbase, out, s.dataBytes(), s.valueBytes(), 100, s.reads()).run();
    PlacementReport report =
      new PlacementScanner(dfs.fileSystem(), hbase.configuration()).scan(hbase.rootDir());
    out.println();
    out.print(report.toTable());
    out.print(report.policiesTable());
    out.println();
    out.print(PlacementDemo.timeSeriesTable(report));
    out.println();
    out.println("Workload (client-side, one thread, batches of 100 Puts; single Gets)");
    out.println(outcome.writes.summary());
    out.println(outcome.reads.summary());
    out.printf(Locale.ROOT, "rows written %d; %d of %d sampled rows read back%n", outcome.rows,
      outcome.rowsReadBack, outcome.reads.calls());
    out.printf(Locale.ROOT, "archived HFiles and rolled WALs on their tier %.1f s after "
      + "archiving%n", outcome.placementLagSeconds);
    if (dfs.satisfier() != null) {
      out.println("storage policy satisfier: " + dfs.satisfier().status());
    }
    if (dfs.tierMover() != null) {
      out.println("tier mover: " + dfs.tierMover().status());
    }
    if (cl.hasOption("json")) {
      File file = new File(cl.getOptionValue("json"));
      writeJson(file, report, outcome, dfs);
      out.println("JSON report written to " + file);
    }
    if (outcome.rowsReadBack != outcome.reads.calls()) {
      System.err.printf(Locale.ROOT, "strata local: %d of %d sampled rows were missing%n",
        outcome.reads.calls() - outcome.rowsReadBack, outcome.reads.calls());
      return 1;
    }
    return 0;
  }

  private static void writeJson(File file, PlacementReport report, PlacementDemo.Outcome outcome,
    TieredDfsCluster dfs) throws IOException {
    // with every file (its kind, replicas, age and the rule behind its policy)
    ObjectNode doc = report.toJson(true);
    ObjectNode cluster = doc.putObject("cluster");
    cluster.put("hdfs", dfs.uri().toString());
    cluster.put("datanodes", dfs.config().dataNodes());
    cluster.put("ram_mb_per_datanode", dfs.config().ramBytesPerDataNode() >> 20);
    ObjectNode workload = doc.putObject("workload");
    workload.put("rows_written", outcome.rows);
    workload.put("rows_sampled", outcome.reads.calls());
    workload.put("rows_read_back", outcome.rowsReadBack);
    workload.put("placement_lag_s", outcome.placementLagSeconds);
    cluster.put("placement", dfs.config().tieredPlacement() ? "strata" : "upstream");
    outcome.writes.toJson(workload.putObject("put"));
    outcome.reads.toJson(workload.putObject("get"));
    if (dfs.satisfier() != null) {
      doc.set("satisfier", dfs.satisfier().status().toJson());
    }
    if (dfs.tierMover() != null) {
      doc.set("tier_mover", dfs.tierMover().status().toJson());
    }
    JsonReports.write(file, doc);
  }

  private static void serve(TieredDfsCluster dfs, EmbeddedHBase hbase, PrintStream out) {
    CountDownLatch stop = new CountDownLatch(1);
    // Take Ctrl-C and TERM ourselves: in JVM shutdown hooks, Hadoop's own hooks race the
    // cluster's shutdown (DataNodes fail to stop cleanly). The main thread stops the cluster.
    for (String name : new String[] { "INT", "TERM" }) {
      Signal.handle(new Signal(name), s -> {
        out.println("[local] " + s.getName() + " received; stopping the cluster");
        stop.countDown();
      });
    }
    out.println();
    out.println("Serving. Connect with:");
    out.println("  hbase.zookeeper.quorum = " + hbase.zookeeperQuorum());
    out.println("  fs.defaultFS           = " + dfs.uri());
    out.println("  hbase.rootdir          = " + hbase.rootDir());
    out.println("  placement report       : ./strata placement --hdfs " + dfs.uri()
      + " --root " + EmbeddedHBase.ROOT_DIR);
    out.println("Ctrl-C stops the cluster.");
    out.flush();
    try {
      stop.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * The cluster options of {@code strata local} ({@code --work-dir}, {@code --ram-dir}, {@code
   * --ram-mb}, {@code --datanodes}, {@code --regionservers}, {@code --keep}, {@code --upstream},
   * {@code --hbase}, {@code --dfs}) as a configuration; other commands that start the embedded
   * cluster parse the same names with this. Options a command does not define are left at their
   * default.
   */
  public static LocalClusterConfig config(CommandLine cl) {
    LocalClusterConfig c = new LocalClusterConfig();
    if (cl.hasOption("work-dir")) {
      c.workDir(new File(cl.getOptionValue("work-dir")));
    }
    if (cl.hasOption("ram-dir")) {
      c.ramDir(new File(cl.getOptionValue("ram-dir")));
    }
    c.ramBytesPerDataNode(CommandLines.wholeNumber(cl, "ram-mb", 1024, 1) << 20);
    c.dataNodes((int) CommandLines.wholeNumber(cl, "datanodes", 3, 1));
    c.regionServers((int) CommandLines.wholeNumber(cl, "regionservers", 1, 1));
    c.keepData(cl.hasOption("keep"));
    c.tieredPlacement(!cl.hasOption("upstream"));
    for (String kv : values(cl, "hbase")) {
      String[] p = keyValue(kv, "--hbase");
      c.hbase(p[0], p[1]);
    }
    for (String kv : values(cl, "dfs")) {
      String[] p = keyValue(kv, "--dfs");
      c.dfs(p[0], p[1]);
    }
    return c;
  }

  private static String[] values(CommandLine cl, String opt) {
    String[] v = cl.getOptionValues(opt);
    return v == null ? new String[0] : v;
  }

  private static String[] keyValue(String kv, String flag) {
    int eq = kv.indexOf('=');
    if (eq <= 0) {
      throw new IllegalArgumentException(flag + " takes KEY=VALUE, not '" + kv + "'");
    }
    return new String[] { kv.substring(0, eq), kv.substring(eq + 1) };
  }
}
