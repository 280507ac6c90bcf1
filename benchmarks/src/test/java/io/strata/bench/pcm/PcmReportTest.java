package io.strata.bench.pcm;

import static org.junit.Assert.assertEquals;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.strata.pcm.WorkloadClass;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import org.junit.Test;

/**
 * The report.md and console summary of a run of two repetitions with every part (Table III
 * steps, S.1 and S.4 run twice and S.1 on the secondary baseline, workloads with a side missing
 * and one run twice on both baselines, classification with a mix not classified, two adaptation
 * runs, a failed part) are pcm-report.md and pcm-summary.txt: the report the bench rendered
 * from its Result record before it ran repetitions and two baselines, with the runs, spreads,
 * baselines and restarts added (medians, min-max, secondary baseline and restarts checked by
 * hand against these figures).
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
    // A second run and the secondary baseline.
    r.runs(2);
    r.splitPolicy(Side.STOCK, "org.apache.hadoop.hbase.regionserver.SteppingSplitPolicy");
    r.splitPolicy(Side.INCREASING_TO_UPPER_BOUND, Side.INCREASING_TO_UPPER_BOUND.splitPolicy());
    r.table3Secondary(0, 800);
    r.table3(steps.get(0), 1, 1100, 31, 2);
    r.table3(steps.get(3), 1, 2000, 33, 12);
    r.table3Secondary(1, 1000);
    r.workload("BL", 60_000, 1, Side.STOCK, 1000);
    r.workload("BL", 60_000, 1, Side.PCM, 3300);
    r.workload("BL", 60_000, 0, Side.INCREASING_TO_UPPER_BOUND, 1500);
    r.workload("BL", 60_000, 1, Side.INCREASING_TO_UPPER_BOUND, 1100);
    r.adaptation(1, List.of(new PcmResults.Phase("BL", WorkloadClass.BL, WorkloadClass.BL, 60.1,
      3000), new PcmResults.Phase("YCSB-B", WorkloadClass.RM, WorkloadClass.RM, 8.5, 2600)),
      Map.of(Side.PCM, 2600.0, Side.STOCK, 2000.0, Side.INCREASING_TO_UPPER_BOUND, 2100.0),
      2900, 0);
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
    assertEquals(resource("pcm-report.md"),
      new PcmReport(r, PcmScale.QUICK).markdown(List.of("table3-speedup.png")));
    assertEquals(resource("pcm-summary.txt"), PcmReport.summary(r));
  }
}
