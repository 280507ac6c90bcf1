package io.strata.hdfs;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.net.InetSocketAddress;
import org.apache.hadoop.conf.Configuration;
import org.junit.Test;

/** The daemons' HTTP address keys: defaults, port 0, none, and clear errors on bad values. */
public class DaemonHttpTest {
  @Test
  public void addresses() {
    Configuration conf = new Configuration(false);
    InetSocketAddress a = HdfsKeys.spsHttpAddress(conf);
    assertEquals("0.0.0.0", a.getHostString());
    assertEquals(9874, a.getPort());
    assertEquals(9875, HdfsKeys.tierMoverHttpAddress(conf).getPort());
    conf.set(HdfsKeys.SPS_HTTP_ADDRESS, "127.0.0.1:0");
    assertEquals(0, HdfsKeys.spsHttpAddress(conf).getPort());
    conf.set(HdfsKeys.SPS_HTTP_ADDRESS, "none");
    assertNull(HdfsKeys.spsHttpAddress(conf));
    conf.set(HdfsKeys.TIERMOVER_HTTP_ADDRESS, "");
    assertNull(HdfsKeys.tierMoverHttpAddress(conf));
    for (String bad : new String[] { "9874", "host:", ":9874", "host:70000", "host:x" }) {
      conf.set(HdfsKeys.SPS_HTTP_ADDRESS, bad);
      try {
        HdfsKeys.spsHttpAddress(conf);
        fail("accepted " + bad);
      } catch (IllegalArgumentException e) {
        assertTrue(e.getMessage(), e.getMessage().contains(HdfsKeys.SPS_HTTP_ADDRESS)
          && e.getMessage().contains(bad));
      }
    }
  }

  @Test
  public void prometheusOnUnlessTheOperatorSetIt() {
    Configuration conf = new Configuration();
    assertTrue("core-default's false is not the operator's", DaemonHttp.prometheusEnabled(conf));
    conf.setBoolean("hadoop.prometheus.endpoint.enabled", false);
    assertTrue(!DaemonHttp.prometheusEnabled(conf));
  }
}
