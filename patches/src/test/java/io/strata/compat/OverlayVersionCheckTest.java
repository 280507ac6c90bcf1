package io.strata.compat;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.strata.hdfs.overlay.OverlayKeys;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.server.blockmanagement.BlockStoragePolicySuite;
import org.apache.hadoop.util.VersionInfo;
import org.junit.After;
import org.junit.Test;

/**
 * The version check of the overlay, where the NameNode builds its storage policy suite with its
 * configuration (the patched {@code BlockStoragePolicySuite.createDefaultSuite}): under the Hadoop
 * on the class path, then with another version forced through {@link VersionCheck}'s test seam.
 * In package io.strata.compat for that seam.
 */
public class OverlayVersionCheckTest {
  @After
  public void realVersion() {
    VersionCheck.setFoundForTest(VersionCheck.Product.HADOOP, null);
  }

  @Test
  public void theNameNodesSuiteIsBuiltOnTheHadoopTheOverlayIsPatchedFrom() {
    assertEquals(SupportedVersions.HADOOP, VersionInfo.getVersion());
    assertNotNull(BlockStoragePolicySuite.createDefaultSuite(new Configuration(false))
      .getPolicy("HOT"));
  }

  @Test
  public void anotherHadoopStopsTheNameNodeNamingTheOverlayTheVersionsAndTheKey() {
    VersionCheck.setFoundForTest(VersionCheck.Product.HADOOP, "3.4.1");
    try {
      BlockStoragePolicySuite.createDefaultSuite(new Configuration(false));
      fail("the overlay's policy suite was built on Hadoop 3.4.1");
    } catch (UnsupportedVersionException e) {
      assertTrue(e.getMessage(), e.getMessage().startsWith("Strata HDFS overlay (NameNode "
        + "storage policies) refuses to start: found Hadoop 3.4.1, but this Strata build supports "
        + "only Hadoop 3.4.2"));
      assertTrue(e.getMessage(), e.getMessage().contains("set strata.version.check=warn"));
    }
    Configuration warn = new Configuration(false);
    warn.set(OverlayKeys.VERSION_CHECK, "warn");
    assertNotNull(BlockStoragePolicySuite.createDefaultSuite(warn).getPolicy("HOT"));
    // Suites built without a configuration (clients, the external satisfier) are not checked.
    assertNotNull(BlockStoragePolicySuite.createDefaultSuite().getPolicy("HOT"));
  }
}
