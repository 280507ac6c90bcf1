package io.strata.hdfs.chooser;

import java.util.Arrays;
import java.util.Objects;

/**
 * Which volumes of one storage type are slow: those whose latency is above both {@code ratio}
 * times the median latency of their peers and an absolute floor. The yardstick is the median of
 * the <em>other</em> volumes, so that with two volumes a slow one does not raise its own bar, and
 * a single slow volume among many cannot move it. A volume already judged slow stays slow until
 * it drops below {@value #RECOVERY_FRACTION} of the bar, so that a borderline volume does not go
 * in and out with every probe. A volume without a latency ({@code NaN}) is never slow; one
 * without a peer latency is nobody's yardstick.
 */
final class SlowVolumeRule {
  static final double RECOVERY_FRACTION = 0.8;

  private final double ratio;
  private final double minMs;

  SlowVolumeRule(double ratio, double minMs) {
    this.ratio = ratio;
    this.minMs = minMs;
  }

  /** The judgement of one volume, with the figures behind it (for the operator's log). */
  static final class Verdict {
    private final boolean slow;
    private final double latencyMs;
    private final double peerMedianMs;
    private final int peers;
    private final double limitMs;

    Verdict(boolean slow, double latencyMs, double peerMedianMs, int peers, double limitMs) {
      this.slow = slow;
      this.latencyMs = latencyMs;
      this.peerMedianMs = peerMedianMs;
      this.peers = peers;
      this.limitMs = limitMs;
    }

    public boolean slow() {
      return slow;
    }

    public double latencyMs() {
      return latencyMs;
    }

    public double peerMedianMs() {
      return peerMedianMs;
    }

    public int peers() {
      return peers;
    }

    public double limitMs() {
      return limitMs;
    }

    @Override
    public boolean equals(Object other) {
      if (this == other) {
        return true;
      }
      if (!(other instanceof Verdict)) {
        return false;
      }
      Verdict o = (Verdict) other;
      return slow == o.slow
        && Double.compare(latencyMs, o.latencyMs) == 0
        && Double.compare(peerMedianMs, o.peerMedianMs) == 0
        && peers == o.peers
        && Double.compare(limitMs, o.limitMs) == 0;
    }

    @Override
    public int hashCode() {
      return Objects.hash(slow, latencyMs, peerMedianMs, peers, limitMs);
    }

    @Override
    public String toString() {
      return "Verdict[slow=" + slow + ", latencyMs=" + latencyMs +
        ", peerMedianMs=" + peerMedianMs + ", peers=" + peers + ", limitMs=" + limitMs + "]";
    }
  }

  /**
   * Judges every volume of one storage type.
   *
   * @param ownMs   each volume's latency in ms to judge it by, {@code NaN} if unknown
   * @param peerMs  each volume's latency in ms to judge the others against, {@code NaN} if it
   *                should not count (not measured yet)
   * @param wasSlow whether each volume was slow at the last judgement
   */
  Verdict[] judge(double[] ownMs, double[] peerMs, boolean[] wasSlow) {
    int count = ownMs.length;
    if (peerMs.length != count || wasSlow.length != count) {
      throw new IllegalArgumentException("one latency pair and state per volume expected");
    }
    Verdict[] verdicts = new Verdict[count];
    double[] peers = new double[count];
    for (int i = 0; i < count; i++) {
      int n = 0;
      for (int j = 0; j < count; j++) {
        if (j != i && !Double.isNaN(peerMs[j])) {
          peers[n++] = peerMs[j];
        }
      }
      double median = median(peers, n);
      double latency = ownMs[i];
      if (n == 0 || Double.isNaN(latency)) {
        verdicts[i] = new Verdict(false, latency, median, n, Double.NaN);
        continue;
      }
      double limit = Math.max(ratio * median, minMs);
      double bar = wasSlow[i] ? RECOVERY_FRACTION * limit : limit;
      verdicts[i] = new Verdict(latency > bar, latency, median, n, limit);
    }
    return verdicts;
  }

  /** Median of the first {@code n} values (sorted in place); {@code NaN} when {@code n == 0}. */
  static double median(double[] values, int n) {
    if (n == 0) {
      return Double.NaN;
    }
    Arrays.sort(values, 0, n);
    return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  }
}
