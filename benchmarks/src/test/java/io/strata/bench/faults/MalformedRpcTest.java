package io.strata.bench.faults;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.Test;

/** The malformed peers' bytes, and their counts against a real server socket. */
public class MalformedRpcTest {

  @Test
  public void eachKindBreaksTheFramingItsOwnWay() {
    Random r = new Random(1);
    byte[] magic = "HBas".getBytes(StandardCharsets.US_ASCII);
    assertArrayEquals("HBaX".getBytes(StandardCharsets.US_ASCII),
      Arrays.copyOf(MalformedRpc.message(MalformedRpc.Kind.BAD_MAGIC, r), 4));
    byte[] version = MalformedRpc.message(MalformedRpc.Kind.BAD_VERSION, r);
    assertArrayEquals(magic, Arrays.copyOf(version, 4));
    assertEquals(99, version[4]);
    assertEquals(0x7f, MalformedRpc.message(MalformedRpc.Kind.BAD_AUTH, r)[5]);
    assertEquals(Integer.MAX_VALUE, lengthOf(MalformedRpc.message(MalformedRpc.Kind.HUGE_LENGTH,
      r)));
    assertEquals(-5, lengthOf(MalformedRpc.message(MalformedRpc.Kind.NEGATIVE_LENGTH, r)));
    byte[] garbage = MalformedRpc.message(MalformedRpc.Kind.GARBAGE_HEADER, r);
    assertEquals(garbage.length - 10, lengthOf(garbage));
    byte[] truncated = MalformedRpc.message(MalformedRpc.Kind.TRUNCATED, r);
    assertTrue("promises more than it sends", lengthOf(truncated) > truncated.length - 10);
    for (MalformedRpc.Kind k : MalformedRpc.Kind.values()) {
      assertTrue(k + " sends bytes", MalformedRpc.message(k, r).length > 0);
    }
    // Seeded: the same seed, the same bytes.
    assertArrayEquals(MalformedRpc.message(MalformedRpc.Kind.RANDOM_BYTES, new Random(7)),
      MalformedRpc.message(MalformedRpc.Kind.RANDOM_BYTES, new Random(7)));
  }

  /** A server that closes what starts with "HBas" at once and leaves the rest hanging. */
  @Test
  public void countsWhatTheServerClosedAndWhatItLeftOpen() throws Exception {
    AtomicBoolean stop = new AtomicBoolean();
    try (ServerSocket server = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
      Thread accept = new Thread(() -> {
        while (!stop.get()) {
          try {
            Socket s = server.accept();
            new Thread(() -> {
              try (s) {
                InputStream in = s.getInputStream();
                byte[] head = in.readNBytes(4);
                if (Arrays.equals(head, "HBas".getBytes(StandardCharsets.US_ASCII))) {
                  return; // closed by the server
                }
                Thread.sleep(MalformedRpc.WAIT_MS + 1000); // left open
              } catch (Exception e) {
                // the peer went
              }
            }).start();
          } catch (Exception e) {
            return;
          }
        }
      });
      accept.setDaemon(true);
      accept.start();
      MalformedRpc peers = new MalformedRpc(new InetSocketAddress(server.getInetAddress(),
        server.getLocalPort()));
      // The kinds in order: RANDOM_BYTES and BAD_MAGIC do not start with "HBas" (each left
      // open for the wait), BAD_VERSION and the rest do (closed at once).
      long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2 * MalformedRpc.WAIT_MS
        + 500);
      peers.run(until, 3);
      stop.set(true);
      assertEquals(peers.sentPerKind().toString(), peers.connections(),
        peers.closedByServer() + peers.leftOpen());
      assertTrue("left open: " + peers.leftOpen(), peers.leftOpen() >= 2);
      assertEquals(peers.sentPerKind().toString(), peers.leftOpen(),
        peers.sentPerKind().get(MalformedRpc.Kind.RANDOM_BYTES)
          + peers.sentPerKind().get(MalformedRpc.Kind.BAD_MAGIC));
      assertTrue("closed by the server: " + peers.closedByServer(), peers.closedByServer() >= 1);
      assertEquals(0, peers.refused());
    }
    // Nothing listening: refused, counted, no exception.
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    MalformedRpc none = new MalformedRpc(new InetSocketAddress("127.0.0.1", port));
    none.run(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100), 1);
    assertTrue(none.refused() >= 1);
    assertFalse(none.connections() > 0);
  }

  private static int lengthOf(byte[] message) {
    return ByteBuffer.wrap(message, 6, 4).getInt();
  }
}
