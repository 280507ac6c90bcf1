package io.strata.bench.monitor;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Map;

/**
 * A bench's {@code monitoring} section ({@link BenchMonitor#SECTION}), as Jackson writes it from
 * a {@link Timeline}: the interval, the sample times, each series' value per sample (null where
 * its source could not be read), the phases with their per-series means (null where a phase has
 * no sample of it) and the samples each source missed. The JSON field names are the
 * {@code @JsonProperty} names, kept as the section has always been written.
 */
public record Monitoring(@JsonProperty("interval_ms") long intervalMs,
  @JsonProperty("t_s") List<Double> tS,
  @JsonProperty("series") Map<String, List<Double>> series,
  @JsonProperty("phases") List<Phase> phases,
  @JsonProperty("missing_samples") Map<String, Integer> missingSamples) {

  /** One phase: its name, start and end (seconds of the timeline) and per-series means. */
  public record Phase(@JsonProperty("name") String name, @JsonProperty("start_s") double startS,
    @JsonProperty("end_s") double endS,
    @JsonInclude(content = JsonInclude.Include.ALWAYS) // a phase without a sample: null
    @JsonProperty("means") Map<String, Double> means) {
  }
}
