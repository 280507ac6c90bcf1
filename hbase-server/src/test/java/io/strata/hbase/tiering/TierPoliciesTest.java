package io.strata.hbase.tiering;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.List;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.regionserver.HStore;
import org.apache.hadoop.hbase.regionserver.StoreUtils;
import org.apache.hadoop.hbase.util.Bytes;
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

  @Test
  public void badThresholdFallsBackToTheDefaultAndIsAProblem() {
    Configuration c = new Configuration(false);
    c.set(TieringKeys.COMPACTION_THRESHOLD, "large");
    TierPolicies p = TierPolicies.from(c);
    assertEquals(TieringKeys.COMPACTION_THRESHOLD_DEFAULT, p.compactionThreshold());
    assertEquals(List.of("strata.compaction.size.threshold = 'large' (site) is not a size in bytes "
      + "(e.g. 1610612736 or 1536m)"), p.problems(OFFERED));
    // also where storage policies cannot be known
    assertEquals(1, p.problems(null).size());
  }

  private static ColumnFamilyDescriptorBuilder family() {
    return ColumnFamilyDescriptorBuilder.newBuilder(Bytes.toBytes("f"));
  }

  private static TableDescriptorBuilder table() {
    return TableDescriptorBuilder.newBuilder(TableName.valueOf("t"));
  }

  private static TierPolicies.Choice flush(Configuration site, TableDescriptorBuilder t,
    ColumnFamilyDescriptorBuilder f) {
    ColumnFamilyDescriptor cfd = f.build();
    TableDescriptor td = TableDescriptorBuilder.newBuilder(t.build()).setColumnFamily(cfd).build();
    return TierPolicies.resolve(StoreUtils.createStoreConfiguration(site, td, cfd), td, cfd)
      .choice(TierPolicies.Kind.FLUSHED);
  }

  private static void assertChoice(String policy, String rule, boolean upstream,
    TierPolicies.Choice c) {
    assertEquals(policy, c.policy());
    assertEquals(rule, c.rule());
    assertEquals(upstream, c.upstream());
  }

  @Test
  public void precedenceFamilyTableUpstreamSiteDefault() {
    Configuration site = new Configuration(false);
    assertChoice("ALL_SSD", "Strata default", false, flush(site, table(), family()));

    site.set(HStore.BLOCK_STORAGE_POLICY_KEY, "WARM");
    assertChoice("WARM", "site hbase.hstore.block.storage.policy", true,
      flush(site, table(), family()));

    site.set(TieringKeys.FLUSH_POLICY, "hot");
    assertChoice("HOT", "site strata.flush.storage.policy", false,
      flush(site, table(), family()));

    TableDescriptorBuilder t = table().setValue(HStore.BLOCK_STORAGE_POLICY_KEY, "cold");
    assertChoice("COLD", "table hbase.hstore.block.storage.policy", true,
      flush(site, t, family()));

    ColumnFamilyDescriptorBuilder f = family().setValue(HStore.BLOCK_STORAGE_POLICY_KEY, "ALL_SSD");
    assertChoice("ALL_SSD", "family hbase.hstore.block.storage.policy", true,
      flush(site, t, f));
    f.setStoragePolicy("ONE_SSD");
    assertChoice("ONE_SSD", "family STORAGE_POLICY", true, flush(site, t, f));

    t.setValue(TieringKeys.FLUSH_POLICY, "ALL_NVDIMM");
    assertChoice("ALL_NVDIMM", "table strata.flush.storage.policy", false, flush(site, t, f));

    f.setConfiguration(TieringKeys.FLUSH_POLICY, "COLD");
    assertChoice("COLD", "family strata.flush.storage.policy", false, flush(site, t, f));
  }

  @Test
  public void upstreamNoneCountsAsNotSet() {
    Configuration site = new Configuration(false);
    site.set(HStore.BLOCK_STORAGE_POLICY_KEY, "NONE");
    assertChoice("ALL_SSD", "Strata default", false,
      flush(site, table(), family().setStoragePolicy("none")));
  }

  @Test
  public void upstreamFamilyPolicyCoversFlushesAndCompactionsButNotArchives() {
    ColumnFamilyDescriptor cfd = family().setStoragePolicy("ONE_SSD").build();
    TableDescriptor td = table().setColumnFamily(cfd).build();
    TierPolicies p = TierPolicies.resolve(new Configuration(false), td, cfd);
    assertEquals("ONE_SSD", p.flush());
    assertTrue(p.compaction(1).upstream());
    assertEquals("ONE_SSD", p.forCompaction(1));
    assertEquals("ONE_SSD", p.forCompaction(-1));
    assertChoice("COLD", "Strata default", false, p.choice(TierPolicies.Kind.ARCHIVED));
    assertEquals("HOT", p.oldWal());
    assertEquals("flushed -> ONE_SSD (family STORAGE_POLICY), compacted < 1610612736 bytes -> "
      + "ONE_SSD (family STORAGE_POLICY), compacted >= 1610612736 bytes -> ONE_SSD (family "
      + "STORAGE_POLICY), archived -> COLD (Strata default), bulkloaded -> HOT (Strata default) "
      + "(threshold: Strata default)",
      p.describe());
    // an upstream policy is HBase's to check, not Strata's
    ColumnFamilyDescriptor odd = family().setStoragePolicy("ALL_TAPE").build();
    assertTrue(TierPolicies.resolve(new Configuration(false), table().setColumnFamily(odd).build(),
      odd).problems(OFFERED).isEmpty());
  }

  @Test
  public void familyThresholdWinsAndABadOneNamesItsLevel() {
    ColumnFamilyDescriptor cfd = family()
      .setConfiguration(TieringKeys.COMPACTION_THRESHOLD, "1g").build();
    TableDescriptor td = table().setValue(TieringKeys.COMPACTION_THRESHOLD, "nope")
      .setColumnFamily(cfd).build();
    assertEquals(1L << 30,
      TierPolicies.resolve(new Configuration(false), td, cfd).compactionThreshold());
    ColumnFamilyDescriptor plain = family().build();
    TableDescriptor td2 = table().setValue(TieringKeys.COMPACTION_THRESHOLD, "nope")
      .setColumnFamily(plain).build();
    TierPolicies p = TierPolicies.resolve(new Configuration(false), td2, plain);
    assertEquals(TieringKeys.COMPACTION_THRESHOLD_DEFAULT, p.compactionThreshold());
    assertTrue(p.thresholdProblem(), p.thresholdProblem().contains("'nope' (table)"));
  }
}
