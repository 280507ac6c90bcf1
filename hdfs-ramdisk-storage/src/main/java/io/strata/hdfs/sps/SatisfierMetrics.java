package io.strata.hdfs.sps;

import io.strata.hdfs.DaemonHttp;
import org.apache.hadoop.metrics2.MetricsCollector;
import org.apache.hadoop.metrics2.MetricsInfo;
import org.apache.hadoop.metrics2.MetricsSource;
import org.apache.hadoop.metrics2.lib.Interns;

/**
 * The figures of {@code strata satisfier} for Hadoop metrics2, so that they appear in its
 * {@code /jmx} (bean {@code Hadoop:service=StrataSatisfier,name=StrataSatisfier}) and
 * {@code /prometheus} ({@code strata_satisfier_*}): {@code Running}, {@code Restarts},
 * {@code Stalls}, {@code FilesHeld}, {@code Stalled}, {@code Healthy} (1/0) and the tags
 * {@code HealthReason}, {@code LastFailure}, {@code LastStall}.
 *
 * <p>Healthy is 0 while the satisfier is not running (between a failure and its restart, or
 * stopped) or is stalled ({@link InProcessSatisfier#stalledNow()}: it was found holding files
 * without progress for {@code strata.sps.stall.ms}, and no file or block move has finished
 * since). "running" alone hides a stall: a stalled satisfier runs, and is restarted, and stays
 * stalled while what it holds cannot be placed.
 */
public final class SatisfierMetrics implements MetricsSource {
  static final String RECORD = "StrataSatisfier";

  private final InProcessSatisfier sps;

  public SatisfierMetrics(InProcessSatisfier sps) {
    this.sps = sps;
  }

  @Override
  public void getMetrics(MetricsCollector collector, boolean all) {
    SatisfierStatus s = sps.status();
    boolean stalled = sps.stalledNow();
    String reason;
    if (!s.running()) {
      reason = "not running (" + s.where() + ")"
        + (s.lastFailure() != null ? ", last stopped by " + s.lastFailure() : "");
    } else if (stalled) {
      reason = "stalled: holds " + sps.filesHeld() + " files without progress; " + s.lastStall();
    } else {
      reason = "ok";
    }
    boolean healthy = s.running() && !stalled;
    collector.addRecord(RECORD).setContext("strata")
      .tag(info("HealthReason", "why Healthy is 0, or ok"), DaemonHttp.tagValue(reason))
      .tag(info("LastFailure", "why the satisfier last stopped unexpectedly"),
        DaemonHttp.tagValue(s.lastFailure()))
      .tag(info("LastStall", "why the files held were not on their tier at the last stall"),
        DaemonHttp.tagValue(s.lastStall()))
      .addGauge(info("Healthy", "1 while running and not stalled, else 0"), healthy ? 1 : 0)
      .addGauge(info("Running", "1 while a satisfier thread runs or is about to be restarted"),
        s.running() ? 1 : 0)
      .addGauge(info("Stalled", "1 while stalled (no progress on the files held)"),
        stalled ? 1 : 0)
      .addCounter(info("Restarts", "restarts after the satisfier thread stopped unexpectedly"),
        s.restarts())
      .addCounter(info("Stalls", "times found stalled and restarted for it"), s.stalls())
      .addGauge(info("FilesHeld", "files taken from the NameNode and not finished"),
        sps.filesHeld());
  }

  private static MetricsInfo info(String name, String description) {
    return Interns.info(name, description);
  }
}
