package io.strata.hdfs.tiermover;

import io.strata.hdfs.DaemonHttp;
import java.util.ArrayDeque;
import java.util.Deque;
import org.apache.hadoop.metrics2.MetricsCollector;
import org.apache.hadoop.metrics2.MetricsSource;
import org.apache.hadoop.metrics2.lib.Interns;

/**
 * The figures of {@code strata tier-mover} for Hadoop metrics2, so that they appear in its
 * {@code /jmx} (bean {@code Hadoop:service=StrataTierMover,name=StrataTierMover}) and
 * {@code /prometheus} ({@code strata_tier_mover_*}): {@code TxidsBehind}, {@code Txid},
 * {@code Queued}, {@code Moved}, {@code Failed}, {@code Renames}, {@code Gaps},
 * {@code Healthy} (1/0) and the tag {@code HealthReason}.
 *
 * <p>Healthy is 0 while {@link TierMover#trouble()} names a trouble (a thread of it ended, or the
 * NameNode's edits cannot be read), or while the lag keeps growing: the transactions behind,
 * sampled at most every {@link #LAG_SAMPLE_MS} ms, grew at each of the last
 * {@link #LAG_SAMPLES} samples (so over at least that many sampling periods).
 */
public final class TierMoverMetrics implements MetricsSource {
  static final String RECORD = "StrataTierMover";
  static final long LAG_SAMPLE_MS = 30_000;
  static final int LAG_SAMPLES = 3;

  private final TierMover mover;
  private final LagTrend trend = new LagTrend(LAG_SAMPLE_MS, LAG_SAMPLES);

  public TierMoverMetrics(TierMover mover) {
    this.mover = mover;
  }

  @Override
  public void getMetrics(MetricsCollector collector, boolean all) {
    TierMoverStatus s = mover.status();
    long behind = s.position().txidsBehind();
    boolean growing = trend.add(System.currentTimeMillis(), behind);
    String trouble = mover.trouble();
    String reason = trouble != null ? trouble
      : growing ? "lag keeps growing: " + behind + " transactions behind, more at each of the "
        + "last " + LAG_SAMPLES + " samples " + LAG_SAMPLE_MS / 1000 + " s apart"
      : "ok";
    collector.addRecord(RECORD).setContext("strata")
      .tag(Interns.info("HealthReason", "why Healthy is 0, or ok"), DaemonHttp.tagValue(reason))
      .addGauge(Interns.info("Healthy", "1 while following renames with a lag not growing"),
        reason.equals("ok") ? 1 : 0)
      .addGauge(Interns.info("TxidsBehind", "NameNode transactions not read yet, -1 unknown"),
        behind)
      .addGauge(Interns.info("Txid", "last transaction taken in"), s.position().txid())
      .addGauge(Interns.info("Queued", "paths held to check or place"), s.queue().queued())
      .addCounter(Interns.info("Moved", "files seen on their tier after a request"),
        s.files().moved())
      .addCounter(Interns.info("Failed", "files given up on, still misplaced"),
        s.files().failed())
      .addCounter(Interns.info("Renames", "rename events read"), s.files().renames())
      .addCounter(Interns.info("Gaps", "gaps in the edits (purged before they were read)"),
        s.gaps().count())
      .addGauge(Interns.info("AgedReplacedFiles", "store files RegionServers' age chores handed "
        + "to the satisfier, as they last reported"), s.aging().replacedFiles())
      .addGauge(Interns.info("AgedPendingFiles", "store files due for re-placement by age not "
        + "handed over yet, on RegionServers still reporting"), s.aging().pendingFiles());
  }

  /** Whether a value grew at each of the last samples taken at least a period apart. */
  static final class LagTrend {
    private final long periodMs;
    private final int samples;
    private final Deque<Long> values = new ArrayDeque<>();
    private long lastAt = Long.MIN_VALUE;
    private boolean growing;

    LagTrend(long periodMs, int samples) {
      this.periodMs = periodMs;
      this.samples = samples;
    }

    synchronized boolean add(long nowMs, long value) {
      if (lastAt != Long.MIN_VALUE && nowMs - lastAt < periodMs) {
        return growing;
      }
      lastAt = nowMs;
      values.addLast(value);
      while (values.size() > samples + 1) {
        values.removeFirst();
      }
      growing = false;
      if (values.size() == samples + 1 && value > 0) {
        growing = true;
        Long prev = null;
        for (Long v : values) {
          if (prev != null && v <= prev) {
            growing = false;
          }
          prev = v;
        }
      }
      return growing;
    }
  }
}
