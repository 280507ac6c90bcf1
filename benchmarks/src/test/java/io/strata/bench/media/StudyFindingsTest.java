package io.strata.bench.media;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.Test;

/**
 * The storage-media paper's findings checked against given case figures.
 *
 * <p>The storage-media paper: <i>Optimize Hadoop Cluster Performance with Various Storage Media</i>.
 */
public class StudyFindingsTest {

  private static CaseResult result(String name, double ops, double latencyUs) {
    return new CaseResult(MediaCases.byName(name).orElseThrow(), 1000, 1000, ops, latencyUs,
      latencyUs * 10, 0, 10, 20, Map.of(), null, null, Map.of());
  }

  private static StudyFindings.Finding finding(List<StudyFindings.Finding> all, String prefix) {
    return all.stream().filter(f -> f.claim().startsWith(prefix)).findFirst().orElseThrow();
  }

  @Test
  public void studyLikeFiguresHoldAndReversedOnesDiffer() {
    List<CaseResult> r = new ArrayList<>(List.of(
      result("50G_RAM", 163, 11), result("50G_SSD", 128, 32), result("50G_HDD", 100, 100),
      result("1T_HDD", 100, 100), result("1T_SSD", 134, 35), result("1T_RAM_SSD", 146, 23),
      result("1T_RAM_HDD", 89, 120)));
    List<StudyFindings.Finding> f = new StudyFindings(r).check();
    assertEquals(StudyFindings.Verdict.HOLDS, finding(f, "50G: RAM and SSD beat").verdict());
    assertEquals(StudyFindings.Verdict.HOLDS, finding(f, "50G: RAM and SSD cut").verdict());
    assertEquals(StudyFindings.Verdict.HOLDS, finding(f, "1T_SSD beats").verdict());
    assertEquals(StudyFindings.Verdict.HOLDS, finding(f, "1T_RAM_SSD is the best").verdict());
    assertEquals(StudyFindings.Verdict.HOLDS, finding(f, "1T_RAM_HDD is worse").verdict());
    assertEquals(StudyFindings.Verdict.NOT_RUN, finding(f, "Mixing SSD and HDD").verdict());
    assertTrue(finding(f, "1T_RAM_HDD is worse").strata().contains("89 %"));

    r.set(6, result("1T_RAM_HDD", 300, 30));
    f = new StudyFindings(r).check();
    assertEquals(StudyFindings.Verdict.DIFFERS, finding(f, "1T_RAM_HDD is worse").verdict());
    assertEquals("another 1T case beats it", StudyFindings.Verdict.DIFFERS,
      finding(f, "1T_RAM_SSD is the best").verdict());
  }

  @Test
  public void failedCasesCountAsNotRun() {
    List<CaseResult> r = List.of(result("1T_HDD", 100, 100),
      CaseResult.failed(MediaCases.byName("1T_SSD").orElseThrow(), 5, "timeout"));
    assertEquals(StudyFindings.Verdict.NOT_RUN,
      finding(new StudyFindings(r).check(), "1T_SSD beats").verdict());
  }
}
