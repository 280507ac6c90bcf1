package io.strata.bench.ycsb;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.strata.bench.ycsb.MultiPhaseRun.Kind;
import io.strata.bench.ycsb.MultiPhaseRun.Step;
import java.util.List;
import org.junit.Test;

public class MultiPhaseRunTest {
  @Test
  public void parsesStepsAndWorkloadNames() {
    assertEquals(List.of(new Step(Kind.LOAD, null), new Step(Kind.FLUSH, null),
      new Step(Kind.SETTLE, null), new Step(Kind.RUN, "workloada"),
      new Step(Kind.RUN, "workload-update-only"), new Step(Kind.RUN, "workloadc")),
      MultiPhaseRun.parse("load, flush,settle,a,update-only,workloadc"));
    assertEquals("workloada", MultiPhaseRun.parse("A").get(0).name());
    assertEquals("settle", MultiPhaseRun.parse("settle").get(0).name());
  }

  @Test
  public void unknownStepIsNamed() {
    try {
      MultiPhaseRun.parse("load,z");
      fail();
    } catch (IllegalArgumentException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("'z'"));
    }
  }
}
