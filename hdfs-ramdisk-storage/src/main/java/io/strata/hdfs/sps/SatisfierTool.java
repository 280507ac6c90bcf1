package io.strata.hdfs.sps;

import io.strata.cli.UntilStopped;
import io.strata.hdfs.DaemonHttp;
import io.strata.hdfs.DaemonLogin;
import io.strata.hdfs.HdfsKeys;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;

/**
 * {@code strata satisfier}: the Storage Policy Satisfier as a daemon of its own, for a NameNode
 * running with {@code dfs.storage.policy.satisfier.mode=external}. It is
 * {@link InProcessSatisfier} (upstream's satisfier, supervised: restarted with back-off when its
 * thread ends, its unfinished files handed back to it) in a JVM that runs until stopped, printing
 * its status at an interval. It takes the place of upstream's {@code hdfs --daemon start sps},
 * whose thread stays dead after its first failure. Its command line is the tools' entry point's
 * ({@code io.strata.tools.StrataTools satisfier}, {@code SatisfierCommand}), which
 * {@code strata satisfier}, bin/satisfier and bin/strata-cluster run and which calls
 * {@link #satisfy}.
 */
public final class SatisfierTool {
  private SatisfierTool() {
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
