package io.strata.compat;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.strata.hbase.rdma.HybridRpcKeys;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.ipc.HybridRpcClient;
import org.junit.After;
import org.junit.Test;

/**
 * The version check where an HBase process constructs the hybrid RPC client: under the HBase and
 * Hadoop on the class path, then with another HBase forced through {@link VersionCheck}'s test
 * seam. In package io.strata.compat for that seam.
 */
public class HybridRpcClientVersionCheckTest {
  @After
  public void realVersions() {
    VersionCheck.setFoundForTest(VersionCheck.Product.HADOOP, null);
    VersionCheck.setFoundForTest(VersionCheck.Product.HBASE, null);
  }

  @Test
  public void constructsOnTheHBaseAndHadoopItIsBuiltFor() throws Exception {
    assertEquals(SupportedVersions.HBASE, org.apache.hadoop.hbase.util.VersionInfo.getVersion());
    assertEquals(SupportedVersions.HADOOP, org.apache.hadoop.util.VersionInfo.getVersion());
    try (HybridRpcClient client = new HybridRpcClient(conf())) {
      assertTrue(client.getClass() == HybridRpcClient.class);
    }
  }

  @Test
  public void refusesAnotherHBaseNamingTheClientTheVersionsAndTheKey() {
    VersionCheck.setFoundForTest(VersionCheck.Product.HBASE, "2.6.5-hadoop3");
    try {
      new HybridRpcClient(conf()).close();
      fail("the hybrid RPC client was constructed on HBase 2.6.5-hadoop3");
    } catch (UnsupportedVersionException e) {
      assertTrue(e.getMessage(), e.getMessage().startsWith("HybridRpcClient (HBase RPC client) "
        + "refuses to start: found HBase 2.6.5-hadoop3, but this Strata build supports only HBase "
        + "2.6.4-hadoop3"));
      assertTrue(e.getMessage(), e.getMessage().contains("set strata.version.check=warn"));
    }
    Configuration warn = conf();
    warn.set(HybridRpcKeys.VERSION_CHECK, "warn");
    new HybridRpcClient(warn).close();
  }

  @Test
  public void refusesAnotherHadoopUnderTheSupportedHBase() {
    VersionCheck.setFoundForTest(VersionCheck.Product.HADOOP, "3.4.1");
    try {
      new HybridRpcClient(conf()).close();
      fail("the hybrid RPC client was constructed on Hadoop 3.4.1");
    } catch (UnsupportedVersionException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("found Hadoop 3.4.1, but this Strata "
        + "build supports only Hadoop 3.4.2"));
    }
  }

  private static Configuration conf() {
    Configuration conf = HBaseConfiguration.create();
    conf.set(HybridRpcKeys.TRANSPORT, HybridRpcKeys.TRANSPORT_NONE);
    return conf;
  }
}
