package io.strata.hdfs.overlay;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.File;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.protocol.BlockStoragePolicy;
import org.apache.hadoop.hdfs.server.blockmanagement.BlockStoragePolicySuite;
import org.junit.Test;

/** The patched suite factory: configured policies added, invalid ones refused with the key. */
public class ConfiguredStoragePoliciesTest {

  static Configuration ramSsd() {
    Configuration conf = new Configuration(false);
    conf.set(OverlayKeys.STORAGE_POLICIES, "RAM_SSD");
    conf.set("strata.storage.policy.RAM_SSD.id", "3");
    conf.set("strata.storage.policy.RAM_SSD.storage-types", "NVDIMM,SSD,SSD");
    conf.set("strata.storage.policy.RAM_SSD.creation-fallbacks", "SSD,DISK");
    conf.set("strata.storage.policy.RAM_SSD.replication-fallbacks", "SSD,DISK");
    return conf;
  }

  @Test
  public void theSuiteClassComesFromTheOverlay() {
    File from = new File(BlockStoragePolicySuite.class.getProtectionDomain().getCodeSource()
      .getLocation().getPath());
    // target/classes here, the strata-hdfs-overlay jar elsewhere; never hadoop-hdfs-3.4.2.jar
    assertTrue(from.toString(), !from.getName().startsWith("hadoop-hdfs"));
  }

  @Test
  public void addsAConfiguredPolicy() {
    BlockStoragePolicySuite suite = BlockStoragePolicySuite.createDefaultSuite(ramSsd());
    BlockStoragePolicy p = suite.getPolicy("RAM_SSD");
    assertNotNull(p);
    assertEquals(3, p.getId());
    assertEquals(java.util.List.of(StorageType.NVDIMM, StorageType.SSD, StorageType.SSD),
      p.chooseStorageTypes((short) 3));
    assertArrayEquals(new StorageType[] { StorageType.SSD, StorageType.DISK },
      p.getCreationFallbacks());
    // the built-in ones are untouched
    assertEquals(12, suite.getPolicy("ALL_SSD").getId());
    assertEquals(9, suite.getAllPolicies().length);
  }

  @Test
  public void withoutConfigurationTheSuiteIsUpstreams() {
    assertEquals(8, BlockStoragePolicySuite.createDefaultSuite().getAllPolicies().length);
    assertEquals(8, BlockStoragePolicySuite.createDefaultSuite(new Configuration(false))
      .getAllPolicies().length);
  }

  private static void assertRefused(Configuration conf, String... fragments) {
    try {
      BlockStoragePolicySuite.createDefaultSuite(conf);
      fail("accepted");
    } catch (IllegalArgumentException e) {
      for (String f : fragments) {
        assertTrue(e.getMessage(), e.getMessage().contains(f));
      }
    }
  }

  @Test
  public void refusesABadStorageType() {
    Configuration conf = ramSsd();
    conf.set("strata.storage.policy.RAM_SSD.storage-types", "NVDIMM,FLASH");
    assertRefused(conf, "strata.storage.policy.RAM_SSD.storage-types", "'FLASH'", "NVDIMM");
  }

  @Test
  public void refusesAUsedId() {
    Configuration conf = ramSsd();
    conf.set("strata.storage.policy.RAM_SSD.id", "12");
    assertRefused(conf, "strata.storage.policy.RAM_SSD.id", "ALL_SSD", "free ids: [3, 4, 6, 8, 9, "
      + "11, 13]");
    conf.set("strata.storage.policy.RAM_SSD.id", "16");
    assertRefused(conf, "outside 1..15");
    conf.set("strata.storage.policy.RAM_SSD.id", "three");
    assertRefused(conf, "not a number");
  }

  @Test
  public void refusesADuplicateName() {
    Configuration conf = ramSsd();
    conf.set(OverlayKeys.STORAGE_POLICIES, "RAM_SSD,ram_ssd");
    conf.set("strata.storage.policy.ram_ssd.id", "4");
    conf.set("strata.storage.policy.ram_ssd.storage-types", "SSD");
    assertRefused(conf, "ram_ssd is taken by another configured policy (id 3)");
    conf.set(OverlayKeys.STORAGE_POLICIES, "hot");
    assertRefused(conf, "hot is taken by a built-in policy (id 7)");
  }

  @Test
  public void refusesAMissingDefinition() {
    Configuration conf = new Configuration(false);
    conf.set(OverlayKeys.STORAGE_POLICIES, "FAST");
    assertRefused(conf, "strata.storage.policy.FAST.id", "missing");
    conf.set("strata.storage.policy.FAST.id", "4");
    assertRefused(conf, "strata.storage.policy.FAST.storage-types", "missing");
  }
}
