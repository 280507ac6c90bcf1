package io.strata.bench.writetail;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * Put latencies over time: one HdrHistogram per second of the run, a Put counted in the second
 * it was sent (seconds since {@code originNanos}, a {@link System#nanoTime()} reading taken when
 * the measured rounds begin), so that a stall shows where the Puts that waited for it were sent.
 *
 * <p>Not thread-safe for {@link #record}: each writer records into a timeline of its own
 * ({@link #local()}) and {@link #add}s it, under this timeline's lock, when its turn ends.
 */
final class Timeline {
  private static final long SECOND = 1_000_000_000L;

  /** One second of the run: the Puts sent in it and their latency percentiles, ms. */
  record Bucket(long second, long puts, double p50Ms, double p99Ms, double p999Ms, double maxMs) {
  }

  private final long originNanos;
  private final TreeMap<Long, Histogram> seconds = new TreeMap<>();

  Timeline(long originNanos) {
    this.originNanos = originNanos;
  }

  /** An empty timeline with the same origin, for one writer. */
  Timeline local() {
    return new Timeline(originNanos);
  }

  /** A Put sent at {@code sentNanos} that took {@code latencyNanos}. */
  void record(long sentNanos, long latencyNanos) {
    seconds.computeIfAbsent(Math.floorDiv(sentNanos - originNanos, SECOND),
      s -> new Histogram(3)).recordValue(latencyNanos);
  }

  synchronized void add(Timeline other) {
    for (Map.Entry<Long, Histogram> e : other.seconds.entrySet()) {
      seconds.computeIfAbsent(e.getKey(), s -> new Histogram(3)).add(e.getValue());
    }
  }

  /** Seconds since the origin of a {@link System#nanoTime()} reading. */
  double secondsOf(long nanos) {
    return (nanos - originNanos) / 1e9;
  }

  synchronized List<Bucket> buckets() {
    List<Bucket> out = new ArrayList<>();
    for (Map.Entry<Long, Histogram> e : seconds.entrySet()) {
      Histogram h = e.getValue();
      out.add(new Bucket(e.getKey(), h.getTotalCount(), h.getValueAtPercentile(50) / 1e6,
        h.getValueAtPercentile(99) / 1e6, h.getValueAtPercentile(99.9) / 1e6,
        h.getMaxValue() / 1e6));
    }
    return out;
  }
}
