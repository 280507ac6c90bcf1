package io.strata.bench.media;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The storage-media paper's findings on the ordering of its cases, each checked against the
 * cases this run measured: the paper's statement and figure, Strata's figure, and whether the
 * ordering holds.
 *
 * <p>The storage-media paper: <i>Optimize Hadoop Cluster Performance with Various Storage Media</i>.
 */
final class StudyFindings {
  enum Verdict {
    HOLDS("holds"), DIFFERS("differs"), NOT_RUN("not run");

    final String text;

    Verdict(String text) {
      this.text = text;
    }
  }

  /** One finding of the paper, checked. */
  record Finding(String claim, String study, String strata, Verdict verdict) {
  }

  /** Throughput within this ratio of another counts as about equal. */
  static final double ABOUT_EQUAL = 0.10;

  private final Map<String, CaseResult> byName;
  /** Whether any case of the paper's Table 1 was asked for (its findings are about those). */
  private final boolean table1;

  StudyFindings(List<CaseResult> results) {
    this.table1 = results.stream()
      .anyMatch(r -> r.mediaCase().ssd().equals(SsdSetup.ONE_VOLUME));
    this.byName = results.stream().filter(CaseResult::ok)
      .collect(Collectors.toMap(r -> r.mediaCase().name(), Function.identity()));
  }

  /**
   * The findings on Table 1's cases; none when only the SSD-count cases ran ({@link SsdScaling}
   * compares those).
   */
  List<Finding> check() {
    List<Finding> f = new ArrayList<>();
    if (!table1) {
      return f;
    }
    f.add(compare3("50G: RAM and SSD beat HDD in throughput, RAM the most",
      "50G_RAM 163 %, 50G_SSD 128 % of 50G_HDD", "50G_RAM", "50G_SSD", "50G_HDD", true));
    f.add(compare3("50G: RAM and SSD cut the average latency, RAM the most",
      "50G_RAM 11 %, 50G_SSD 32 % of 50G_HDD", "50G_RAM", "50G_SSD", "50G_HDD", false));
    f.add(better("1T_SSD beats 1T_HDD in throughput and latency",
      "134 % throughput, 35 % latency of 1T_HDD", "1T_SSD", "1T_HDD"));
    f.add(best("1T_RAM_SSD is the best 1T case in throughput and latency",
      "109 % throughput, 67 % latency of 1T_SSD", "1T_RAM_SSD"));
    f.add(lowerThroughput("1T_RAM_HDD is worse than 1T_HDD (RAM WAL before HDD flushes and "
      + "compactions)", "89 % throughput of 1T_HDD", "1T_RAM_HDD", "1T_HDD"));
    f.add(better("Mixing SSD and HDD lifts HDD", "1T_SSD_HDD: 136 % throughput, 35 % latency "
      + "of 1T_HDD", "1T_SSD_HDD", "1T_HDD"));
    f.add(aboutEqual("All-SSD gains nothing over the SSD/HDD mix",
      "1T_SSD: 98 % throughput, 99 % latency of 1T_SSD_HDD", "1T_SSD", "1T_SSD_HDD"));
    f.add(lowerThroughput("A RAM WAL makes 1T_SSD_All_HDD worse",
      "1T_RAM_SSD_All_HDD: 98 % throughput of 1T_SSD_All_HDD", "1T_RAM_SSD_All_HDD",
      "1T_SSD_All_HDD"));
    f.add(beatsBoth("1T_RAM_SSD_HDD beats the SSD/HDD mixes",
      "better than 1T_SSD_HDD and 1T_SSD_All_HDD", "1T_RAM_SSD_HDD", "1T_SSD_HDD",
      "1T_SSD_All_HDD"));
    return f;
  }

  private Optional<CaseResult> get(String name) {
    return Optional.ofNullable(byName.get(name));
  }

  private static String pct(double ratio) {
    return String.format(Locale.ROOT, "%.0f %%", 100 * ratio);
  }

  private static Finding notRun(String claim, String study, String... names) {
    return new Finding(claim, study, "needs " + String.join(", ", names), Verdict.NOT_RUN);
  }

  private Finding compare3(String claim, String study, String a, String b, String base,
    boolean throughput) {
    Optional<CaseResult> ra = get(a);
    Optional<CaseResult> rb = get(b);
    Optional<CaseResult> rc = get(base);
    if (ra.isEmpty() || rb.isEmpty() || rc.isEmpty()) {
      return notRun(claim, study, a, b, base);
    }
    Function<CaseResult, Double> m = throughput ? CaseResult::throughputOps
      : CaseResult::latencyUsAvg;
    double va = m.apply(ra.get());
    double vb = m.apply(rb.get());
    double vc = m.apply(rc.get());
    boolean holds = throughput ? va > vb && vb > vc : va < vb && vb < vc;
    return new Finding(claim, study, String.format(Locale.ROOT, "%s %s, %s %s of %s", a,
      pct(va / vc), b, pct(vb / vc), base), holds ? Verdict.HOLDS : Verdict.DIFFERS);
  }

