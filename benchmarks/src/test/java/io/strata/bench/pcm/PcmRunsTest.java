package io.strata.bench.pcm;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.strata.local.LocalClusterConfig;
import io.strata.pcm.AdaptationManager;
import io.strata.pcm.PolicyKey;
import io.strata.pcm.PolicyLoader;
import io.strata.pcm.WorkloadClass;
import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.hbase.ServerName;
import org.junit.Test;

/**
 * The repetitions of {@code strata bench pcm}: medians and min-max of per-run speed-ups (each
 * run's PCM side against the same run's baseline, not a ratio of medians), the sides' order
 * rotated from run to run (the jobs each repetition builds), restarts counted from RegionServer
 * start codes, the two baselines' split policies, and a cluster-wide split policy refused.
 */
public class PcmRunsTest {
  @Test
  public void medianOfOddEvenAndNoFigures() {
    assertEquals(2.0, PcmResults.median(List.of(3.0, 1.0, 2.0)), 0);
    assertEquals(2.5, PcmResults.median(List.of(4.0, 1.0, 2.0, 3.0)), 0);
    assertEquals(2.0, PcmResults.median(List.of(2.0, Double.NaN)), 0);
    assertTrue(Double.isNaN(PcmResults.median(List.of())));
  }

  @Test
  public void distributionsArePairedRunByRunPerMixAndKeys() {
    PcmResults r = new PcmResults(PcmScale.QUICK, 1L << 30);
    r.runs(2);
    for (int run = 0; run < 2; run++) {
      r.distribution("RO-Read", KeyDistribution.ZIPFIAN, 1000, run, Side.STOCK, 100);
      r.distribution("RO-Read", KeyDistribution.ZIPFIAN, 1000, run, Side.PCM, 300 + 100 * run);
      r.distribution("RO-Read", KeyDistribution.LATEST, 1100, run, Side.STOCK, 100);
      r.distribution("RO-Read", KeyDistribution.LATEST, 1100, run, Side.PCM, 150);
    }
    PcmResult res = PcmResult.of(r);
    PcmResult.Dataset zipf = res.distributions().get("RO-Read").get("zipfian");
    assertEquals(1000, zipf.records());
    assertEquals(3.5, zipf.speedup(), 1e-9);
    assertEquals(2, zipf.runs());
    assertEquals(3.0, zipf.spread().min(), 1e-9);
    assertEquals(4.0, zipf.spread().max(), 1e-9);
    assertEquals(1100, res.distributions().get("RO-Read").get("latest").records());
    assertEquals(1.5, res.distributions().get("RO-Read").get("latest").speedup(), 1e-9);
    // The part is in the report, with the paper's figure.
    String report = new PcmReport(res, PcmScale.QUICK).markdown(List.of());
    assertTrue(report, report.contains("| RO-Read | zipfian | 1,000 |"));
    assertTrue(report, report.contains("1.6x"));
    // Not run: no distributions in the JSON.
    assertNull(PcmResult.of(new PcmResults(PcmScale.QUICK, 1L << 30)).distributions());
  }

