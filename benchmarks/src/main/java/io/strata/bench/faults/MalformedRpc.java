package io.strata.bench.faults;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The {@code malformed-rpc} fault: peers that break HBase's RPC framing, connecting to one
 * RegionServer's RPC port again and again while the verifying load runs. On a host without an
 * RDMA device the campaign's calls all travel this socket (the hybrid RPC server's, whose offer
 * path is Strata's), so this is where a hostile peer meets the multi-process cluster; the
 * endpoint's own hostile peers are the native tests' ({@code hostile_*} in sr_tests.c, on
 * SoftRoCE).
 *
 * <p>Each connection sends one {@link Kind} of bad bytes and then waits up to
 * {@link #WAIT_MS} for the server to close it; it counts as closed by the server or as left open
 * (then closed here). The messages are pure functions of the kind and a seeded random, tested.
 * Thread-safe: {@link #run} may be called from several threads on one instance.
 */
final class MalformedRpc {
  /** How long a connection waits for the server to close it after the bad bytes. */
  static final int WAIT_MS = 2000;
  /** HBase's connection preamble: magic, version 0, auth SIMPLE (80). */
  private static final byte[] MAGIC = "HBas".getBytes(StandardCharsets.US_ASCII);
  private static final byte VERSION = 0;
  private static final byte AUTH_SIMPLE = 80;

  /** What a connection sends. */
  enum Kind {
    /** 1 to 4096 random bytes, no preamble. */
    RANDOM_BYTES,
    /** "HBaX": another protocol. */
    BAD_MAGIC,
    /** An RPC version HBase does not speak. */
    BAD_VERSION,
    /** An authentication code HBase does not know. */
    BAD_AUTH,
    /** A good preamble, then a connection header claiming 2^31 - 1 bytes. */
    HUGE_LENGTH,
    /** A good preamble, then a negative connection header length. */
    NEGATIVE_LENGTH,
    /** A good preamble, then a connection header of random bytes. */
    GARBAGE_HEADER,
    /** A good preamble, then a header length and half the bytes it promised; then silence. */
    TRUNCATED
  }

  private final InetSocketAddress server;
  private final Map<Kind, AtomicLong> sent = new EnumMap<>(Kind.class);
  private final AtomicLong closedByServer = new AtomicLong();
  private final AtomicLong leftOpen = new AtomicLong();
  private final AtomicLong refused = new AtomicLong();

  MalformedRpc(InetSocketAddress server) {
    this.server = server;
    for (Kind k : Kind.values()) {
      sent.put(k, new AtomicLong());
    }
  }

  /** The bytes a connection of {@code kind} sends. */
  static byte[] message(Kind kind, Random random) {
    switch (kind) {
      case RANDOM_BYTES: {
        byte[] b = new byte[1 + random.nextInt(4096)];
        random.nextBytes(b);
        return b;
      }
      case BAD_MAGIC:
        return preamble("HBaX".getBytes(StandardCharsets.US_ASCII), VERSION, AUTH_SIMPLE, 0);
      case BAD_VERSION:
        return preamble(MAGIC, (byte) 99, AUTH_SIMPLE, 0);
      case BAD_AUTH:
        return preamble(MAGIC, VERSION, (byte) 0x7f, 0);
      case HUGE_LENGTH:
        return withLength(Integer.MAX_VALUE, new byte[64]);
      case NEGATIVE_LENGTH:
        return withLength(-5, new byte[64]);
      case GARBAGE_HEADER: {
        byte[] body = new byte[16 + random.nextInt(512)];
        random.nextBytes(body);
        return withLength(body.length, body);
      }
      case TRUNCATED: {
        byte[] body = new byte[100];
        random.nextBytes(body);
        return withLength(200, body);
      }
      default:
        throw new IllegalArgumentException("unknown kind " + kind);
    }
  }

  private static byte[] preamble(byte[] magic, byte version, byte auth, int extra) {
    ByteBuffer b = ByteBuffer.allocate(magic.length + 2 + extra);
    b.put(magic).put(version).put(auth);
    return b.array();
  }

  private static byte[] withLength(int length, byte[] body) {
    byte[] p = preamble(MAGIC, VERSION, AUTH_SIMPLE, 4 + body.length);
    ByteBuffer.wrap(p, MAGIC.length + 2, 4 + body.length).putInt(length).put(body);
    return p;
  }

  /** Connects again and again until {@code untilNanos}, cycling through the kinds. */
  void run(long untilNanos, long seed) {
    Random random = new Random(seed);
    Kind[] kinds = Kind.values();
    for (int i = 0; System.nanoTime() < untilNanos; i++) {
      Kind kind = kinds[i % kinds.length];
      byte[] bytes = message(kind, random);
      try (Socket s = new Socket()) {
        s.connect(server, 2000);
        s.setSoTimeout(WAIT_MS);
        OutputStream out = s.getOutputStream();
        out.write(bytes);
        out.flush();
        sent.get(kind).incrementAndGet();
        if (closedWithin(s.getInputStream())) {
          closedByServer.incrementAndGet();
        } else {
          leftOpen.incrementAndGet();
        }
      } catch (IOException e) {
        // Refused or reset before the bytes went: the server said no, which is fine.
        refused.incrementAndGet();
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /** Reads (and drops any error response) until the server closes, or {@link #WAIT_MS}. */
  private static boolean closedWithin(InputStream in) throws IOException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
    byte[] buf = new byte[4096];
    try {
      while (System.nanoTime() < deadline) {
        if (in.read(buf) < 0) {
          return true;
        }
      }
    } catch (SocketTimeoutException e) {
      return false;
    } catch (IOException e) {
      return true; // reset by the server
    }
    return false;
  }

  long connections() {
    return sent.values().stream().mapToLong(AtomicLong::get).sum();
  }

  long closedByServer() {
    return closedByServer.get();
  }

  long leftOpen() {
    return leftOpen.get();
  }

  long refused() {
    return refused.get();
  }

  Map<Kind, Long> sentPerKind() {
    Map<Kind, Long> m = new EnumMap<>(Kind.class);
    sent.forEach((k, v) -> m.put(k, v.get()));
    return m;
  }
}
