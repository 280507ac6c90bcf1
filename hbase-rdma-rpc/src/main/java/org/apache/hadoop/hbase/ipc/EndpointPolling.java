package org.apache.hadoop.hbase.ipc;

import io.strata.hbase.rdma.PollerSlots;
import io.strata.hbase.rdma.RdmaRpcMetrics;
import io.strata.rdma.transport.PollPause;
import org.apache.hadoop.hbase.metrics.Counter;
import org.apache.hbase.thirdparty.com.google.protobuf.Descriptors.MethodDescriptor;

/**
 * How a caller waits for the response of a call it sent over an RDMA endpoint: by polling for up
 * to {@code strata.rdma.client.poll.us} instead of parking at once, so that an answer arriving
 * meanwhile needs no thread wake-up — the polled completion on the caller's side of the RDMA
 * HBase paper (Huang et al., "High-Performance Design of HBase with RDMA over InfiniBand",
 * IPDPS 2012). Shared by the blocking channel ({@code Table}) and the async one
 * ({@code AsyncTable}) of one client.
 *
 * <p>A method whose calls typically take longer than the poll (a Put waiting for its WAL sync) is
 * not polled for: the core is left to the threads doing the work. At most
 * {@code strata.rdma.client.pollers} threads poll at once; the others park at once, as with
 * HBase's own channels. Thread-safe: the per-method averages are updated racily on purpose (a
 * lost update only delays the average).
 */
final class EndpointPolling {
  private static final ThreadLocal<boolean[]> SENT_OVER_ENDPOINT =
    ThreadLocal.withInitial(() -> new boolean[1]);
  private static final Counter POLLED = RdmaRpcMetrics.counter("client.responses.polled");
  private static final Counter WAITED = RdmaRpcMetrics.counter("client.responses.waited");

  private final long pollNanos;
  private final PollerSlots pollers;
  /** Per method (by index in its service): a moving average of its calls' response time. */
  private final long[] typicalNanos = new long[64];

  EndpointPolling(long pollNanos, PollerSlots pollers) {
    this.pollNanos = pollNanos;
    this.pollers = pollers;
  }

  /** A call's completion, as the poller sees it. */
  interface Done {
    boolean isDone();
  }

  /** Notes that the calling thread just sent its call over an RDMA endpoint. */
  static void sentOverEndpoint() {
    SENT_OVER_ENDPOINT.get()[0] = true;
  }

  /** Forgets the note, before a call is issued. */
  static void resetSent() {
    SENT_OVER_ENDPOINT.get()[0] = false;
  }

  /** Whether the calling thread's last call went over an endpoint. */
  static boolean wasSentOverEndpoint() {
    return SENT_OVER_ENDPOINT.get()[0];
  }

  /** How long to poll for a call of this method: the poll, or 0 for a typically slower method. */
  long budgetNanos(MethodDescriptor md) {
    return typicalNanos[slot(md)] <= pollNanos ? pollNanos : 0;
  }

  /** Feeds a call's response time, from its start, into its method's average. */
  void observed(MethodDescriptor md, long nanos) {
    int m = slot(md);
    long typical = typicalNanos[m];
    typicalNanos[m] = typical + (nanos - typical) / 8;
  }

  private int slot(MethodDescriptor md) {
    return md.getIndex() & (typicalNanos.length - 1);
  }

  /**
   * Polls until the call is done or {@code nanos} passed (nothing when no poller slot is free),
   * and counts whether it was done by then. True when done.
   */
  boolean poll(Done call, long nanos) {
    if (!call.isDone() && nanos > 0 && pollers.tryTake()) {
      try {
        long deadline = System.nanoTime() + nanos;
        for (int looks = 0; !call.isDone() && System.nanoTime() - deadline < 0; looks++) {
          PollPause.pause(looks);
        }
      } finally {
        pollers.release();
      }
    }
    boolean done = call.isDone();
    (done ? POLLED : WAITED).increment();
    return done;
  }
}
