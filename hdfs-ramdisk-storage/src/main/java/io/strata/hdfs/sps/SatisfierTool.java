package io.strata.hdfs.sps;

import io.strata.cli.CommandLines;
import io.strata.cli.UntilStopped;
import io.strata.hdfs.DaemonHttp;
import io.strata.hdfs.DaemonLogin;
import io.strata.hdfs.DaemonOutput;
import io.strata.hdfs.HdfsKeys;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.util.concurrent.TimeUnit;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.Options;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.HdfsConfiguration;

/**
 * {@code strata satisfier}: the Storage Policy Satisfier as a daemon of its own, for a NameNode
 * running with {@code dfs.storage.policy.satisfier.mode=external}. It is
 * {@link InProcessSatisfier} (upstream's satisfier, supervised: restarted with back-off when its
 * thread ends, its unfinished files handed back to it) in a JVM that runs until stopped, printing
 * its status at an interval. It takes the place of upstream's {@code hdfs --daemon start sps},
 * whose thread stays dead after its first failure. {@code strata satisfier} and bin/satisfier parse
 * its options in the tools' entry point ({@code SatisfierCommand}) and call {@link #satisfy};
 * {@link #main} is what bin/strata-cluster starts on the HDFS side's class path.
 */
public final class SatisfierTool {
  private static final String HEADER = "Runs the Storage Policy Satisfier for a NameNode with "
    + "dfs.storage.policy.satisfier.mode=external, restarting it when its thread ends, until "
    + "stopped (Ctrl-C/TERM). Put the strata-hdfs-overlay jar before hadoop-hdfs on the class "
    + "path (patches/hdfs/0003).\n\n";

  private SatisfierTool() {
  }

  static Options options() {
    Options o = new Options();
    o.addOption(null, "hdfs", true, "NameNode URI (default: fs.defaultFS)");
    o.addOption(null, "report-interval", true, "seconds between status lines (default 60)");
    o.addOption("h", "help", false, "this text");
    return o;
  }

  public static void main(String[] args) throws Exception {
    // Started by bin/ as a daemon: the status lines go to its (size-capped) log.
    System.exit(run(args, new HdfsConfiguration(), DaemonOutput.forTool(SatisfierTool.class)));
  }

  static int run(String[] args, Configuration conf, PrintStream out) throws Exception {
    CommandLine cl;
    try {
      cl = CommandLines.parse("strata satisfier", "strata satisfier [--hdfs URI]", HEADER,
        options(), args);
    } catch (CommandLines.Exit e) {
      return e.code();
    }
    long reportS;
    try {
      reportS = CommandLines.wholeNumber(cl, "report-interval", 60, 1);
    } catch (IllegalArgumentException e) {
      System.err.println("strata satisfier: " + e.getMessage());
      return 2;
    }
    return satisfy(conf, cl.hasOption("hdfs") ? URI.create(cl.getOptionValue("hdfs")) : null,
      reportS, out);
  }

  /**
   * Runs the supervised satisfier until stopped (Ctrl-C/TERM), printing its status every
   * {@code reportS} seconds; returns the exit code (0, or 1 when it cannot start).
   *
   * @param hdfs the NameNode, or null for fs.defaultFS
   */
  public static int satisfy(Configuration conf, URI hdfs, long reportS, PrintStream out)
    throws Exception {
    URI nameNode = hdfs != null ? hdfs : FileSystem.getDefaultUri(conf);
    long reportMs = TimeUnit.SECONDS.toMillis(reportS);
    InProcessSatisfier sps;
    try {
      DaemonLogin.login(conf, "strata satisfier", HdfsKeys.SPS_KEYTAB_FILE,
        HdfsKeys.SPS_KERBEROS_PRINCIPAL);
      sps = InProcessSatisfier.start(conf, nameNode);
    } catch (IOException | IllegalArgumentException e) {
      System.err.println("strata satisfier: cannot start for " + nameNode + ": " + e.getMessage());
      return 1;
    }
    DaemonHttp http;
    try {
      http = serve(conf, sps);
    } catch (IOException | IllegalArgumentException e) {
      sps.close();
      System.err.println("strata satisfier: " + e.getMessage());
      return 1;
    }
    out.println("Storage Policy Satisfier running for " + nameNode
      + (http.uri() != null ? ", figures and health at " + http.uri() + "/jmx" : "")
      + "; Ctrl-C stops");
    UntilStopped.run("strata-satisfier", reportMs, 0, () -> out.println(sps.status().toJson()),
      () -> {
        try {
          http.close();
        } finally {
          sps.close();
        }
      });
    return 0;
  }

  /**
   * Serves the satisfier's figures and health over HTTP at {@link HdfsKeys#SPS_HTTP_ADDRESS}
   * ({@code /jmx}, {@code /prometheus}) and in JMX ({@link SatisfierMetrics}).
   */
  public static DaemonHttp serve(Configuration conf, InProcessSatisfier sps) throws IOException {
    return DaemonHttp.start(conf, "strata satisfier", HdfsKeys.SPS_HTTP_ADDRESS,
      HdfsKeys.spsHttpAddress(conf), SatisfierMetrics.RECORD, SatisfierMetrics.RECORD,
      new SatisfierMetrics(sps));
  }
}
