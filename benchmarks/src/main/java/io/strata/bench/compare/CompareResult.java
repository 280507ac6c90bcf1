package io.strata.bench.compare;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What {@code strata bench compare} found, as {@code --json} writes it: labelled (commit, date,
 * transport, emulation and the media probe), then per WAL sync mode ({@code workloads}: hflush,
 * HBase's default; {@code workloads_hsync}) and per workload ({@code load}, {@code a}, {@code b},
 * {@code c}, {@code e}, {@code f}) each configuration's median figures over its runs and every
 * run, and Strata's ratios to stock and to tuned upstream. The field names are the
 * {@code @JsonProperty} names (CompareResultTest holds them).
 */
@JsonPropertyOrder({ "commit", "date", "transport", "emulation", "probe", "workloads",
  "workloads_hsync" })
record CompareResult(@JsonProperty("commit") String commit, @JsonProperty("date") String date,
  @JsonProperty("transport") String transport, @JsonProperty("emulation") String emulation,
  @JsonProperty("probe") JsonNode probe,
  @JsonProperty("workloads") Map<String, Workload> workloads,
  @JsonProperty("workloads_hsync") Map<String, Workload> workloadsHsync) {

  /** The workloads, in the JSON's order. */
  static final List<String> WORKLOADS = List.of("load", "a", "b", "c", "e", "f");
  /** The configurations, in the first repetition's order. */
  static final List<String> CONFIGS = List.of("stock", "tuned", "strata");

  /** One run of one workload on one configuration's cluster. */
  @JsonPropertyOrder({ "rep", "ops_per_s", "p50_us", "p99_us", "p999_us" })
  record Run(@JsonProperty("rep") int rep, @JsonProperty("ops_per_s") double opsPerS,
    @JsonProperty("p50_us") double p50Us, @JsonProperty("p99_us") double p99Us,
    @JsonProperty("p999_us") double p999Us) {
  }

  /** A configuration's medians over its runs, and the runs. */
  @JsonPropertyOrder({ "ops_per_s", "p50_us", "p99_us", "p999_us", "runs" })
  record Config(@JsonProperty("ops_per_s") double opsPerS, @JsonProperty("p50_us") double p50Us,
    @JsonProperty("p99_us") double p99Us, @JsonProperty("p999_us") double p999Us,
    @JsonProperty("runs") List<Run> runs) {

    static Config of(List<Run> runs) {
      List<Double> ops = new ArrayList<>();
      List<Double> p50 = new ArrayList<>();
      List<Double> p99 = new ArrayList<>();
      List<Double> p999 = new ArrayList<>();
      for (Run r : runs) {
        ops.add(r.opsPerS());
        p50.add(r.p50Us());
        p99.add(r.p99Us());
        p999.add(r.p999Us());
      }
      return new Config(CompareStats.round(CompareStats.median(ops), 1),
        CompareStats.round(CompareStats.median(p50), 1),
        CompareStats.round(CompareStats.median(p99), 1),
        CompareStats.round(CompareStats.median(p999), 1), List.copyOf(runs));
    }

    /** The spread of the runs' throughput about its median. */
    double opsSpread() {
      return CompareStats.spread(runs.stream().map(Run::opsPerS).toList());
    }

    /** The spread of the runs' p99 about its median. */
    double p99Spread() {
      return CompareStats.spread(runs.stream().map(Run::p99Us).toList());
    }
  }

  /** Strata's median throughput and p99 over another configuration's. */
  @JsonPropertyOrder({ "ops_per_s", "p99_us" })
  record Ratio(@JsonProperty("ops_per_s") double opsPerS, @JsonProperty("p99_us") double p99Us) {
    static Ratio of(String what, Config strata, Config other) {
      return new Ratio(CompareStats.ratio(what + " ops_per_s", strata.opsPerS(), other.opsPerS()),
        CompareStats.ratio(what + " p99_us", strata.p99Us(), other.p99Us()));
    }
  }

  /** One workload: each configuration, and Strata's ratios. */
  @JsonPropertyOrder({ "stock", "tuned", "strata", "strata_vs_stock", "strata_vs_tuned" })
  record Workload(@JsonProperty("stock") Config stock, @JsonProperty("tuned") Config tuned,
    @JsonProperty("strata") Config strata,
    @JsonProperty("strata_vs_stock") Ratio strataVsStock,
    @JsonProperty("strata_vs_tuned") Ratio strataVsTuned) {

    /** From each configuration's runs (keyed by {@link #CONFIGS}). */
    static Workload of(String name, Map<String, List<Run>> runs) {
      for (String c : CONFIGS) {
        if (runs.getOrDefault(c, List.of()).isEmpty()) {
          throw new IllegalArgumentException("Workload " + name + " has no run of " + c);
        }
      }
      Config stock = Config.of(runs.get("stock"));
      Config tuned = Config.of(runs.get("tuned"));
      Config strata = Config.of(runs.get("strata"));
      return new Workload(stock, tuned, strata, Ratio.of(name + " strata/stock", strata, stock),
        Ratio.of(name + " strata/tuned", strata, tuned));
    }

    Config config(String name) {
      switch (name) {
        case "stock":
          return stock;
        case "tuned":
          return tuned;
        case "strata":
          return strata;
        default:
          throw new IllegalArgumentException("No configuration " + name);
      }
    }
  }

  /**
   * Every workload of one WAL mode from its runs: {@code runs.get(workload).get(config)}, in
   * {@link #WORKLOADS}' order.
   */
  static Map<String, Workload> workloads(Map<String, Map<String, List<Run>>> runs) {
    Map<String, Workload> out = new LinkedHashMap<>();
    for (String w : WORKLOADS) {
      Map<String, List<Run>> byConfig = runs.get(w);
      if (byConfig == null) {
        throw new IllegalArgumentException("No runs of workload " + w);
      }
      out.put(w, Workload.of(w, byConfig));
    }
    return out;
  }

  /** The report's tables: per WAL mode, per workload each configuration and the ratios. */
  static String markdown(CompareResult r) {
    StringBuilder b = new StringBuilder();
    table(b, "WAL hflush (HBase's default)", r.workloads());
    table(b, "WAL hsync", r.workloadsHsync());
    return b.toString();
  }

  private static void table(StringBuilder b, String title, Map<String, Workload> workloads) {
    b.append("### ").append(title).append("\n\n");
    b.append("| workload | config | ops/s (median) | spread | p50 µs | p99 µs | p99 spread | "
      + "p99.9 µs | runs |\n|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
    workloads.forEach((w, wl) -> {
      for (String c : CONFIGS) {
        Config cfg = wl.config(c);
        b.append(String.format(Locale.ROOT, "| %s | %s | %.0f | %.0f%% | %.0f | %.0f | %.0f%% | "
          + "%.0f | %d |%n", w, c, cfg.opsPerS(), 100 * cfg.opsSpread(), cfg.p50Us(),
          cfg.p99Us(), 100 * cfg.p99Spread(), cfg.p999Us(), cfg.runs().size()));
      }
    });
    b.append("\n| workload | Strata/stock ops/s | Strata/stock p99 | Strata/tuned ops/s | "
      + "Strata/tuned p99 |\n|---|---:|---:|---:|---:|\n");
    workloads.forEach((w, wl) -> b.append(String.format(Locale.ROOT,
      "| %s | %.2f | %.2f | %.2f | %.2f |%n", w, wl.strataVsStock().opsPerS(),
      wl.strataVsStock().p99Us(), wl.strataVsTuned().opsPerS(), wl.strataVsTuned().p99Us())));
    b.append('\n');
  }
}
