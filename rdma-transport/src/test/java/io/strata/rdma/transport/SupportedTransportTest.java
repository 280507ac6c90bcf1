package io.strata.rdma.transport;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.strata.rdma.loopback.LoopbackTransportFactory;
import org.junit.Test;

public class SupportedTransportTest {

  @Test
  public void namesInAnyCaseAndFactoryClassNamesSelectAFactory() throws Exception {
    assertEquals(SupportedTransport.LOOPBACK, SupportedTransport.valueOfIgnoreCase(" Loopback "));
    assertEquals(SupportedTransport.VERBS, SupportedTransport.valueOfIgnoreCase("verbs"));
    assertNull(SupportedTransport.valueOfIgnoreCase("none"));
    assertEquals(LoopbackTransportFactory.class.getName(),
      SupportedTransport.factoryClassName("LOOPBACK"));
    assertEquals(LoopbackTransportFactory.class.getName(),
      SupportedTransport.factoryClassName(LoopbackTransportFactory.class.getName()));
    try (RdmaTransport t = SupportedTransport.newFactory(LoopbackTransportFactory.class.getName())
      .newTransport(TransportConf.EMPTY)) {
      assertEquals("loopback", t.name());
    }
  }

  @Test
  public void anUnknownNameNamesTheValueAndTheChoices() {
    try {
      SupportedTransport.factoryClassName("infiniband");
      fail("infiniband is no transport");
    } catch (IllegalArgumentException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("infiniband"));
      assertTrue(e.getMessage(), e.getMessage().contains("loopback, verbs"));
    }
  }

  /** A factory whose jar is absent is unavailable, naming the class and the jar to add. */
  @Test
  public void aMissingFactoryIsUnavailable() {
    try {
      SupportedTransport.newFactory("verbs"); // strata-native is not on this module's class path
      fail("the verbs factory loaded without strata-native");
    } catch (TransportUnavailableException e) {
      assertTrue(e.getMessage(), e.getMessage().contains(SupportedTransport.VERBS.factoryClassName()));
      assertTrue(e.getMessage(), e.getMessage().contains("strata-native"));
    }
    try {
      SupportedTransport.newFactory("org.example.NoSuchFactory");
      fail("a missing class loaded");
    } catch (TransportUnavailableException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("org.example.NoSuchFactory"));
    }
    try {
      SupportedTransport.newFactory(String.class.getName());
      fail("a class that is no factory was taken");
    } catch (TransportUnavailableException e) {
      assertTrue(e.getMessage(), e.getMessage().contains(TransportFactory.class.getName()));
    }
  }

  @Test
  public void keysAreCheckedByName() {
    MapTransportConf conf = new MapTransportConf().setInt(RdmaTransportKeys.CREDITS, 2);
    try {
      RdmaTransportKeys.credits(conf);
      fail("2 credits");
    } catch (IllegalArgumentException e) {
      assertTrue(e.getMessage(), e.getMessage().contains(RdmaTransportKeys.CREDITS));
    }
    conf.set(RdmaTransportKeys.CREDITS, " 0x10 ");
    assertEquals(16, RdmaTransportKeys.credits(conf));
    conf.set(RdmaTransportKeys.SEND_TIMEOUT_MS, "soon");
    try {
      RdmaTransportKeys.sendTimeoutMs(conf);
      fail("not an int");
    } catch (IllegalArgumentException e) {
      assertTrue(e.getMessage(), e.getMessage().contains(RdmaTransportKeys.SEND_TIMEOUT_MS));
    }
    assertEquals(RdmaTransportKeys.LOOPBACK_DELIVERY_DEFAULT,
      RdmaTransportKeys.loopbackDelivery(TransportConf.EMPTY));
  }
}
