package io.strata.hdfs.tiermover;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.strata.cli.CommandLines;
import io.strata.cli.JsonReports;
import io.strata.cli.UntilStopped;
import io.strata.hdfs.DaemonHttp;
import io.strata.hdfs.DaemonLogin;
import io.strata.hdfs.DaemonOutput;
import io.strata.hdfs.HdfsKeys;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Paths;
import java.util.concurrent.TimeUnit;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.Options;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.HdfsConfiguration;

/**
 * {@code strata tier-mover}: runs the {@link TierMover} until stopped (Ctrl-C/TERM) or for a given
 * time, printing its progress. {@code strata tier-mover} and bin/tier-mover parse its options in
 * the tools' entry point ({@code TierMoverCommand}) and call {@link #follow}; {@link #main} is what
 * bin/strata-cluster starts on the HDFS side's class path.
 */
public final class TierMoverTool {
  private static final String HEADER = "Follows the NameNode's renames (inotify; run it as an HDFS "
    + "superuser) and moves each renamed file's blocks to its new storage policy through the "
    + "Storage Policy Satisfier (dfs.storage.policy.satisfier.mode=external with an SPS running). "
    + "Resumes from its state file after a restart.\n\n";

  private TierMoverTool() {
  }

  static Options options() {
    Options o = new Options();
    o.addOption(null, "hdfs", true, "NameNode URI (default: fs.defaultFS)");
    o.addOption(null, "state", true, "state file (default $STRATA_WORK/tier-mover/state)");
    o.addOption(null, "paths", true, "comma-separated path prefixes to follow (default /; "
      + HdfsKeys.TIERMOVER_PATHS + ")");
    o.addOption(null, "report-interval", true, "seconds between progress lines (default 10)");
    o.addOption(null, "duration", true, "stop after this many seconds (default: run until "
      + "stopped)");
    o.addOption(null, "json", true, "write the status as JSON to FILE at each progress line and "
      + "at exit");
    o.addOption("h", "help", false, "this text");
    return o;
  }

  public static void main(String[] args) throws Exception {
    // Started by bin/ as a daemon: the status lines go to its (size-capped) log.
    System.exit(run(args, new HdfsConfiguration(), DaemonOutput.forTool(TierMoverTool.class)));
  }

  public static int run(String[] args, Configuration conf, PrintStream out) throws Exception {
    CommandLine cl;
    try {
      cl = CommandLines.parse("strata tier-mover", "strata tier-mover [--hdfs URI] [--state FILE] "
        + "[--json FILE]", HEADER, options(), args);
    } catch (CommandLines.Exit e) {
      return e.code();
    }
    long reportS;
    long durationS;
    try {
      reportS = CommandLines.wholeNumber(cl, "report-interval", 10, 1);
      durationS = CommandLines.wholeNumber(cl, "duration", 0, 0);
    } catch (IllegalArgumentException e) {
      System.err.println("strata tier-mover: " + e.getMessage());
      return 2;
    }
    return follow(conf, cl.hasOption("hdfs") ? URI.create(cl.getOptionValue("hdfs")) : null,
      cl.getOptionValue("state"), cl.getOptionValue("paths"), reportS, durationS,
      cl.hasOption("json") ? new File(cl.getOptionValue("json")) : null, out);
  }

  /**
   * Runs the tier mover until stopped (Ctrl-C/TERM) or for {@code durationS}, printing its
   * progress; returns the exit code (0, or 1 when it cannot start).
   *
   * @param hdfs      the NameNode, or null for fs.defaultFS
   * @param state     the state file, or null for the launcher's work directory's
   *                  {@code tier-mover/state}
   * @param paths     comma-separated path prefixes to follow, or null for the configuration's
   * @param reportS   seconds between progress lines
   * @param durationS seconds to run, 0 until stopped
   * @param json      where to write the status as JSON at each progress line, or null
   */
  public static int follow(Configuration conf, URI hdfs, String state, String paths, long reportS,
    long durationS, File json, PrintStream out) throws Exception {
    if (paths != null) {
      conf.set(HdfsKeys.TIERMOVER_PATHS, paths);
    }
    URI nameNode = hdfs != null ? hdfs : FileSystem.getDefaultUri(conf);
    String stateFile = state != null ? state : new File(System.getProperty("strata.work",
      ".strata-work"), "tier-mover/state").getPath();
    long reportMs = TimeUnit.SECONDS.toMillis(reportS);
    long durationMs = TimeUnit.SECONDS.toMillis(durationS);

    TierMover mover;
    try {
      DaemonLogin.login(conf, "strata tier-mover", HdfsKeys.TIERMOVER_KEYTAB_FILE,
        HdfsKeys.TIERMOVER_KERBEROS_PRINCIPAL);
      mover = TierMover.start(conf, nameNode, Paths.get(stateFile));
    } catch (IOException | IllegalArgumentException e) {
      System.err.println("strata tier-mover: cannot start on " + nameNode + ": " + e.getMessage());
      return 1;
    }
    DaemonHttp http;
    try {
      http = serve(conf, mover);
    } catch (IOException | IllegalArgumentException e) {
      mover.close();
      System.err.println("strata tier-mover: " + e.getMessage());
      return 1;
    }
    out.println("following renames on " + nameNode + " (state " + stateFile + ")"
      + (http.uri() != null ? ", figures and health at " + http.uri() + "/jmx" : "")
      + "; Ctrl-C stops");
    // On Ctrl-C/TERM the state is saved (close) before the JVM ends.
    UntilStopped.run("strata-tier-mover", reportMs, durationMs, () -> report(mover, out, json),
      () -> {
        try {
          http.close();
        } finally {
          mover.close();
          report(mover, out, json);
        }
      });
    return 0;
  }

  /**
   * Serves the tier mover's figures and health over HTTP at
   * {@link HdfsKeys#TIERMOVER_HTTP_ADDRESS} ({@code /jmx}, {@code /prometheus}) and in JMX
   * ({@link TierMoverMetrics}).
   */
  public static DaemonHttp serve(Configuration conf, TierMover mover) throws IOException {
    return DaemonHttp.start(conf, "strata tier-mover", HdfsKeys.TIERMOVER_HTTP_ADDRESS,
      HdfsKeys.tierMoverHttpAddress(conf), TierMoverMetrics.RECORD, TierMoverMetrics.RECORD,
      new TierMoverMetrics(mover));
  }

  private static void report(TierMover mover, PrintStream out, File json) throws IOException {
    TierMoverStatus s = mover.status();
    out.println(s);
    if (json != null) {
      ObjectNode doc = s.toJson();
      JsonReports.write(json, doc);
    }
  }
}
