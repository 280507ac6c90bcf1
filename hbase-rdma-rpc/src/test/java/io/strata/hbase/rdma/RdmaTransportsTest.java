package io.strata.hbase.rdma;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;

import io.strata.rdma.transport.RdmaTransport;
import java.io.File;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.junit.Assume;
import org.junit.Test;

public class RdmaTransportsTest {
  private static Configuration with(String transport) {
    Configuration c = new Configuration(false);
    c.set(HybridRpcKeys.TRANSPORT, transport);
    return c;
  }

  @Test
  public void noneMeansSockets() {
    assertFalse(RdmaTransports.create(with("none"), "test").isPresent());
  }

  @Test
  public void loopbackIsInProcess() throws Exception {
    Optional<RdmaTransport> t = RdmaTransports.create(with("Loopback"), "test");
    assertEquals("loopback", t.get().name());
    t.get().close();
  }

  /** Verbs on a machine without an RDMA device: one warning and sockets, no failure. */
  @Test
  public void verbsWithoutADeviceMeansSockets() {
    File[] devices = new File("/sys/class/infiniband").listFiles();
    Assume.assumeTrue("this machine has an RDMA device", devices == null || devices.length == 0);
    assertFalse(RdmaTransports.create(with("verbs"), "test").isPresent());
    assertFalse(RdmaTransports.create(new Configuration(false), "test").isPresent());
  }

  @Test(expected = IllegalArgumentException.class)
  public void unknownTransportIsAClearError() {
    RdmaTransports.create(with("infiniband"), "test");
  }
}
