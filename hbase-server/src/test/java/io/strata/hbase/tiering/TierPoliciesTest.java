package io.strata.hbase.tiering;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.List;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.junit.Test;

public class TierPoliciesTest {
  private static final Set<String> OFFERED =
    Set.of("HOT", "COLD", "WARM", "ALL_SSD", "ONE_SSD", "ALL_NVDIMM", "LAZY_PERSIST", "PROVIDED");

  @Test
  public void defaultsFollowTheStorageMediaStudy() {
    TierPolicies p = TierPolicies.from(new Configuration(false));
    assertEquals("ALL_SSD", p.flush());
    assertEquals("ALL_SSD", p.forCompaction(100L << 20));
    assertEquals("HOT", p.forCompaction(1536L << 20));
    assertEquals("COLD", p.archive());
    assertEquals("HOT", p.oldWal());
    assertTrue(p.problems(OFFERED).isEmpty());
  }

  @Test
  public void unknownCompactionSizeCountsAsLarge() {
    assertEquals("HOT", TierPolicies.from(new Configuration(false)).forCompaction(-1));
  }

  @Test
  public void thresholdAcceptsSizeSuffixesAndNamesAreCaseInsensitive() {
    Configuration c = new Configuration(false);
    c.set(TieringKeys.COMPACTION_THRESHOLD, "64m");
    c.set(TieringKeys.COMPACTION_LARGE_POLICY, " cold ");
    TierPolicies p = TierPolicies.from(c);
    assertEquals(64L << 20, p.compactionThreshold());
    assertEquals("ALL_SSD", p.forCompaction((64L << 20) - 1));
    assertEquals("COLD", p.forCompaction(64L << 20));
  }

  @Test
  public void unknownPoliciesAreNamedWithTheirKeyAndTheValidOnes() {
    Configuration c = new Configuration(false);
    c.set(TieringKeys.FLUSH_POLICY, "ALL_RAM");
    List<String> problems = TierPolicies.from(c).problems(OFFERED);
    assertEquals(1, problems.size());
    assertTrue(problems.get(0), problems.get(0).startsWith("strata.flush.storage.policy = 'ALL_RAM'"));
    assertTrue(problems.get(0), problems.get(0).contains("ALL_NVDIMM, ALL_SSD, COLD"));
  }

  @Test(expected = IllegalArgumentException.class)
  public void badThresholdIsRejected() {
    Configuration c = new Configuration(false);
    c.set(TieringKeys.COMPACTION_THRESHOLD, "large");
    TierPolicies.from(c);
  }
}
