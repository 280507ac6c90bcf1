package io.strata.bench.monitor;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.strata.bench.common.BenchJson;
import io.strata.bench.common.Charts;
import java.awt.Color;
import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.XYChart;

/**
 * What a {@link Monitor} recorded: sample times, one value per series per sample ({@code NaN}
 * where a source could not be read), and the run's phases on the same axis. A sample at time t
 * covers the interval before it: rates and per-interval counts are over that interval, gauges
 * are their value at t. Immutable once built.
 *
 * @param intervalS the sampling interval
 * @param t seconds since the monitor started, per sample
 * @param series per series name, its value per sample
 * @param phases the phases marked, in order
 * @param missing per source ({@code proc}, {@code hbase}), samples it could not give
 */
public record Timeline(double intervalS, double[] t, Map<String, double[]> series,
  List<Phase> phases, Map<String, Integer> missing) {

  /** One phase of the run, from its mark to the next (or to the end of monitoring). */
  public record Phase(String name, double startS, double endS) {
  }

  /**
   * Per series, the mean of the samples inside the phase (those after its start up to its end,
   * at least one sample: the one at or after its end when the phase is shorter than a sample).
   */
  public Map<String, Double> means(Phase p) {
    Map<String, Double> means = new LinkedHashMap<>();
    for (Map.Entry<String, double[]> e : series.entrySet()) {
      double sum = 0;
      int n = 0;
      int first = -1;
      for (int i = 0; i < t.length; i++) {
        if (t[i] > p.startS() && first < 0) {
          first = i;
        }
        if (t[i] > p.startS() && t[i] <= p.endS() + 1e-9 && !Double.isNaN(e.getValue()[i])) {
          sum += e.getValue()[i];
          n++;
        }
      }
      if (n == 0 && first >= 0 && !Double.isNaN(e.getValue()[first])) {
        sum = e.getValue()[first];
        n = 1;
      }
      means.put(e.getKey(), n == 0 ? Double.NaN : sum / n);
    }
    return means;
  }

  /**
   * The {@code monitoring} section: {@code interval_ms}, {@code t_s}, {@code series} (name to
   * values, null where missing), {@code phases} (name, start_s, end_s and the per-series
   * {@code means}) and {@code missing_samples}; times, values and means rounded to 1/1000.
   */
  public Monitoring monitoring() {
    List<Double> ts = new ArrayList<>();
    for (double v : t) {
      ts.add(round(v));
    }
    Map<String, List<Double>> s = new LinkedHashMap<>();
    series.forEach((name, values) -> {
      List<Double> a = new ArrayList<>();
      for (double v : values) {
        a.add(Double.isNaN(v) ? null : round(v));
      }
      s.put(name, a);
    });
    List<Monitoring.Phase> ps = new ArrayList<>();
    for (Phase p : phases) {
      Map<String, Double> m = new LinkedHashMap<>();
      means(p).forEach((k, v) -> m.put(k, Double.isNaN(v) ? null : round(v)));
      ps.add(new Monitoring.Phase(p.name(), round(p.startS()), round(p.endS()), m));
    }
    return new Monitoring(Math.round(intervalS * 1000), ts, s, ps, new LinkedHashMap<>(missing));
  }

  /** {@link #monitoring()}'s fields into {@code node}. */
  public void toJson(ObjectNode node) {
    node.setAll((ObjectNode) BenchJson.tree(monitoring()));
  }

  private static double round(double v) {
    return Math.round(v * 1000) / 1000.0;
  }

  /** The panels of {@link #plot}: title, y axis, series shown. */
  static final List<Object[]> PANELS = List.of(
    new Object[] { "CPU (machine)", "% of all cores",
      List.of("cpu_user_pct", "cpu_system_pct", "cpu_iowait_pct") },
    new Object[] { "Disk (machine)", "MB/s", List.of("disk_read_mb_s", "disk_write_mb_s") },
    new Object[] { "Network (machine)", "MB/s",
      List.of("net_rx_mb_s", "net_tx_mb_s", "loopback_mb_s") },
    new Object[] { "Memstore (RegionServers)", "MiB", List.of("memstore_mb") },
    new Object[] { "Queues and store files (RegionServers)", "count",
      List.of("flush_queue", "compaction_queue", "store_files") },
    new Object[] { "Blocked updates and GC (per interval)", "ms / requests",
      List.of("updates_blocked_ms", "blocked_requests", "gc_ms") });

  /** Share of the time axis one character of a phase's name takes (7 of the plot's 990 px). */
  static final double LABEL_CHAR_SHARE = 7.0 / 990;
  /** Pixels per panel of the PNG. */
  static final int PANEL_HEIGHT = 260;

  private static final Color[] COLORS = { new Color(31, 119, 180), new Color(214, 39, 40),
    new Color(44, 160, 44) };

  /** A phase's label: its text (empty: none) and its row, 0 (the lower) or 1. */
  record Label(String text, int row) {
  }

  /**
   * Each phase's label on a time axis from 0 to {@code end}: its name in the first of the two
   * label rows where it does not run into the previous name, else none (the start is still
   * marked), or a run of many short phases is unreadable. The JSON has them all.
   */
  static List<Label> labels(List<Phase> phases, double end) {
    List<Label> labels = new ArrayList<>();
    double[] labelEnds = { Double.NEGATIVE_INFINITY, Double.NEGATIVE_INFINITY };
    for (Phase p : phases) {
      int row = p.startS() >= labelEnds[0] ? 0 : p.startS() >= labelEnds[1] ? 1 : -1;
      if (row < 0) {
        labels.add(new Label("", 0));
      } else {
        labels.add(new Label(p.name(), row));
        labelEnds[row] = p.startS() + (p.name().length() + 2) * LABEL_CHAR_SHARE * end;
      }
    }
    return labels;
  }

  /**
   * One panel per kind of metric, on one time axis, each phase's start marked; the RegionServer
   * panels only when the timeline has RegionServer series (a bench without HBase has none).
   */
  @SuppressWarnings("unchecked")
  public void plot(String title, File png) throws IOException {
    List<XYChart> charts = new ArrayList<>();
    double end = t.length == 0 ? 1 : Math.max(t[t.length - 1], 1);
    boolean hbase = Monitor.HBASE_SERIES.stream().anyMatch(series::containsKey);
    for (Object[] panel : PANELS) {
      if (!hbase && ((List<String>) panel[2]).stream().allMatch(Monitor.HBASE_SERIES::contains)) {
        continue;
      }
      XYChart c = Charts.line(charts.isEmpty() ? title + " - " + panel[0] : (String) panel[0],
        "seconds", (String) panel[1], PANEL_HEIGHT);
      c.getStyler().setXAxisMin(0.0).setXAxisMax(end);
      List<String> names = (List<String>) panel[2];
      for (int i = 0; i < names.size(); i++) {
        double[] y = series.get(names.get(i));
        if (y != null) {
          Charts.series(c, names.get(i), COLORS[i % COLORS.length], t, y);
        }
      }
      List<Label> labels = labels(phases, end);
      for (int i = 0; i < phases.size(); i++) {
        Charts.boundary(c, phases.get(i).startS(), labels.get(i).text(), labels.get(i).row());
      }
      charts.add(c);
    }
    Charts.writeStacked(charts, png);
  }
}
