package io.strata.bench.writetail;

import io.strata.bench.common.Charts;
import java.awt.Color;
import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;
import org.HdrHistogram.Histogram;
import org.knowm.xchart.XYChart;

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

  /**
   * One policy's chart of the PNG: its buckets, turns and flushes ({@code [start, end]} s of the
   * run) and GC pauses (s of the run). Its x axis is the policy's own writing time: its turns put
   * end to end (the policies' turns alternate, with settling in between), so a chart is not
   * mostly gaps; a flush that ran between turns is drawn at the start of the next one.
   */
  record Panel(String label, List<Bucket> buckets, List<double[]> turns, List<double[]> flushes,
    List<Double> gcPauses) {
    /** Seconds of the run to seconds of this policy's writing (its turns end to end). */
    double writingTime(double t) {
      double before = 0;
      for (double[] turn : turns) {
        if (t < turn[0]) {
          return before;
        }
        if (t <= turn[1]) {
          return before + t - turn[0];
        }
        before += turn[1] - turn[0];
      }
      return before;
    }

    XYChart chart() {
      XYChart c = Charts.line(String.format(Locale.ROOT, "%s: Put latency per second (shaded: "
        + "flushes, %d; red lines: GC pauses, %d)", label, flushes.size(), gcPauses.size()),
        "seconds of the policy's writing (its turns end to end; Puts by second sent)", "ms");
      series(c, "p50", new Color(90, 170, 90), Bucket::p50Ms);
      series(c, "p99", new Color(40, 100, 190), Bucket::p99Ms);
      series(c, "p99.9", new Color(200, 120, 30), Bucket::p999Ms);
      series(c, "max", new Color(110, 110, 110), Bucket::maxMs);
      List<double[]> shaded = new ArrayList<>();
      for (double[] f : flushes) {
        shaded.add(new double[] { writingTime(f[0]), writingTime(f[1]) });
      }
      Charts.bands(c, "flush", new Color(80, 140, 220, 110), shaded, List.of());
      Charts.markers(c, "GC pause", new Color(200, 40, 40, 110),
        gcPauses.stream().map(this::writingTime).toList());
      return c;
    }

    /** One percentile over the buckets, each at its middle in the policy's writing time. */
    private void series(XYChart c, String name, Color color, ToDoubleFunction<Bucket> value) {
      double[] x = new double[buckets.size()];
      double[] y = new double[x.length];
      for (int i = 0; i < x.length; i++) {
        x[i] = writingTime(buckets.get(i).second() + 0.5);
        y[i] = value.applyAsDouble(buckets.get(i));
      }
      Charts.series(c, name, color, x, y);
    }
  }

  /** The policies' charts stacked in one PNG. */
  static void plot(List<Panel> panels, File png) throws IOException {
    Charts.writeStacked(panels.stream().map(Panel::chart).toList(), png);
  }
}
