package io.strata.hdfs.chooser;

/**
 * One volume's recent probe latency: an exponentially weighted moving average of finished
 * probes. A probe that has been running for longer than a grace period (the probe interval)
 * raises it to its elapsed time, so that a volume that stopped answering looks slow while its
 * probe hangs, not only after it returns; shorter runs are left to the average, so that a JVM
 * pause or a single slow sync does not exclude a volume. Thread-safe; times are
 * {@link System#nanoTime()} values passed in.
 */
final class LatencyEstimate {
  private final double weight;
  private final long graceNanos;
  private double averageMs = Double.NaN;
  private long samples;
  private long probeStartNanos;
  private boolean probing;

  /**
   * @param weight     weight of the newest probe, in (0, 1]
   * @param graceNanos how long a probe may run before its elapsed time counts
   */
  LatencyEstimate(double weight, long graceNanos) {
    this.weight = weight;
    this.graceNanos = graceNanos;
  }

  synchronized void probeStarted(long nowNanos) {
    probeStartNanos = nowNanos;
    probing = true;
  }

  synchronized void probeFinished(long nowNanos) {
    if (!probing) {
      return;
    }
    probing = false;
    double ms = (nowNanos - probeStartNanos) / 1e6;
    averageMs = samples == 0 ? ms : weight * ms + (1 - weight) * averageMs;
    samples++;
  }

  /** The latency to judge the volume by, in ms; {@code NaN} while nothing is known. */
  synchronized double currentMs(long nowNanos) {
    if (!overrunning(nowNanos)) {
      return averageMs;
    }
    double runningMs = (nowNanos - probeStartNanos) / 1e6;
    return samples == 0 ? runningMs : Math.max(averageMs, runningMs);
  }

  /**
   * The latency to judge other volumes against, in ms: as {@link #currentMs} once a probe has
   * finished, {@code NaN} before, because a first probe still running is only a lower bound.
   */
  synchronized double peerMs(long nowNanos) {
    return samples == 0 ? Double.NaN : currentMs(nowNanos);
  }

  /** Whether a probe has been running for longer than the grace period. */
  synchronized boolean overrunning(long nowNanos) {
    return probing && nowNanos - probeStartNanos > graceNanos;
  }

  synchronized long samples() {
    return samples;
  }
}
