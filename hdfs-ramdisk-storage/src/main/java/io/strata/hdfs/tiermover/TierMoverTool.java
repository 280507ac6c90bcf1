package io.strata.hdfs.tiermover;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.strata.cli.JsonReports;
import io.strata.cli.UntilStopped;
import io.strata.hdfs.DaemonHttp;
import io.strata.hdfs.DaemonLogin;
import io.strata.hdfs.HdfsKeys;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Paths;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;

/**
 * {@code strata tier-mover}: runs the {@link TierMover} until stopped (Ctrl-C/TERM) or for a given
 * time, printing its progress. Its command line is the tools' entry point's
 * ({@code io.strata.tools.StrataTools tier-mover}, {@code TierMoverCommand}), which
 * {@code strata tier-mover}, bin/tier-mover and bin/strata-cluster run and which calls
 * {@link #follow}.
 */
public final class TierMoverTool {
  private TierMoverTool() {
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
