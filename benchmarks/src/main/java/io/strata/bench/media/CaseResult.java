package io.strata.bench.media;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import org.apache.hadoop.fs.StorageType;

/**
 * What one case measured: YCSB's load figures, the bytes the DataNodes wrote per storage type
 * during the load, and where the files were at its end.
 *
 * @param mediaCase the case
 * @param records records YCSB inserted
 * @param recordsTarget records of the case's dataset (more than {@code records} when the load
 *   reached the scale's time limit)
 * @param throughputOps YCSB's overall throughput (operations/s)
 * @param latencyUsAvg mean INSERT latency (µs)
 * @param latencyUsP99 99th percentile INSERT latency (µs)
 * @param insertsFailed INSERTs that did not return OK
 * @param loadSeconds YCSB's run time of the load
 * @param caseSeconds the case's wall time, HBase start and stop included
 * @param bytesWritten bytes the DataNodes wrote during the load, per storage type (all replicas)
 * @param placement the placement report of the case's HBase root at the end of the load
 * @param error why the case failed, or null
 * @param resources the machine's and the RegionServer's means during the load from the
 *   monitoring timeline ({@code cpu_user_pct}, {@code disk_write_mb_s}, {@code memstore_mb},
 *   ..., and {@code gc_ms_total}, {@code memstore_mb_max}); empty when not measured
 */
public record CaseResult(MediaCase mediaCase, long records, long recordsTarget, double throughputOps,
  double latencyUsAvg, double latencyUsP99, long insertsFailed, double loadSeconds,
  double caseSeconds, Map<StorageType, Long> bytesWritten, ObjectNode placement, String error,
  Map<String, Double> resources) {

  static CaseResult failed(MediaCase c, double caseSeconds, String error) {
    return new CaseResult(c, 0, 0, Double.NaN, Double.NaN, Double.NaN, 0, Double.NaN, caseSeconds,
      Map.of(), null, error, Map.of());
  }

  public boolean ok() {
    return error == null;
  }

  /** Whether the load stopped at the time limit before loading the whole dataset. */
  public boolean truncated() {
    return ok() && records < recordsTarget;
  }

  public long totalBytesWritten() {
    return bytesWritten.values().stream().mapToLong(Long::longValue).sum();
  }
}
