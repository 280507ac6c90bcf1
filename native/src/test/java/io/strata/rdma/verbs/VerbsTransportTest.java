package io.strata.rdma.verbs;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.strata.rdma.transport.MapTransportConf;
import io.strata.rdma.transport.RdmaEndpoint;
import io.strata.rdma.transport.RdmaReceiver;
import io.strata.rdma.transport.RdmaTransportKeys;
import io.strata.rdma.transport.TransportUnavailableException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import org.junit.Test;

/** The JNI binding on any machine, with or without an RDMA device. */
public class VerbsTransportTest {

  private static final RdmaReceiver NO_RECEIVER = new RdmaReceiver() {
    @Override
    public void onMessage(RdmaEndpoint endpoint, ByteBuffer message) {
    }

    @Override
    public void onClose(RdmaEndpoint endpoint, IOException cause) {
    }
  };

  private static boolean deviceHere() {
    try {
      NativeLibrary.load("");
      NativeVerbs.probe("");
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * The packaged library is an x86-64 ELF shared object, loads, and its natives are registered
   * and work: a context made through them is counted live and freed on close.
   */
  @Test
  public void libraryLoadsFromTheJarResource() throws Exception {
    byte[] head = new byte[20];
    try (java.io.InputStream in = NativeLibrary.class.getResourceAsStream(NativeLibrary.RESOURCE)) {
      assertNotNull(NativeLibrary.RESOURCE + " is not in the jar", in);
      assertEquals(head.length, in.readNBytes(head, 0, head.length));
    }
    assertTrue("not an ELF file", head[0] == 0x7f && head[1] == 'E' && head[2] == 'L'
        && head[3] == 'F');
    assertEquals("not 64-bit", 2, head[4]);
    assertEquals("not x86-64", 62, (head[18] & 0xff) | (head[19] & 0xff) << 8);
    NativeLibrary.load("");
    long before = NativeVerbs.liveObjects();
    VerbsTransport t = new VerbsTransport(new MapTransportConf(), true);
    assertEquals("a context made through the natives", before + 1, NativeVerbs.liveObjects());
    t.close();
    waitForLiveObjects(before, 10_000, false);
  }

  @Test
  public void noDeviceIsOneClearReason() throws Exception {
    if (deviceHere()) {
      // "name:port=STATE,...": the probe names each device and its port state
      String devices = NativeVerbs.probe("");
      assertTrue(devices, devices.matches("[^:,]+:\\d+=[A-Z_]+(,[^:,]+:\\d+=[A-Z_]+)*"));
      try (VerbsTransport t = new VerbsTransport(new MapTransportConf())) {
        assertEquals("verbs", t.name());
        assertEquals(55, t.maxPrivateData());
      }
      return;
    }
    try {
      new VerbsTransport(new MapTransportConf()).close();
      fail("a verbs transport opened without an RDMA device");
    } catch (TransportUnavailableException e) {
      String msg = e.getMessage();
      assertTrue(msg, msg.startsWith("no RDMA device"));
      assertTrue("says what failed: " + msg, msg.contains("ibv_get_device_list"));
      assertFalse("one line: " + msg, msg.contains("\n"));
    }
  }

  @Test
  public void missingConfiguredDeviceIsNamed() {
    MapTransportConf conf = new MapTransportConf();
    conf.set(VerbsKeys.DEVICE, "strata_no_such_dev0");
    try {
      new VerbsTransport(conf).close();
      fail("opened on a missing device");
    } catch (TransportUnavailableException e) {
      // named whether or not the host has other devices
      assertTrue(e.getMessage(), e.getMessage().contains("'strata_no_such_dev0' not found"));
      assertFalse("one line: " + e.getMessage(), e.getMessage().contains("\n"));
    }
  }

  @Test
  public void badSettingNamesItsKey() throws Exception {
    MapTransportConf conf = new MapTransportConf();
    conf.setInt(RdmaTransportKeys.CREDITS, 2);
    try {
      new VerbsTransport(conf, true).close();
      fail("credits=2 accepted");
    } catch (IllegalArgumentException e) {
      assertTrue(e.getMessage(), e.getMessage().contains(RdmaTransportKeys.CREDITS));
    }
    conf = new MapTransportConf();
    conf.setInt(RdmaTransportKeys.MAX_MESSAGE, 100);
    try {
      new VerbsTransport(conf, true).close();
      fail("max message below the eager threshold accepted");
    } catch (IllegalArgumentException e) {
      assertTrue(e.getMessage(), e.getMessage().contains(RdmaTransportKeys.MAX_MESSAGE));
    }
  }

  @Test
  public void closeTwiceIsSafeAndFreesTheContext() throws Exception {
    long before = VerbsTransport.liveNativeObjectsAfterLoad();
    VerbsTransport t = new VerbsTransport(new MapTransportConf(), true);
    assertEquals(before + 1, VerbsTransport.liveNativeObjects());
    t.close();
    t.close();
    waitForLiveObjects(before, 10_000, false);
    try {
      t.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), (p, d) -> null);
      fail("listen on a closed transport");
    } catch (IOException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("closed"));
    }
  }

  @Test
  public void tooMuchPrivateDataIsRefusedBeforeConnecting() throws Exception {
    try (VerbsTransport t = new VerbsTransport(new MapTransportConf(), true)) {
      assertEquals(55, t.maxPrivateData());
      try {
        t.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), 1),
            ByteBuffer.allocate(56), NO_RECEIVER, 100);
        fail("56 bytes of private data accepted");
      } catch (IllegalArgumentException e) {
        assertTrue(e.getMessage(), e.getMessage().contains("at most 55"));
      }
    }
  }

  @Test
  public void cleanerFreesAnUnclosedTransport() throws Exception {
    long before = VerbsTransport.liveNativeObjectsAfterLoad();
    openAndDrop();
    assertEquals(before + 1, VerbsTransport.liveNativeObjects());
    waitForLiveObjects(before, 30_000, true);
  }

  private static void openAndDrop() throws Exception {
    VerbsTransport t = new VerbsTransport(new MapTransportConf(), true);
    assertNotNull(t.name());
  }

  private static void waitForLiveObjects(long want, long ms, boolean gc) throws Exception {
    long end = System.currentTimeMillis() + ms;
    while (VerbsTransport.liveNativeObjects() != want && System.currentTimeMillis() < end) {
      if (gc) {
        System.gc();
      }
      Thread.sleep(50);
    }
    assertEquals("live native objects", want, VerbsTransport.liveNativeObjects());
  }
}