  @Test
  public void speedupsArePairedRunByRunThenSummarised() {
    PcmResults r = new PcmResults(PcmScale.QUICK, 1L << 30);
    r.runs(3);
    // Run 0: 2x, run 1: 4x, run 2: 1x; the ratio of the medians would be 3000/1000 = 3x.
    double[][] sides = { { 1000, 2000 }, { 500, 2000 }, { 3000, 3000 } };
    for (int run = 0; run < 3; run++) {
      r.workload("BL", 100, run, Side.STOCK, sides[run][0]);
      r.workload("BL", 100, run, Side.PCM, sides[run][1]);
      r.workload("BL", 100, run, Side.INCREASING_TO_UPPER_BOUND, 1000);
      r.table3(Table3Step.STEPS.get(0), run, sides[run][0], 10, 1);
      r.table3(Table3Step.STEPS.get(3), run, sides[run][1], 10, 12);
      r.table3Secondary(run, 1000);
      r.adaptation(run, List.of(new PcmResults.Phase("BL", WorkloadClass.BL, WorkloadClass.BL,
        5, 100), new PcmResults.Phase("YCSB-B", WorkloadClass.RM, WorkloadClass.RM, 2 + run,
        100)), Map.of(Side.PCM, sides[run][1], Side.STOCK, sides[run][0],
        Side.INCREASING_TO_UPPER_BOUND, 1000.0), 900, run == 1 ? 1 : 0);
    }
    PcmResult res = PcmResult.of(r);
    assertEquals(3, (int) res.runs());
    PcmResult.Workload bl = res.workloads().get("BL");
    assertEquals(2.0, bl.speedup(), 1e-9);
    assertEquals(3, bl.runs());
    assertEquals(1.0, bl.spread().min(), 1e-9);
    assertEquals(4.0, bl.spread().max(), 1e-9);
    assertEquals(2.0, bl.speedupVsIncreasing(), 1e-9);
    PcmResult.Step s4 = res.table3().get(1);
    assertEquals("S.4", s4.step());
    assertEquals(2.0, s4.speedup(), 1e-9);
    assertEquals(3, s4.runs());
    assertEquals(List.of(2000.0, 2000.0, 3000.0), s4.runsOpsPerS());
    assertEquals(1.0, s4.spread().min(), 1e-9);
    assertEquals(4.0, s4.spread().max(), 1e-9);
    assertEquals(2.0, s4.speedupVsIncreasing(), 1e-9);
    PcmResult.Adaptation a = res.adaptation();
    assertEquals(2.0, a.speedup(), 1e-9);
    assertEquals(3, (int) a.runs());
    assertEquals(1.0, a.spread().min(), 1e-9);
    assertEquals(4.0, a.spread().max(), 1e-9);
    assertEquals(2.0, a.speedupVsIncreasing(), 1e-9);
    // Observed, summed over the runs: one restart in run 1.
    assertEquals(1, (int) a.restarts());
    assertEquals(List.of(2.0, 3.0, 4.0), a.runsSwitchS());
  }

  @Test
  public void restartsNotObservedAreNull() {
    PcmResults r = new PcmResults(PcmScale.QUICK, 1L << 30);
    r.adaptation(List.of(new PcmResults.Phase("BL", WorkloadClass.BL, null, Double.NaN, 1)),
      1, 1, 1);
    assertNull(PcmResult.of(r).adaptation().restarts());
  }

  @Test
  public void sidesRotateAcrossRuns() {
    List<Side> sides = List.of(Side.PCM, Side.STOCK, Side.INCREASING_TO_UPPER_BOUND);
    assertEquals(sides, PcmRun.rotate(sides, 0));
    assertEquals(List.of(Side.STOCK, Side.INCREASING_TO_UPPER_BOUND, Side.PCM),
      PcmRun.rotate(sides, 1));
    assertEquals(List.of(Side.INCREASING_TO_UPPER_BOUND, Side.PCM, Side.STOCK),
      PcmRun.rotate(sides, 2));
    assertEquals(sides, PcmRun.rotate(sides, 3));
  }

  @Test
  public void aRestartIsANewStartCodeOrAServerGone() {
    ServerName a = ServerName.valueOf("rs", 16020, 1);
    ServerName b = ServerName.valueOf("rs", 16021, 1);
    ServerName c = ServerName.valueOf("rs", 16022, 1);
    assertEquals(0, PcmRun.restarts(List.of(a, b, c), List.of(c, b, a)));
    assertEquals(1, PcmRun.restarts(List.of(a, b, c), List.of(a, b,
      ServerName.valueOf("rs", 16022, 2))));
    assertEquals(1, PcmRun.restarts(List.of(a, b, c), List.of(a, b)));
  }

  @Test
  public void theBaselinesAreNamedAndOnlyTheSecondarySetsASplitPolicy() {
    assertNull(Side.STOCK.splitPolicy());
    assertEquals("org.apache.hadoop.hbase.regionserver.IncreasingToUpperBoundRegionSplitPolicy",
      Side.INCREASING_TO_UPPER_BOUND.splitPolicy());
    assertEquals(List.of(Side.STOCK, Side.INCREASING_TO_UPPER_BOUND),
      List.of(Side.BASELINES));
    assertEquals(1, PcmBench.defaultRuns(PcmScale.QUICK));
    assertEquals(3, PcmBench.defaultRuns(PcmScale.FULL));
  }

  /** The job names of the workloads and adaptation parts as repetition {@code r} builds them. */
  private static List<String> jobs(int r) throws Exception {
    PcmRun run = new PcmRun(null, PcmScale.QUICK, new AdaptationManager(PolicyLoader.load(null)),
      new PcmResults(PcmScale.QUICK, 1L << 30), null, System.out);
    run.repetition(r);
    List<PcmRun.Job> jobs = new ArrayList<>();
    run.workloads(jobs);
    run.table3(jobs);
    List<String> names = new ArrayList<>();
    for (PcmRun.Job j : jobs) {
      names.add(j.name().replaceAll(", 60000 records", "").replaceAll(", run \\d+", ""));
    }
    return names;
  }

