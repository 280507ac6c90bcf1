package io.strata.bench.ycsb;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.NavigableMap;
import java.util.OptionalDouble;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The figures of YCSB's text report ({@code TextMeasurementsExporter}: lines {@code [SECTION],
 * metric, value}), with operations' latencies and return codes made typed, so that benchmarks
 * and tests read YCSB's own measurements instead of measuring again. Other lines (logging
 * on the same stream) are skipped, so a report can be read from stdout as well as from an
 * {@code exportfile}.
 */
public final class YcsbReport {
  private static final Pattern LINE = Pattern.compile("^\\[([^\\]]+)\\], ([^,]+), (.*)$");
  private static final Pattern PERCENTILE =
    Pattern.compile("^([0-9]+(?:\\.[0-9]+)?)(?:st|nd|rd|th)?PercentileLatency\\(us\\)$");
  private static final String RETURN = "Return=";

  private final Map<String, Map<String, String>> sections;
  private final Map<String, Operation> operations;

  private YcsbReport(Map<String, Map<String, String>> sections) {
    this.sections = sections;
    Map<String, Operation> ops = new LinkedHashMap<>();
    sections.forEach((name, metrics) -> {
      if (metrics.containsKey("Operations")) {
        ops.put(name, new Operation(name, metrics));
      }
    });
    this.operations = Collections.unmodifiableMap(ops);
  }

  public static YcsbReport parse(Iterable<String> lines) {
    Map<String, Map<String, String>> sections = new LinkedHashMap<>();
    for (String line : lines) {
      Matcher m = LINE.matcher(line.strip());
      if (m.matches()) {
        sections.computeIfAbsent(m.group(1), k -> new LinkedHashMap<>())
          .put(m.group(2).strip(), m.group(3).strip());
      }
    }
    sections.replaceAll((k, v) -> Collections.unmodifiableMap(v));
    return new YcsbReport(Collections.unmodifiableMap(sections));
  }

  public static YcsbReport parse(Path file) throws IOException {
    return parse(new String(Files.readAllBytes(file), StandardCharsets.UTF_8).lines()::iterator);
  }

  /** True when the report has YCSB's closing {@code [OVERALL]} figures. */
  public boolean complete() {
    return sections.containsKey("OVERALL") && sections.get("OVERALL").containsKey("RunTime(ms)");
  }

  public double runTimeMs() {
    return number("OVERALL", "RunTime(ms)");
  }

  public double throughputOpsPerSec() {
    return number("OVERALL", "Throughput(ops/sec)");
  }

  /** Every section as read, e.g. {@code OVERALL}, {@code TOTAL_GCs}, {@code READ}. */
  public Map<String, Map<String, String>> sections() {
    return sections;
  }

  /** Sections with an operation count: {@code READ}, {@code UPDATE}, {@code CLEANUP}, ... */
  public Map<String, Operation> operations() {
    return operations;
  }

  /** The named operation; throws if YCSB reported none. */
  public Operation operation(String name) {
    Operation op = operations.get(name);
    if (op == null) {
      throw new IllegalArgumentException(
        "No " + name + " in the report; it has " + operations.keySet());
    }
    return op;
  }

  /** Operations that returned something other than {@code OK}, over all operation kinds. */
  public long failedOperations() {
    long n = 0;
    for (Operation op : operations.values()) {
      for (Map.Entry<String, Long> e : op.returns().entrySet()) {
        if (!e.getKey().equals("OK")) {
          n += e.getValue();
        }
      }
    }
    return n;
  }

  private double number(String section, String metric) {
    Map<String, String> s = sections.get(section);
    String v = s == null ? null : s.get(metric);
    if (v == null) {
      throw new IllegalStateException("No [" + section + "], " + metric + " in the report");
    }
    return Double.parseDouble(v);
  }

  /** One kind of operation: count, latencies in microseconds and return codes. */
  public static final class Operation {
    private final String name;
    private final Map<String, String> metrics;
    private final NavigableMap<Double, Double> percentiles = new TreeMap<>();
    private final Map<String, Long> returns = new LinkedHashMap<>();

    private Operation(String name, Map<String, String> metrics) {
      this.name = name;
      this.metrics = metrics;
      metrics.forEach((k, v) -> {
        Matcher m = PERCENTILE.matcher(k);
        if (m.matches()) {
          percentiles.put(Double.parseDouble(m.group(1)), Double.parseDouble(v));
        } else if (k.startsWith(RETURN)) {
          returns.put(k.substring(RETURN.length()), Long.parseLong(v));
        }
      });
    }

    public String name() {
      return name;
    }

    /**
     * Operations timed in this section. YCSB times operations that did not return {@code OK} in
     * a section of their own ({@code READ-FAILED}) but counts their return codes here.
     */
    public long count() {
      return Long.parseLong(metrics.get("Operations"));
    }

    public double averageUs() {
      return Double.parseDouble(metrics.get("AverageLatency(us)"));
    }

    public double minUs() {
      return Double.parseDouble(metrics.get("MinLatency(us)"));
    }

    public double maxUs() {
      return Double.parseDouble(metrics.get("MaxLatency(us)"));
    }

    /** The reported latency percentile (e.g. 99.9), in microseconds, if YCSB reported it. */
    public OptionalDouble percentileUs(double percentile) {
      Double v = percentiles.get(percentile);
      return v == null ? OptionalDouble.empty() : OptionalDouble.of(v);
    }

    /** Reported percentiles (key: e.g. 50.0, 99.9) to latency in microseconds. */
    public NavigableMap<Double, Double> percentilesUs() {
      return Collections.unmodifiableNavigableMap(percentiles);
    }

    /** Count per return code name ({@code OK}, {@code NOT_FOUND}, {@code ERROR}, ...). */
    public Map<String, Long> returns() {
      return Collections.unmodifiableMap(returns);
    }

    public long returned(String status) {
      return returns.getOrDefault(status, 0L);
    }

    /** Operations issued, whatever they returned. */
    public long returnedTotal() {
      return returns.values().stream().mapToLong(Long::longValue).sum();
    }

    /** Every metric of this section as YCSB wrote it. */
    public Map<String, String> metrics() {
      return metrics;
    }

    @Override
    public String toString() {
      StringBuilder sb = new StringBuilder(name).append(": ").append(count()).append(" ops");
      if (metrics.containsKey("AverageLatency(us)")) {
        sb.append(String.format(Locale.ROOT, " avg %.0f us", averageUs()));
      }
      percentiles.forEach((p, v) -> sb.append(String.format(Locale.ROOT, " p%s %.0f", fmt(p), v)));
      if (!returns.isEmpty()) {
        sb.append(' ').append(returns);
      }
      return sb.toString();
    }

    private static String fmt(double p) {
      return p == Math.rint(p) ? Long.toString((long) p) : Double.toString(p);
    }
  }
}
