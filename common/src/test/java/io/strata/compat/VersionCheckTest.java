package io.strata.compat;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.strata.compat.VersionCheck.Mode;
import org.junit.Test;

/** The comparison and the key's parsing, without Hadoop or HBase. */
public class VersionCheckTest {
  @Test
  public void supportedVersionsAreTheBuildsOwn() {
    // Filled in from the parent pom: a release, never the unfiltered placeholder.
    assertEquals("3.4.2", SupportedVersions.HADOOP);
    assertEquals("2.6.4-hadoop3", SupportedVersions.HBASE);
    assertEquals(SupportedVersions.HADOOP, VersionCheck.Product.HADOOP.supported());
    assertEquals(SupportedVersions.HBASE, VersionCheck.Product.HBASE.supported());
  }

  @Test
  public void exactMatchPasses() {
    assertNull(VersionCheck.compare("Chooser", Mode.STRICT, "Hadoop", "3.4.2", "3.4.2"));
    assertNull(VersionCheck.compare("Chooser", Mode.WARN, "Hadoop", "3.4.2", "3.4.2"));
    assertNull(VersionCheck.compare("Engine", Mode.STRICT, "HBase", "2.6.4-hadoop3",
      "2.6.4-hadoop3"));
  }

  @Test
  public void otherReleaseRefusedWhenStrict() {
    String msg = refusal("LatencyAwareVolumeChoosingPolicy", "Hadoop", "3.4.1", "3.4.2");
    assertTrue(msg, msg.startsWith("LatencyAwareVolumeChoosingPolicy refuses to start"));
    assertTrue(msg, msg.contains("found Hadoop 3.4.1"));
    assertTrue(msg, msg.contains("supports only Hadoop 3.4.2"));
    assertTrue(msg, msg.contains("strata.version.check=warn"));
    refusal("P", "Hadoop", "3.4.0", "3.4.2");
    refusal("P", "Hadoop", "3.4.3", "3.4.2");
    // HBase: the plain build and the next patch release are not the hadoop3 2.6.4 build.
    refusal("P", "HBase", "2.6.4", "2.6.4-hadoop3");
    refusal("P", "HBase", "2.6.5-hadoop3", "2.6.4-hadoop3");
  }

  @Test
  public void vendorSuffixRefusedUnlessWarn() {
    String msg = refusal("TierMover", "Hadoop", "3.4.2-foo", "3.4.2");
    assertTrue(msg, msg.contains("found Hadoop 3.4.2-foo"));
    String warning = VersionCheck.compare("TierMover", Mode.WARN, "Hadoop", "3.4.2-foo",
      "3.4.2");
    assertNotNull(warning);
    assertTrue(warning, warning.startsWith("TierMover runs on Hadoop 3.4.2-foo, not the "
      + "supported Hadoop 3.4.2, because strata.version.check=warn"));
  }

  @Test
  public void warnModePassesWithAWarning() {
    String warning = VersionCheck.compare("HybridRpcServer", Mode.WARN, "HBase", "2.6.5",
      "2.6.4-hadoop3");
    assertTrue(warning, warning.contains("HBase 2.6.5"));
    assertTrue(warning, warning.contains("untested"));
  }

  @Test
  public void keyValues() {
    assertEquals(Mode.STRICT, VersionCheck.mode(null));
    assertEquals(Mode.STRICT, VersionCheck.mode(""));
    assertEquals(Mode.STRICT, VersionCheck.mode("strict"));
    assertEquals(Mode.WARN, VersionCheck.mode(" WARN "));
    assertEquals(VersionCheck.KEY_DEFAULT, Mode.STRICT.value());
    for (String bad : new String[] {"off", "false", "warning", "0"}) {
      try {
        VersionCheck.mode(bad);
        fail(bad + " accepted");
      } catch (IllegalArgumentException e) {
        assertTrue(e.getMessage(), e.getMessage().startsWith("strata.version.check must be "
          + "strict"));
        assertTrue(e.getMessage(), e.getMessage().endsWith("not '" + bad + "'"));
      }
    }
  }

  @Test
  public void unreadableVersionRefused() {
    // common's own tests have no Hadoop on the class path: the version cannot be read.
    VersionCheck.setFoundForTest(VersionCheck.Product.HADOOP, null);
    try {
      VersionCheck.hadoopPlugin("P", Mode.STRICT);
      fail("started without a readable Hadoop version");
    } catch (UnsupportedVersionException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("found Hadoop unknown "
        + "(org.apache.hadoop.util.VersionInfo.getVersion() not readable"));
    }
    VersionCheck.hadoopPlugin("P", Mode.WARN);
  }

  private static String refusal(String plugin, String product, String found, String supported) {
    try {
      VersionCheck.compare(plugin, Mode.STRICT, product, found, supported);
    } catch (UnsupportedVersionException e) {
      return e.getMessage();
    }
    throw new AssertionError(product + " " + found + " accepted where " + supported
      + " is supported");
  }
}
