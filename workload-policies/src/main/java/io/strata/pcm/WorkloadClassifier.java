package io.strata.pcm;

import java.util.Optional;

/**
 * Puts a window's rates into one of the PCM paper's workload classes (Sec. II-A) by the share of
 * reads r = reads / (reads + writes), with {@code t} the "only" tolerance:
 * <ul>
 * <li>r &le; t: write-only; BL when the table was empty when watching began, else WO-Update when
 * the insert share is known and under one half, else WO-Insert;</li>
 * <li>t &lt; r &lt; 0.10: WM; 0.10 &le; r &lt; 0.40: MixW (60 to 90 % writes);
 * 0.40 &le; r &le; 0.60: MixRW; 0.60 &lt; r &le; 0.90: MixR; 0.90 &lt; r &lt; 1 - t: RM;</li>
 * <li>r &ge; 1 - t: read-only; RO-Scan when the scan share is known and at least one half, else
 * RO-Read.</li>
 * </ul>
 * Under the minimum request rate a table is idle: no class. Immutable: safe from any thread.
 */
public final class WorkloadClassifier {
  private final double minOpsPerSec;
  private final double onlyTolerance;

  public WorkloadClassifier(double minOpsPerSec, double onlyTolerance) {
    if (minOpsPerSec < 0 || onlyTolerance < 0 || onlyTolerance >= 0.1) {
      throw new IllegalArgumentException("minOpsPerSec " + minOpsPerSec + " must be >= 0 and "
        + "onlyTolerance " + onlyTolerance + " in [0, 0.1)");
    }
    this.minOpsPerSec = minOpsPerSec;
    this.onlyTolerance = onlyTolerance;
  }

  /** The class of {@code rates}; empty when the table is idle. */
  public Optional<WorkloadClass> classify(WorkloadRates rates) {
    double total = rates.readsPerSec() + rates.writesPerSec();
    if (total <= 0 || total < minOpsPerSec) {
      return Optional.empty();
    }
    double r = rates.readsPerSec() / total;
    if (r <= onlyTolerance) {
      if (rates.emptyAtStart()) {
        return Optional.of(WorkloadClass.BL);
      }
      // Inserts and updates are both Puts: without a signal, the paper's WO-Insert (the two
      // share one policy, Table IV).
      return Optional.of(!Double.isNaN(rates.insertShare()) && rates.insertShare() < 0.5
        ? WorkloadClass.WO_UPDATE : WorkloadClass.WO_INSERT);
    }
    if (r < 0.10) {
      return Optional.of(WorkloadClass.WM);
    }
    if (r < 0.40) {
      return Optional.of(WorkloadClass.MIX_W);
    }
    if (r <= 0.60) {
      return Optional.of(WorkloadClass.MIX_RW);
    }
    if (r <= 0.90) {
      return Optional.of(WorkloadClass.MIX_R);
    }
    if (r < 1 - onlyTolerance) {
      return Optional.of(WorkloadClass.RM);
    }
    return Optional.of(!Double.isNaN(rates.scanShare()) && rates.scanShare() >= 0.5
      ? WorkloadClass.RO_SCAN : WorkloadClass.RO_READ);
  }
}