  @Test
  public void eachRepetitionBuildsItsJobsInARotatedOrder() throws Exception {
    List<String> first = jobs(0);
    assertEquals(first.toString(), "stock", first.get(0));
    assertTrue(first.toString(), first.get(1).startsWith("PCM "));
    assertTrue(first.toString(), first.contains("increasing-to-upper-bound"));
    assertTrue(first.toString(), first.indexOf("increasing-to-upper-bound")
      > first.lastIndexOf(first.get(1)));
    assertTrue(first.toString(), first.get(first.size() - 3).contains("1 GB"));
    List<String> second = jobs(1);
    assertTrue(second.toString(), second.get(0).startsWith("PCM "));
    assertEquals(second.toString(), List.of("increasing-to-upper-bound", "stock"),
      second.subList(second.size() - 5, second.size() - 3));
    assertTrue(second.toString(), second.get(second.size() - 3).contains("4 GB"));
    List<String> third = jobs(2);
    assertEquals(third.toString(), List.of("increasing-to-upper-bound", "stock"),
      third.subList(0, 2));
    assertTrue(third.toString(), third.get(third.size() - 3).contains("6 GB"));
    // The same jobs every time, in another order.
    assertEquals(new java.util.TreeSet<>(first), new java.util.TreeSet<>(second));
    assertEquals(new java.util.TreeSet<>(first), new java.util.TreeSet<>(third));
  }

  @Test
  public void aClusterWideSplitPolicyIsRefusedBeforeAnyClusterStarts() throws Exception {
    LocalClusterConfig config = new LocalClusterConfig().hbase(PolicyKey.SPLIT_POLICY,
      Side.INCREASING_TO_UPPER_BOUND.splitPolicy());
    try {
      PcmBench.run(config, PcmScale.QUICK, Set.of("adaptation"), 1, new File("unused"), null, 0,
        System.out);
      fail("a cluster-wide split policy replaces the stock baseline's");
    } catch (IllegalArgumentException e) {
      assertTrue(e.getMessage(), e.getMessage().contains(PolicyKey.SPLIT_POLICY)
        && e.getMessage().contains("stock baseline"));
    }
  }

  @Test
  public void onlyConsecutiveJobsOfTheSameSettingsShareACluster() throws Exception {
    PcmRun.Spec small = new PcmRun.Spec(1, 0.4, 0.4);
    PcmRun.Spec big = new PcmRun.Spec(6, 0.4, 0.4);
    List<PcmRun.Job> jobs = new ArrayList<>();
    for (String[] j : new String[][] { { "stock", "1" }, { "PCM", "6" }, { "itub", "1" },
      { "adaptation", "1" } }) {
      jobs.add(new PcmRun.Job("p", j[0], j[1].equals("1") ? small : big, (h, admin) -> { }));
    }
    List<String> clusters = new ArrayList<>();
    for (Map.Entry<PcmRun.Spec, List<PcmRun.Job>> g : PcmRun.groups(jobs)) {
      StringBuilder sb = new StringBuilder(g.getKey().label() + ":");
      g.getValue().forEach(j -> sb.append(' ').append(j.name()));
      clusters.add(sb.toString());
    }
    // PCM stays between the baselines: the second 1 GB cluster is not merged into the first.
    assertEquals(List.of("1g-m0.40-c0.40: stock", "6g-m0.40-c0.40: PCM",
      "1g-m0.40-c0.40: itub adaptation"), clusters);
  }

  @Test
  public void onlyPcmsAdaptationClusterRunsTheHeapTuner() throws Exception {
    List<String> seen = new ArrayList<>();
    for (int r = 0; r < 3; r++) {
      PcmRun run = new PcmRun(null, PcmScale.QUICK,
        new AdaptationManager(PolicyLoader.load(null)), new PcmResults(PcmScale.QUICK, 1L << 30),
        null, System.out);
      run.repetition(r);
      List<PcmRun.Job> jobs = new ArrayList<>();
      run.adaptation(jobs);
      StringBuilder sb = new StringBuilder();
      for (Map.Entry<PcmRun.Spec, List<PcmRun.Job>> g : PcmRun.groups(jobs)) {
        for (PcmRun.Job j : g.getValue()) {
          // The tuner on PCM's cluster only; the baselines and the kept BL policy on stock.
          assertEquals(j.name(), j.name().startsWith("PCM"), g.getKey().heapTuner());
          sb.append(g.getKey().heapTuner() ? "[tuner] " : "[stock] ")
            .append(j.name().replaceAll(": bulk load.*", "")).append("; ");
        }
      }
      seen.add(sb.toString().trim());
    }
    assertEquals(List.of(
      "[tuner] PCM (heap tuner on); [stock] stock, increasing-to-upper-bound, BL kept;",
      "[stock] stock, increasing-to-upper-bound, BL kept; [tuner] PCM (heap tuner on);",
      "[stock] increasing-to-upper-bound; [tuner] PCM (heap tuner on); [stock] stock, BL kept;"),
      seen);
  }

