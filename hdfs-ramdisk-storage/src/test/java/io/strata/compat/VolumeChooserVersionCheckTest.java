package io.strata.compat;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.strata.hdfs.HdfsKeys;
import io.strata.hdfs.chooser.LatencyAwareVolumeChoosingPolicy;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.VolumeChoosingPolicy;
import org.apache.hadoop.util.ReflectionUtils;
import org.apache.hadoop.util.VersionInfo;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.log4j.AppenderSkeleton;
import org.apache.log4j.Level;
import org.apache.log4j.Logger;
import org.apache.log4j.spi.LoggingEvent;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;

/**
 * The version check where a DataNode starts the volume chooser: created the way the DataNode
 * creates it ({@code ReflectionUtils.newInstance} with its configuration), under the Hadoop on the
 * class path, then with another version forced through {@link VersionCheck}'s test seam. In
 * package io.strata.compat for that seam.
 */
public class VolumeChooserVersionCheckTest {
  /** What VersionCheck logs, with the level (the daemons log through log4j, as here). */
  private final List<LoggingEvent> logged = new CopyOnWriteArrayList<>();
  private final AppenderSkeleton appender = new AppenderSkeleton() {
    @Override
    protected void append(LoggingEvent event) {
      logged.add(event);
    }

    @Override
    public void close() {
    }

    @Override
    public boolean requiresLayout() {
      return false;
    }
  };

  @Before
  public void capture() {
    VersionCheck.setFoundForTest(VersionCheck.Product.HADOOP, null);
    Logger.getLogger(VersionCheck.class).addAppender(appender);
  }

  @After
  public void release() {
    Logger.getLogger(VersionCheck.class).removeAppender(appender);
    VersionCheck.setFoundForTest(VersionCheck.Product.HADOOP, null);
  }

  @Test
  public void startsOnTheHadoopItIsBuiltFor() {
    // The real VersionInfo of the hadoop-common jar on the class path, read through the check.
    assertEquals(SupportedVersions.HADOOP, VersionInfo.getVersion());
    assertEquals(VersionInfo.getVersion(), VersionCheck.found(VersionCheck.Product.HADOOP));
    Configuration conf = new Configuration(false);
    assertSame(conf, newChooser(conf).getConf());
    assertTrue(logged.isEmpty());
  }

  @Test
  public void refusesAnotherHadoopNamingThePluginTheVersionsAndTheKey() {
    VersionCheck.setFoundForTest(VersionCheck.Product.HADOOP, "3.4.1");
    try {
      newChooser(new Configuration(false));
      fail("the volume chooser started on Hadoop 3.4.1");
    } catch (UnsupportedVersionException e) {
      assertTrue(e.getMessage(), e.getMessage().startsWith("LatencyAwareVolumeChoosingPolicy "
        + "(DataNode volume chooser) refuses to start: found Hadoop 3.4.1, but this Strata build "
        + "supports only Hadoop 3.4.2"));
      assertTrue(e.getMessage(), e.getMessage().contains("set strata.version.check=warn"));
    }
  }

  @Test
  public void vendorBuildRefusedUnlessWarnThenStartsAndLogs() {
    VersionCheck.setFoundForTest(VersionCheck.Product.HADOOP, "3.4.2-vendor1");
    try {
      newChooser(new Configuration(false));
      fail("the volume chooser started on Hadoop 3.4.2-vendor1");
    } catch (UnsupportedVersionException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("found Hadoop 3.4.2-vendor1"));
    }
    Configuration conf = new Configuration(false);
    conf.set(HdfsKeys.VERSION_CHECK, "warn");
    assertSame(conf, newChooser(conf).getConf());
    assertEquals(1, logged.size());
    assertEquals(Level.WARN, logged.get(0).getLevel());
    String msg = logged.get(0).getRenderedMessage();
    assertTrue(msg, msg.startsWith("LatencyAwareVolumeChoosingPolicy (DataNode volume chooser) "
      + "runs on Hadoop 3.4.2-vendor1, not the supported Hadoop 3.4.2, because "
      + "strata.version.check=warn"));
  }

  @Test
  public void badKeyValueStopsTheChooserNamingTheKey() {
    Configuration conf = new Configuration(false);
    conf.set(HdfsKeys.VERSION_CHECK, "off");
    try {
      newChooser(conf);
      fail("strata.version.check=off accepted");
    } catch (IllegalArgumentException e) {
      assertTrue(e.getMessage(), e.getMessage().startsWith("strata.version.check must be strict"));
      assertTrue(e.getMessage(), e.getMessage().endsWith("not 'off'"));
    }
  }

  private static LatencyAwareVolumeChoosingPolicy<?> newChooser(Configuration conf) {
    Class<?> cls = conf.getClassByNameOrNull(HdfsKeys.LATENCY_AWARE_POLICY);
    VolumeChoosingPolicy<?> policy = (VolumeChoosingPolicy<?>) ReflectionUtils.newInstance(cls,
      conf);
    return (LatencyAwareVolumeChoosingPolicy<?>) policy;
  }
}
