package io.strata.bench.ycsb;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What the YCSB clients of one phase did, over all client processes.
 *
 * @param clients client processes
 * @param operations operations issued (all return codes; {@code CLEANUP} not counted)
 * @param failed operations that did not return {@code OK}
 * @param seconds the phase's span: YCSB's run time for one client; for coordinated clients from
 *     the first passing the barrier to the last finishing
 * @param opsPerSec {@code operations / seconds}
 * @param latenciesUs per YCSB operation ({@code INSERT}, {@code READ}, ...), latencies in
 *     microseconds from YCSB's HdrHistograms, merged over clients
 * @param startSpreadMs coordinated clients: latest minus earliest barrier pass; -1 for one client
 * @param arrivalSpreadMs coordinated clients: latest minus earliest arrival at the barrier; -1
 *     for one client
 * @param jvmStartSpreadMs coordinated clients: latest minus earliest process start; -1 for one
 *     client
 * @param runs the YCSB processes
 */
public record PhaseFigures(int clients, long operations, long failed, double seconds,
  double opsPerSec, Map<String, LatencySummary> latenciesUs, double startSpreadMs,
  double arrivalSpreadMs, double jvmStartSpreadMs, List<YcsbRun> runs) {

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder(String.format(Locale.ROOT,
      "%d ops in %.1f s = %.0f ops/s (%d clients%s%s)", operations, seconds, opsPerSec, clients,
      failed > 0 ? ", " + failed + " not OK" : "", clients > 1 ? String.format(Locale.ROOT,
        ", started within %.1f ms of each other; processes started %.0f ms and reached the "
          + "barrier %.0f ms apart", startSpreadMs, jvmStartSpreadMs, arrivalSpreadMs) : ""));
    latenciesUs.forEach((op, s) -> {
      if (!op.equals("CLEANUP")) {
        sb.append("\n    ").append(op).append(" us: ").append(s);
      }
    });
    return sb.toString();
  }
}
