package io.strata.bench.verbs;

import io.strata.metrics.Latencies;
import io.strata.rdma.transport.MapTransportConf;
import io.strata.rdma.transport.RdmaAcceptor;
import io.strata.rdma.transport.RdmaEndpoint;
import io.strata.rdma.transport.RdmaListener;
import io.strata.rdma.transport.RdmaReceiver;
import io.strata.rdma.transport.RdmaTransportKeys;
import io.strata.rdma.verbs.VerbsTransport;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Round-trip time through the JNI binding (a measurement for dev-support/softroce-test --bench):
 * an echo server and a client on two transports of one JVM. "callback": the client sends the
 * next ping from its receive callback (runtime + JNI only); "thread": an application thread
 * sends and parks until the echo arrives (adds the hand-off from the progress thread, as a
 * caller waiting on a call's future).
 *
 * <p>usage: VerbsPingPong [iterations] [sizes, e.g. 64,1024,65536] [spins, e.g. 0,1000]
 */
public final class VerbsPingPong {
  private VerbsPingPong() {
  }

  public static void main(String[] args) throws Exception {
    int iters = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
    int[] sizes = parse(args.length > 1 ? args[1] : "64,1024,65536");
    int[] spins = parse(args.length > 2 ? args[2] : "0,1000");
    InetAddress addr = InetAddress.getByName(System.getenv().getOrDefault("STRATA_RDMA_ADDR",
        "10.0.2.15"));
    System.out.printf("%-8s %-6s %-9s %8s %8s %10s %10s %10s%n", "bytes", "path", "mode",
        "spin_us", "iters", "mean_us", "p50_us", "p99_us");
    for (int spin : spins) {
      MapTransportConf conf = new MapTransportConf();
      conf.setInt("strata.rdma.poll.spin.us", spin);
      try (VerbsTransport server = new VerbsTransport(conf);
          VerbsTransport client = new VerbsTransport(conf)) {
        RdmaAcceptor echo = (peer, pd) -> new RdmaReceiver() {
          @Override
          public void onMessage(RdmaEndpoint endpoint, ByteBuffer message) {
            try {
              endpoint.send(message);
            } catch (IOException e) {
              throw new IllegalStateException(e);
            }
          }

          @Override
          public void onClose(RdmaEndpoint endpoint, IOException cause) {
          }
        };
        try (RdmaListener l = server.listen(new InetSocketAddress(addr, 0), echo)) {
          Client c = new Client();
          try (RdmaEndpoint ep = client.connect(l.localAddress(), null, c, 10_000)) {
            c.endpoint = ep;
            for (int size : sizes) {
              String path = size > RdmaTransportKeys.eagerThreshold(conf) ? "write" : "send";
              for (String mode : new String[] {"callback", "thread"}) {
                int n = size > 8192 ? Math.max(10, iters / 4) : iters;
                c.run(size, n / 10 + 1, mode); // warm-up
                Latencies nanos = new Latencies();
                for (double us : c.run(size, n, mode)) {
                  nanos.record(Math.round(us * 1000));
                }
                System.out.printf("%-8d %-6s %-9s %8d %8d %10.1f %10.1f %10.1f%n", size, path,
                    mode, spin, n, nanos.mean() / 1000, nanos.percentile(50) / 1000.0,
                    nanos.percentile(99) / 1000.0);
              }
            }
          }
        }
      }
    }
  }

  private static int[] parse(String s) {
    return Arrays.stream(s.split(",")).mapToInt(Integer::parseInt).toArray();
  }

  static final class Client implements RdmaReceiver {
    volatile RdmaEndpoint endpoint;
    private ByteBuffer ping;
    private double[] rtt;
    private final AtomicInteger done = new AtomicInteger();
    private volatile long sentAt;
    private volatile boolean fromCallback;
    private volatile CountDownLatch finished;
    private volatile int echoes;
    private volatile Thread waiter;

    double[] run(int size, int n, String mode) throws Exception {
      ping = ByteBuffer.allocateDirect(size);
      rtt = new double[n];
      done.set(0);
      echoes = 0;
      fromCallback = mode.equals("callback");
      finished = new CountDownLatch(1);
      if (fromCallback) {
        sentAt = System.nanoTime();
        endpoint.send(ping);
        if (!finished.await(600, TimeUnit.SECONDS)) {
          throw new IllegalStateException("ping-pong stalled at " + done.get());
        }
      } else {
        waiter = Thread.currentThread();
        for (int i = 0; i < n; i++) {
          long t0 = System.nanoTime();
          endpoint.send(ping);
          while (echoes == i) {
            LockSupport.park(this); // like a caller waiting on its call's future
          }
          rtt[i] = (System.nanoTime() - t0) / 1000.0;
        }
      }
      return rtt;
    }

    @Override
    public void onMessage(RdmaEndpoint ep, ByteBuffer message) {
      if (!fromCallback) {
        echoes++;
        LockSupport.unpark(waiter);
        return;
      }
      int i = done.getAndIncrement();
      rtt[i] = (System.nanoTime() - sentAt) / 1000.0;
      if (i + 1 == rtt.length) {
        finished.countDown();
        return;
      }
      try {
        sentAt = System.nanoTime();
        ep.send(ping);
      } catch (IOException e) {
        finished.countDown();
      }
    }

    @Override
    public void onClose(RdmaEndpoint ep, IOException cause) {
    }
  }
}
