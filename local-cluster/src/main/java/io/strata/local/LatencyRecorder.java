package io.strata.local;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.strata.metrics.Latencies;
import java.util.Locale;

/** Latencies of one kind of operation, in microseconds, and the volume it moved. */
public final class LatencyRecorder {
  private final String name;
  private final Latencies latencies = new Latencies();
  private int count;
  private long bytes;
  private long operations;
  private long firstStartNanos = -1;
  private long lastEndNanos;

  public LatencyRecorder(String name) {
    this.name = name;
  }

  /** Records one call that started at {@code startNanos}, covering {@code ops} operations. */
  public void record(long startNanos, long endNanos, long ops, long payloadBytes) {
    latencies.record((endNanos - startNanos) / 1_000);
    count++;
    operations += ops;
    bytes += payloadBytes;
    if (firstStartNanos < 0) {
      firstStartNanos = startNanos;
    }
    lastEndNanos = endNanos;
  }

  public String name() {
    return name;
  }

  public int calls() {
    return count;
  }

  public long operations() {
    return operations;
  }

  /**
   * The {@code p}-th percentile (0..100) of call latency in microseconds, nearest rank to within
   * 0.1 % ({@link Latencies}); 100 is the exact maximum.
   */
  public long percentileMicros(double p) {
    return latencies.percentile(p);
  }

  public double meanMicros() {
    return latencies.mean();
  }

  public double elapsedSeconds() {
    return count == 0 ? 0 : (lastEndNanos - firstStartNanos) / 1e9;
  }

  public double opsPerSecond() {
    double s = elapsedSeconds();
    return s == 0 ? 0 : operations / s;
  }

  public double mebibytesPerSecond() {
    double s = elapsedSeconds();
    return s == 0 ? 0 : bytes / (1024.0 * 1024.0) / s;
  }

  public String summary() {
    return String.format(Locale.ROOT,
      "%-6s %8d calls %9d ops %8.0f ops/s %7.1f MiB/s  latency/call us: p50 %d  p99 %d  max %d",
      name, count, operations, opsPerSecond(), mebibytesPerSecond(), percentileMicros(50),
      percentileMicros(99), percentileMicros(100));
  }

  public void toJson(ObjectNode node) {
    node.put("calls", count);
    node.put("operations", operations);
    node.put("bytes", bytes);
    node.put("seconds", elapsedSeconds());
    node.put("ops_per_s", opsPerSecond());
    node.put("mib_per_s", mebibytesPerSecond());
    node.put("latency_us_mean", meanMicros());
    node.put("latency_us_p50", percentileMicros(50));
    node.put("latency_us_p99", percentileMicros(99));
    node.put("latency_us_max", percentileMicros(100));
  }
}