  private Finding better(String claim, String study, String a, String base) {
    Optional<CaseResult> ra = get(a);
    Optional<CaseResult> rb = get(base);
    if (ra.isEmpty() || rb.isEmpty()) {
      return notRun(claim, study, a, base);
    }
    double t = ra.get().throughputOps() / rb.get().throughputOps();
    double l = ra.get().latencyUsAvg() / rb.get().latencyUsAvg();
    return new Finding(claim, study, String.format(Locale.ROOT, "%s throughput, %s latency of %s",
      pct(t), pct(l), base), t > 1 && l < 1 ? Verdict.HOLDS : Verdict.DIFFERS);
  }

  private Finding lowerThroughput(String claim, String study, String a, String base) {
    Optional<CaseResult> ra = get(a);
    Optional<CaseResult> rb = get(base);
    if (ra.isEmpty() || rb.isEmpty()) {
      return notRun(claim, study, a, base);
    }
    double t = ra.get().throughputOps() / rb.get().throughputOps();
    return new Finding(claim, study, String.format(Locale.ROOT, "%s: %s throughput of %s", a,
      pct(t), base), t < 1 ? Verdict.HOLDS : Verdict.DIFFERS);
  }

  private Finding aboutEqual(String claim, String study, String a, String base) {
    Optional<CaseResult> ra = get(a);
    Optional<CaseResult> rb = get(base);
    if (ra.isEmpty() || rb.isEmpty()) {
      return notRun(claim, study, a, base);
    }
    double t = ra.get().throughputOps() / rb.get().throughputOps();
    double l = ra.get().latencyUsAvg() / rb.get().latencyUsAvg();
    return new Finding(claim, study, String.format(Locale.ROOT, "%s: %s throughput, %s latency "
      + "of %s", a, pct(t), pct(l), base), t <= 1 + ABOUT_EQUAL ? Verdict.HOLDS
        : Verdict.DIFFERS);
  }

  private Finding best(String claim, String study, String a) {
    Optional<CaseResult> ra = get(a);
    List<CaseResult> others = byName.values().stream()
      .filter(r -> r.mediaCase().dataset() == Dataset.EXCEEDS_RAM && !r.mediaCase().name()
        .equals(a)).toList();
    if (ra.isEmpty() || others.isEmpty()) {
      return notRun(claim, study, a, "another 1T case");
    }
    CaseResult bestThroughput = others.stream()
      .max((x, y) -> Double.compare(x.throughputOps(), y.throughputOps())).orElseThrow();
    CaseResult bestLatency = others.stream()
      .min((x, y) -> Double.compare(x.latencyUsAvg(), y.latencyUsAvg())).orElseThrow();
    double t = ra.get().throughputOps() / bestThroughput.throughputOps();
    double l = ra.get().latencyUsAvg() / bestLatency.latencyUsAvg();
    String ref = get("1T_SSD").map(s -> String.format(Locale.ROOT, "; %s throughput, %s latency "
      + "of 1T_SSD", pct(ra.get().throughputOps() / s.throughputOps()),
      pct(ra.get().latencyUsAvg() / s.latencyUsAvg()))).orElse("");
    return new Finding(claim, study, String.format(Locale.ROOT, "%s throughput of the best other "
      + "(%s), %s latency of the best other (%s)%s", pct(t), bestThroughput.mediaCase().name(),
      pct(l), bestLatency.mediaCase().name(), ref), t > 1 && l < 1 ? Verdict.HOLDS
        : Verdict.DIFFERS);
  }

  private Finding beatsBoth(String claim, String study, String a, String b, String c) {
    Optional<CaseResult> ra = get(a);
    Optional<CaseResult> rb = get(b);
    Optional<CaseResult> rc = get(c);
    if (ra.isEmpty() || rb.isEmpty() || rc.isEmpty()) {
      return notRun(claim, study, a, b, c);
    }
    double tb = ra.get().throughputOps() / rb.get().throughputOps();
    double tc = ra.get().throughputOps() / rc.get().throughputOps();
    return new Finding(claim, study, String.format(Locale.ROOT, "%s throughput of %s, %s of %s",
      pct(tb), b, pct(tc), c), tb > 1 && tc > 1 ? Verdict.HOLDS : Verdict.DIFFERS);
  }
}
