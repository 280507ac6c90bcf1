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
      + "(threshold: Strata default), aged -> ONE_SSD (family STORAGE_POLICY) (age: off (Strata "
      + "default))",
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

  @Test
  public void ageThresholdIsOffByDefaultAndTakesDurations() {
    assertEquals(TieringKeys.AGE_OFF, TieringKeys.ageThresholdMs(null));
    assertEquals(TieringKeys.AGE_OFF, TieringKeys.ageThresholdMs(" OFF "));
    assertEquals(90_000L, TieringKeys.ageThresholdMs("90000"));
    assertEquals(90_000L, TieringKeys.ageThresholdMs("90s"));
    assertEquals(30L * 86_400_000L, TieringKeys.ageThresholdMs("30d"));
    assertEquals(2L * 3_600_000L, TieringKeys.ageThresholdMs("2h"));
    assertEquals(15L * 60_000L, TieringKeys.ageThresholdMs("15m"));
    assertEquals(500L, TieringKeys.ageThresholdMs("500ms"));
    for (String bad : new String[] { "0", "-5d", "soon", "3w", "99999999999999999d" }) {
      try {
        TieringKeys.ageThresholdMs(bad);
        throw new AssertionError(bad + " accepted");
      } catch (IllegalArgumentException e) {
        assertTrue(e.getMessage(), e.getMessage().startsWith("strata.age.threshold = '" + bad));
      }
    }
    TierPolicies p = TierPolicies.from(new Configuration(false));
    assertEquals(TieringKeys.AGE_OFF, p.ageThresholdMs());
    assertEquals(null, p.aged(Long.MAX_VALUE));
  }

  @Test
  public void agedFilesGetTheAgePolicyFromTheThreshold() {
    ColumnFamilyDescriptor cfd = family().setConfiguration(TieringKeys.AGE_THRESHOLD, "1d").build();
    TableDescriptor td = table().setColumnFamily(cfd).build();
    TierPolicies p = TierPolicies.resolve(new Configuration(false), td, cfd);
    assertEquals(86_400_000L, p.ageThresholdMs());
    assertEquals(null, p.aged(86_399_999L));
    assertEquals(null, p.aged(-5)); // a cell from the future
    TierPolicies.Choice c = p.aged(86_400_000L);
    assertEquals("COLD", c.policy());
    assertTrue(c.rule(), c.rule().startsWith("age: newest cell 86400000 ms old >= family "
      + "strata.age.threshold = 1d"));
    assertTrue(p.problems(OFFERED).isEmpty());
  }

  @Test
  public void badAgeThresholdIsAProblemAndTurnsTheRuleOff() {
    Configuration c = new Configuration(false);
    c.set(TieringKeys.AGE_THRESHOLD, "soon");
    TierPolicies p = TierPolicies.from(c);
    assertEquals(TieringKeys.AGE_OFF, p.ageThresholdMs());
    assertEquals(1, p.problems(null).size());
    assertTrue(p.problems(null).get(0), p.problems(null).get(0).contains("(site)"));
  }

  @Test
  public void siteAgeThresholdYieldsToTheFamilysStoragePolicy() {
    Configuration site = new Configuration(false);
    site.set(TieringKeys.AGE_THRESHOLD, "7d");
    ColumnFamilyDescriptor cfd = family().setStoragePolicy("ONE_SSD").build();
    TableDescriptor td = table().setColumnFamily(cfd).build();
    TierPolicies p = TierPolicies.resolve(site, td, cfd);
    assertEquals(TieringKeys.AGE_OFF, p.ageThresholdMs());
    assertTrue(p.ageRule(), p.ageRule().startsWith("off: family STORAGE_POLICY (ONE_SSD) wins"));
    assertTrue(p.problems(OFFERED).isEmpty());
  }

  @Test
  public void familyAgeThresholdUnderAFamilyStoragePolicyIsRefused() {
    ColumnFamilyDescriptor cfd = family().setStoragePolicy("ONE_SSD")
      .setConfiguration(TieringKeys.AGE_THRESHOLD, "7d").build();
    TableDescriptor td = table().setColumnFamily(cfd).build();
    List<String> problems = TierPolicies.resolve(new Configuration(false), td, cfd)
      .problems(OFFERED);
    assertEquals(problems.toString(), 1, problems.size());
    assertTrue(problems.get(0), problems.get(0).contains("family strata.age.threshold = 7d"));
    assertTrue(problems.get(0), problems.get(0).contains("family STORAGE_POLICY = ONE_SSD"));
    // with the age policy on the family too, the family's Strata key wins, as for every kind
    ColumnFamilyDescriptor both = family().setStoragePolicy("ONE_SSD")
      .setConfiguration(TieringKeys.AGE_THRESHOLD, "7d")
      .setConfiguration(TieringKeys.AGE_POLICY, "COLD").build();
    TierPolicies p = TierPolicies.resolve(new Configuration(false),
      table().setColumnFamily(both).build(), both);
    assertTrue(p.problems(OFFERED).isEmpty());
    assertEquals("COLD", p.aged(8L * 86_400_000L).policy());
  }

  @Test
  public void ageThresholdShorterThanTheDateTieredWarmWindowIsRefused() {
    String engine = TieredDateTieredStoreEngine.class.getName();
    ColumnFamilyDescriptor cfd = family()
      .setConfiguration(StoreEngines.KEY, engine)
      .setConfiguration("hbase.hstore.compaction.date.tiered.storage.policy.enable", "true")
      .setConfiguration("hbase.hstore.compaction.date.tiered.warm.window.age.millis", "604800000")
      .setConfiguration("hbase.hstore.compaction.date.tiered.cold.window.storage.policy", "COLD")
      .setConfiguration(TieringKeys.AGE_THRESHOLD, "1d").build();
    TableDescriptor td = table().setColumnFamily(cfd).build();
    TierPolicies p = TierPolicies.resolve(new Configuration(false), td, cfd);
    List<String> problems = p.problems(OFFERED);
    assertEquals(problems.toString(), 1, problems.size());
    assertTrue(problems.get(0), problems.get(0).contains(
      "hbase.hstore.compaction.date.tiered.warm.window.age.millis = 604800000 ms"));
    assertEquals(TieringKeys.AGE_OFF, p.ageThresholdMs());
    // the window policies as upstream chooses them
    assertEquals("ALL_SSD", p.dateTieredWindow(1000).policy());
    assertEquals("ONE_SSD", p.dateTieredWindow(2L * 86_400_000L).policy());
    assertEquals("COLD", p.dateTieredWindow(8L * 86_400_000L).policy());

    // a threshold past the warm window, onto a cold policy other than the cold window's
    ColumnFamilyDescriptor other = family()
      .setConfiguration(StoreEngines.KEY, engine)
      .setConfiguration("hbase.hstore.compaction.date.tiered.storage.policy.enable", "true")
      .setConfiguration(TieringKeys.AGE_THRESHOLD, "8d").build();
    problems = TierPolicies.resolve(new Configuration(false),
      table().setColumnFamily(other).build(), other).problems(OFFERED);
    assertEquals(problems.toString(), 1, problems.size());
    assertTrue(problems.get(0), problems.get(0).contains("strata.age.storage.policy = COLD"));
    assertTrue(problems.get(0), problems.get(0).contains(
      "hbase.hstore.compaction.date.tiered.cold.window.storage.policy = HOT"));
  }

  @Test
  public void siteAgeThresholdLeavesSystemTablesAlone() {
    Configuration site = new Configuration(false);
    site.set(TieringKeys.AGE_THRESHOLD, "30d");
    ColumnFamilyDescriptor info = ColumnFamilyDescriptorBuilder.of("info");
    for (String t : new String[] { "hbase:meta", "master:store" }) {
      TierPolicies p = TierPolicies.resolve(site,
        TableDescriptorBuilder.newBuilder(TableName.valueOf(t)).setColumnFamily(info).build(),
        info);
      assertEquals(t, TieringKeys.AGE_OFF, p.ageThresholdMs());
      assertTrue(p.ageRule(), p.ageRule().contains("is a system table"));
    }
    ColumnFamilyDescriptor f = family().build();
    assertEquals(30L * 86_400_000L, TierPolicies.resolve(site, table().setColumnFamily(f).build(),
      f).ageThresholdMs());
    // set on the system table itself, it applies
    ColumnFamilyDescriptor own = ColumnFamilyDescriptorBuilder.newBuilder(Bytes.toBytes("info"))
      .setConfiguration(TieringKeys.AGE_THRESHOLD, "300d").build();
    assertEquals(300L * 86_400_000L, TierPolicies.resolve(site, TableDescriptorBuilder
      .newBuilder(TableName.valueOf("hbase:meta")).setColumnFamily(own).build(), own)
      .ageThresholdMs());
  }
}
