package io.strata.bench.media;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The SSD-count cases of a run compared as the storage-media paper compares 50G_8SSD with
 * 50G_4SSD (its Figures 4 and 5): under each controller cap, every count against the fewest SSDs
 * that ran under the same cap. The paper's text gives only the ratios (8 SSDs: 104 % of the
 * throughput and 79 % of the latency of 4 SSDs); its figures' bars are not in the text.
 *
 * <p>The storage-media paper: <i>Optimize Hadoop Cluster Performance with Various Storage Media</i>.
 *
 * <p>Immutable once built; thread-safe.
 */
final class SsdScaling {
  /** The paper: 50G_8SSD had 104 % of 50G_4SSD's throughput. */
  static final double STUDY_THROUGHPUT_8_VS_4 = 1.04;
  /** The paper: 50G_8SSD had 79 % of 50G_4SSD's latency. */
  static final double STUDY_LATENCY_8_VS_4 = 0.79;
  static final String STUDY_SOURCE = "the text beside the study's Figures 4 and 5: \"104% "
    + "throughput and 79% latency\" of 50G_8SSD against 50G_4SSD; the figures plot each case's "
    + "throughput and latency as bars whose values the text does not give";
  /** More SSDs "gain almost nothing" when their throughput stays within this ratio. */
  static final double LITTLE_GAIN = StudyFindings.ABOUT_EQUAL;

  /** One count against the fewest SSDs under the same cap. */
  record Comparison(long controllerBytesPerSecond, CaseResult fewer, CaseResult more) {
    double throughputRatio() {
      return more.throughputOps() / fewer.throughputOps();
    }

    double latencyAvgRatio() {
      return more.latencyUsAvg() / fewer.latencyUsAvg();
    }

    double latencyP99Ratio() {
      return more.latencyUsP99() / fewer.latencyUsP99();
    }

    /** Whether the larger count gained little throughput, as the paper's 8 SSDs did. */
    boolean littleGain() {
      return throughputRatio() <= 1 + LITTLE_GAIN;
    }

    /** Short enough for a chart's category column: {@code 8 vs 4 SSD, cap 1536 MB/s}. */
    String chartLabel() {
      return more.mediaCase().ssd().volumes() + " vs " + fewer.mediaCase().ssd().volumes()
        + " SSD, " + (controllerBytesPerSecond == 0 ? "no cap"
          : "cap " + controllerBytesPerSecond / 1_000_000 + " MB/s");
    }

    String label() {
      return more.mediaCase().name() + " vs " + fewer.mediaCase().name();
    }
  }

  private final List<CaseResult> cases;
  private final List<Comparison> comparisons;

  SsdScaling(List<CaseResult> results) {
    this.cases = results.stream()
      .filter(r -> !r.mediaCase().ssd().equals(SsdSetup.ONE_VOLUME)).toList();
    Map<Long, List<CaseResult>> byCap = new LinkedHashMap<>();
    for (CaseResult r : cases) {
      if (r.ok()) {
        byCap.computeIfAbsent(r.mediaCase().ssd().controllerBytesPerSecond(),
          k -> new ArrayList<>()).add(r);
      }
    }
    List<Comparison> c = new ArrayList<>();
    byCap.forEach((cap, rs) -> {
      CaseResult fewest = rs.stream()
        .min((a, b) -> Integer.compare(a.mediaCase().ssd().volumes(),
          b.mediaCase().ssd().volumes())).orElseThrow();
      for (CaseResult r : rs) {
        if (r != fewest) {
          c.add(new Comparison(cap, fewest, r));
        }
      }
    });
    this.comparisons = List.copyOf(c);
  }

  /** Whether the run had SSD-count cases at all. */
  boolean ran() {
    return !cases.isEmpty();
  }

  /** The SSD-count cases, failed ones included, in run order. */
  List<CaseResult> cases() {
    return cases;
  }

  List<Comparison> comparisons() {
    return comparisons;
  }

  /** The SSD volume counts that ran, ascending. */
  List<Integer> volumeCounts() {
    return cases.stream().map(r -> r.mediaCase().ssd().volumes()).distinct().sorted().toList();
  }

  /** The controller caps that ran (bytes/s, 0: none), in run order. */
  List<Long> caps() {
    return cases.stream().map(r -> r.mediaCase().ssd().controllerBytesPerSecond()).distinct()
      .toList();
  }

  /** Bytes/s a case wrote to the SSD volumes of one DataNode, on average over its load. */
  static double ssdBytesPerSecondPerDataNode(CaseResult r, int dataNodes) {
    return MediaReport.written(r, Medium.SSD) / r.loadSeconds() / dataNodes;
  }

  /**
   * The largest share of its controller cap that a capped case's SSD writes took, on average
   * over its load (NaN when no capped case ran): far below 1, the cap cannot have limited it.
   */
  double largestCapShare(int dataNodes) {
    return cases.stream().filter(r -> r.ok() && r.mediaCase().ssd().capped())
      .mapToDouble(r -> ssdBytesPerSecondPerDataNode(r, dataNodes)
        / r.mediaCase().ssd().controllerBytesPerSecond())
      .max().orElse(Double.NaN);
  }

  /** One line per comparison, with the paper's figures beside. */
  String summary() {
    StringBuilder sb = new StringBuilder();
    for (Comparison c : comparisons) {
      sb.append(String.format(Locale.ROOT, "  %s: throughput %.0f %%, latency avg %.0f %%, p99 "
        + "%.0f %% (study, 50G_8SSD vs 50G_4SSD: %.0f %% throughput, %.0f %% latency)%n",
        c.label(), 100 * c.throughputRatio(), 100 * c.latencyAvgRatio(),
        100 * c.latencyP99Ratio(), 100 * STUDY_THROUGHPUT_8_VS_4, 100 * STUDY_LATENCY_8_VS_4));
    }
    return sb.toString();
  }
}
