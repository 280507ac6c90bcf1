package io.strata.hdfs.overlay;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.nio.file.Files;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.BlockStoragePolicy;
import org.apache.hadoop.hdfs.server.blockmanagement.BlockStoragePolicySuite;
import org.apache.hadoop.test.GenericTestUtils;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;

/** The patched suite's answer for an id nothing defines, and the comparison with the last start. */
public class UndefinedStoragePoliciesTest {

  private GenericTestUtils.LogCapturer log;

  @Before
  public void capture() {
    UndefinedStoragePolicies.reset();
    log = GenericTestUtils.LogCapturer.captureLogs(
      org.slf4j.LoggerFactory.getLogger(UndefinedStoragePolicies.class));
  }

  @After
  public void release() {
    log.stopCapturing();
    UndefinedStoragePolicies.reset();
  }

  @Test
  public void theNameNodesSuiteResolvesAnUndefinedIdToItsDefaultPolicyAndSaysSoOnce() {
    BlockStoragePolicySuite suite = BlockStoragePolicySuite.createDefaultSuite(
      new Configuration(false));
    BlockStoragePolicy p = suite.getPolicy((byte) 3);
    assertSame(suite.getDefaultPolicy(), p);
    assertEquals("HOT", p.getName());
    for (int i = 0; i < 100; i++) {
      suite.getPolicy((byte) 3);
    }
    suite.getPolicy((byte) 4);
    String out = log.getOutput();
    assertTrue(out, out.contains("Storage policy id 3 is not defined on this NameNode"));
    assertTrue(out, out.contains("Storage policy id 4 is not defined on this NameNode"));
    assertEquals(out, 2, out.split("is not defined on this NameNode", -1).length - 1);
  }

  @Test
  public void theDefaultPolicyFollowsTheConfiguredDefault() {
    Configuration conf = new Configuration(false);
    conf.set(DFSConfigKeys.DFS_STORAGE_DEFAULT_POLICY, "ONE_SSD");
    assertEquals("ONE_SSD", BlockStoragePolicySuite.createDefaultSuite(conf)
      .getPolicy((byte) 3).getName());
  }

  @Test
  public void aSuiteWithoutConfigurationKeepsUpstreamsNull() {
    assertNull(BlockStoragePolicySuite.createDefaultSuite().getPolicy((byte) 3));
    assertFalse(log.getOutput(), log.getOutput().contains("is not defined"));
  }

  @Test
  public void aStartComparesItsPoliciesWithThePreviousStart() throws Exception {
    File nameDir = new File("target/test-dfs/record-" + System.nanoTime()).getAbsoluteFile();
    Files.createDirectories(new File(nameDir, "current").toPath());
    Files.write(new File(nameDir, "current/VERSION").toPath(), new byte[0]);
    Configuration conf = ConfiguredStoragePoliciesTest.ramSsd();
    conf.set(DFSConfigKeys.DFS_NAMENODE_NAME_DIR_KEY, nameDir.toURI().toString());

    BlockStoragePolicySuite.createDefaultSuite(conf);
    File record = new File(nameDir, UndefinedStoragePolicies.RECORD_FILE);
    assertTrue(record.isFile());
    assertTrue(new String(Files.readAllBytes(record.toPath()), "UTF-8")
      .contains("3=RAM_SSD [NVDIMM, SSD]"));

    conf.set("strata.storage.policy.RAM_SSD.storage-types", "SSD,SSD");
    BlockStoragePolicySuite.createDefaultSuite(conf);
    assertTrue(log.getOutput(), log.getOutput().contains("Storage policy id 3 was RAM_SSD "
      + "[NVDIMM, SSD] at the previous start of this NameNode and is RAM_SSD [SSD] now"));

    conf.unset(OverlayKeys.STORAGE_POLICIES);
    BlockStoragePolicySuite suite = BlockStoragePolicySuite.createDefaultSuite(conf);
    assertTrue(log.getOutput(), log.getOutput().contains("Storage policy id 3 (RAM_SSD [SSD]) "
      + "was defined at the previous start of this NameNode and is not now"));
    suite.getPolicy((byte) 3);
    assertTrue(log.getOutput(), log.getOutput().contains("Storage policy id 3 (RAM_SSD [SSD] at "
      + "the previous start) is not defined on this NameNode"));
  }

  @Test
  public void withoutAFormattedNameDirectoryNothingIsRecorded() {
    File nameDir = new File("target/test-dfs/unformatted-" + System.nanoTime()).getAbsoluteFile();
    Configuration conf = ConfiguredStoragePoliciesTest.ramSsd();
    conf.set(DFSConfigKeys.DFS_NAMENODE_NAME_DIR_KEY, nameDir.toURI().toString());
    BlockStoragePolicySuite.createDefaultSuite(conf);
    assertFalse(new File(nameDir, UndefinedStoragePolicies.RECORD_FILE).exists());
  }
}
