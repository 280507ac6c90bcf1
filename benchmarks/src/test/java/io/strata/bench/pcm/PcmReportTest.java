package io.strata.bench.pcm;

import static org.junit.Assert.assertEquals;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.strata.pcm.WorkloadClass;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import org.junit.Test;

/**
 * The report.md and console summary of a run with every part (Table III steps, workloads with a
 * side missing, classification with a mix not classified, adaptation, a failed part) are the
 * ones the bench rendered before it rendered them from its Result record:
 * pcm-report-before.md and pcm-summary-before.txt, rendered from these figures by that code.
 */
public class PcmReportTest {
  static PcmResults sample() {
    PcmResults r = new PcmResults(PcmScale.QUICK, 3L << 30);
    r.seconds(812.5);
    List<Table3Step> steps = Table3Step.STEPS;
    for (int i = steps.size() - 1; i >= 0; i--) {
      r.table3(steps.get(i), 1000 + 250 * i, 30 + i, 1 + i);
    }
    r.workload("BL", 60_000, true, 1200);
    r.workload("BL", 60_000, false, 3100);
    r.workload("RO-Read", 60_000, true, 5000);
    r.workload("MixRW", 60_000, false, 2000);
    r.classified(Mix.YCSB.get(0), new PcmResults.Classified(Mix.YCSB.get(0).expected(), 2.01,
      0.51, 0.0, 0.0));
    r.classified(Mix.YCSB.get(1), new PcmResults.Classified(null, 2.02, 0.95, Double.NaN,
      Double.NaN));
    r.adaptation(List.of(new PcmResults.Phase("BL", WorkloadClass.BL, WorkloadClass.BL, 69.7,
      3240.8), new PcmResults.Phase("YCSB-B", WorkloadClass.RM, null, Double.NaN, 2473.9)),
      2473.9, 2445.5, 3036.9);
    r.failed("workloads", "cluster did not start");
    r.monitoring(JsonNodeFactory.instance.objectNode().put("interval_ms", 1000));
    return r;
  }

  private static String resource(String name) throws Exception {
    return Files.readString(new File(PcmReportTest.class.getResource(name).toURI()).toPath(),
      StandardCharsets.UTF_8);
  }

  @Test
  public void theReportAndSummaryAreTheOnesTheBenchRendered() throws Exception {
    PcmResult r = PcmResult.of(sample());
    assertEquals(resource("pcm-report-before.md"),
      new PcmReport(r, PcmScale.QUICK).markdown(List.of("table3-speedup.png")));
    assertEquals(resource("pcm-summary-before.txt"), PcmReport.summary(r));
  }
}