  @Test
  public void theHeapTunerRangesHoldEveryPolicysScaledShares() throws Exception {
    PcmRun run = new PcmRun(null, PcmScale.QUICK, new AdaptationManager(PolicyLoader.load(null)),
      new PcmResults(PcmScale.QUICK, 1L << 30), null, System.out);
    // A 64 MiB emulated heap in a 1 GiB JVM: every share a sixteenth.
    Map<String, String> keys = run.tunerKeys(new LocalClusterConfig(),
      new org.apache.hadoop.conf.Configuration(), 64L << 20, 1L << 30);
    assertEquals("io.strata.pcm.PcmHeapTuner",
      keys.get("hbase.regionserver.heapmemory.tuner.class"));
    // Added after Strata's WAL durability guard, which the site loads.
    assertEquals("io.strata.hbase.tiering.WalDurabilityGuard,io.strata.pcm.PcmHeapRegistrar",
      keys.get("hbase.coprocessor.regionserver.classes"));
    // The policies' shares go from 0.1 to 0.6 (memstore and block cache), scaled by 1/16.
    assertEquals(0.1 / 16, Double.parseDouble(
      keys.get("hbase.regionserver.global.memstore.size.min.range")), 1e-6);
    assertEquals(0.6 / 16, Double.parseDouble(
      keys.get("hbase.regionserver.global.memstore.size.max.range")), 1e-6);
    assertEquals(0.1 / 16, Double.parseDouble(keys.get("hfile.block.cache.size.min.range")),
      1e-6);
    assertEquals(0.6 / 16, Double.parseDouble(keys.get("hfile.block.cache.size.max.range")),
      1e-6);
    // An emulated heap as large as the JVM's: 0.6 + 0.1 fits under 0.8; twice as large does not.
    run.tunerKeys(new LocalClusterConfig(), new org.apache.hadoop.conf.Configuration(), 1L << 30,
      1L << 30);
    try {
      run.tunerKeys(new LocalClusterConfig(), new org.apache.hadoop.conf.Configuration(),
        2L << 30, 1L << 30);
      fail("ranges beyond HeapMemoryManager's limit");
    } catch (IllegalStateException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("-Xmx"));
    }
  }

  @Test
  public void theHeapTunerSummaryIsOfTheServersServingPcmsTable() {
    PcmResults r = new PcmResults(PcmScale.QUICK, 1L << 30);
    assertNull(PcmResult.HeapTuner.of(r.adaptTuner));
    r.adaptationTuner(0, new PcmResults.TunerRun(WorkloadClass.RM, 0.2, 0.5, List.of(
      new PcmResult.TunerServer("a", true, 0.6, 0.2, 0.1, 0.5, 1),
      new PcmResult.TunerServer("b", false, 0.4, 0.4, 0.4, 0.4, 0))));
    r.adaptationTuner(1, new PcmResults.TunerRun(WorkloadClass.RM, 0.2, 0.5, List.of(
      new PcmResult.TunerServer("a", true, 0.4, 0.2, 0.4, 0.5, 1),
      new PcmResult.TunerServer("b", true, 0.6, 0.4, 0.1, 0.3, 2))));
    PcmResult.HeapTuner t = PcmResult.HeapTuner.of(r.adaptTuner);
    assertTrue(t.enabled());
    // Run 1: server a only (0.6 -> 0.2); run 2: the mean of a and b (0.5 -> 0.3); the median.
    assertEquals(0.55, t.memstoreBefore(), 1e-9);
    assertEquals(0.25, t.memstoreAfter(), 1e-9);
    assertEquals(0.175, t.blockCacheBefore(), 1e-9);
    assertEquals(0.45, t.blockCacheAfter(), 1e-9);
    assertEquals(4, t.steps());
    assertEquals(2, t.runs().size());
    assertEquals("RM", t.runs().get(0).switchedTo());
    assertEquals(2, t.runs().get(0).regionServers().size());
  }
}
