package io.strata.hbase.tiering;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.protocol.BlockStoragePolicy;
import org.apache.hadoop.hdfs.server.blockmanagement.BlockStoragePolicySuite;
import org.junit.Test;

/** The durability verdict on WAL storage policies: pure logic on HDFS's own policy objects. */
public class WalDurabilityTest {
  private static final StorageType NVDIMM = StorageType.NVDIMM;
  private static final StorageType SSD = StorageType.SSD;
  private static final StorageType DISK = StorageType.DISK;

  /** HDFS's built-in suite plus RAM_SSD as the overlay defines it. */
  private static List<BlockStoragePolicy> offered() {
    List<BlockStoragePolicy> all = new java.util.ArrayList<>(
      List.of(BlockStoragePolicySuite.createDefaultSuite().getAllPolicies()));
    all.add(new BlockStoragePolicy((byte) 3, "RAM_SSD", new StorageType[] { NVDIMM, SSD, SSD },
      new StorageType[] { SSD, DISK }, new StorageType[] { SSD, DISK }));
    return all;
  }

  private static WalDurability.Verdict judge(String policy, boolean ramPersistent) {
    return WalDurability.judge(policy, offered(), 3, ramPersistent);
  }

  @Test
  public void allNvdimmIsVolatileUnlessTheRamTierIsDeclaredPersistent() {
    WalDurability.Verdict v = judge("ALL_NVDIMM", false);
    assertFalse(v.describe(), v.durable());
    assertEquals(List.of(NVDIMM, NVDIMM, NVDIMM), v.replicas());
    assertEquals(0, v.nonVolatile());
    assertTrue(judge("ALL_NVDIMM", true).durable());
  }

  @Test
  public void ramSsdAndTheDiskPoliciesAreDurable() {
    WalDurability.Verdict ramSsd = judge(TieringKeys.WAL_POLICY_DEFAULT, false);
    assertTrue(ramSsd.describe(), ramSsd.durable());
    assertEquals(List.of(NVDIMM, SSD, SSD), ramSsd.replicas());
    assertEquals(2, ramSsd.nonVolatile());
    for (String p : new String[] { "ALL_SSD", "ONE_SSD", "HOT", "WARM", "COLD" }) {
      assertTrue(p, judge(p, false).durable());
    }
    // one RAM_DISK replica, the others on DISK
    assertTrue(judge("lazy_persist", false).durable());
  }

  @Test
  public void judgedAtThreeReplicasEvenWhenTheClusterKeepsFewer() {
    // RAM_SSD with replication 1 would be one NVDIMM replica: judged as a policy, at 3.
    assertTrue(WalDurability.judge("RAM_SSD", offered(), 1, false).durable());
    // a policy whose third replica is the only disk one: at 4 replicas, two are on disk
    StorageType[] twoRam = { NVDIMM, NVDIMM, DISK };
    assertFalse(WalDurability.judge("X", twoRam, 3, false).durable());
    assertTrue(WalDurability.judge("X", twoRam, 4, false).durable());
  }

  @Test
  public void aTransientLastTypeIsNotRepeated() {
    assertEquals(List.of(StorageType.RAM_DISK),
      WalDurability.replicaTypes(new StorageType[] { StorageType.RAM_DISK }, 3));
    assertFalse(WalDurability.judge("R", new StorageType[] { StorageType.RAM_DISK }, 3, false)
      .durable());
  }

  @Test
  public void unknownPolicyHasNoVerdict() {
    assertNull(WalDurability.judge("ALL_TAPE", offered(), 3, false));
  }

  @Test
  public void refusalNamesTheKeysThatAllowIt() {
    String m = WalDurability.refusal("hbase.wal.storage.policy = ALL_NVDIMM",
      judge("ALL_NVDIMM", false));
    assertTrue(m, m.contains("hbase.wal.storage.policy = ALL_NVDIMM"));
    assertTrue(m, m.contains("[NVDIMM, NVDIMM, NVDIMM], 0 of them on non-volatile storage"));
    assertTrue(m, m.contains("strata.unsafe.wal.volatile.accept=true"));
    assertTrue(m, m.contains("strata.ram.tier.persistent=true"));
    assertTrue(m, m.contains("RAM_SSD"));
  }

  @Test
  public void riskKeysAreStrictBooleans() {
    Configuration conf = new Configuration(false);
    assertFalse(TieringKeys.unsafeWalVolatileAccept(conf));
    assertFalse(TieringKeys.ramTierPersistent(conf));
    conf.set(TieringKeys.UNSAFE_WAL_VOLATILE_ACCEPT, "TRUE");
    assertTrue(TieringKeys.unsafeWalVolatileAccept(conf));
    conf.set(TieringKeys.RAM_TIER_PERSISTENT, "yes");
    try {
      TieringKeys.ramTierPersistent(conf);
      fail("'yes' was read as a boolean");
    } catch (IllegalArgumentException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("strata.ram.tier.persistent = 'yes'"));
    }
  }

  @Test
  public void theShippedSiteDefaultIsDurable() {
    Configuration conf = new Configuration(false);
    conf.addResource("strata-tiering-site.xml");
    assertEquals(TieringKeys.WAL_POLICY_DEFAULT, conf.get("hbase.wal.storage.policy"));
    assertTrue(judge(conf.get("hbase.wal.storage.policy"), false).durable());
    assertEquals(WalDurabilityGuard.class.getName(),
      conf.get("hbase.coprocessor.regionserver.classes"));
  }
}
