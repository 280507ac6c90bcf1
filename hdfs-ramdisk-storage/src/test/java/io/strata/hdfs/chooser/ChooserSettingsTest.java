package io.strata.hdfs.chooser;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.strata.hdfs.HdfsKeys;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.VolumeChoosingPolicy;
import org.apache.hadoop.util.ReflectionUtils;
import org.junit.Test;

public class ChooserSettingsTest {

  @Test
  public void defaults() {
    ChooserSettings s = ChooserSettings.from(new Configuration(false));
    assertEquals(1000, s.probeIntervalMs());
    assertEquals(4096, s.probeBytes());
    assertEquals(5.0, s.slowRatio(), 0);
    assertEquals(10.0, s.slowMinMs(), 0);
    assertEquals(0.5, s.ewmaWeight(), 0);
  }

  @Test
  public void theDataNodeWayOfCreatingThePolicyReadsTheConfiguration() {
    Configuration conf = new Configuration(false);
    conf.set(HdfsKeys.CHOOSER_PROBE_INTERVAL_MS, "250");
    Class<?> cls = conf.getClassByNameOrNull(HdfsKeys.LATENCY_AWARE_POLICY);
    VolumeChoosingPolicy<?> policy =
      (VolumeChoosingPolicy<?>) ReflectionUtils.newInstance(cls, conf);
    assertSame(conf, ((LatencyAwareVolumeChoosingPolicy<?>) policy).getConf());
  }

  @Test
  public void badValuesAreRejectedNamingTheKey() {
    rejects(HdfsKeys.CHOOSER_PROBE_INTERVAL_MS, "0");
    rejects(HdfsKeys.CHOOSER_PROBE_INTERVAL_MS, "1s");
    rejects(HdfsKeys.CHOOSER_PROBE_BYTES, "0");
    rejects(HdfsKeys.CHOOSER_PROBE_BYTES, String.valueOf(1L << 30));
    rejects(HdfsKeys.CHOOSER_SLOW_RATIO, "1");
    rejects(HdfsKeys.CHOOSER_SLOW_RATIO, "fast");
    rejects(HdfsKeys.CHOOSER_SLOW_RATIO, "NaN");
    rejects(HdfsKeys.CHOOSER_SLOW_MIN_MS, "-1");
    rejects(HdfsKeys.CHOOSER_EWMA_WEIGHT, "0");
    rejects(HdfsKeys.CHOOSER_EWMA_WEIGHT, "1.5");
  }

  private static void rejects(String key, String value) {
    Configuration conf = new Configuration(false);
    conf.set(key, value);
    try {
      new LatencyAwareVolumeChoosingPolicy<>().setConf(conf);
      fail(key + "=" + value + " accepted");
    } catch (IllegalArgumentException e) {
      assertTrue(e.getMessage(), e.getMessage().contains(key));
      assertTrue(e.getMessage(), e.getMessage().contains(value));
    }
  }
}
