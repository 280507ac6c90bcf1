package org.apache.hadoop.hbase.ipc;

import io.strata.hbase.rdma.PollerSlots;
import io.strata.hbase.rdma.RdmaRpcMetrics;
import io.strata.rdma.transport.PollPause;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.locks.LockSupport;
import org.apache.hadoop.hbase.metrics.Counter;
import org.apache.hbase.thirdparty.com.google.protobuf.BlockingRpcChannel;
import org.apache.hbase.thirdparty.com.google.protobuf.Descriptors.MethodDescriptor;
import org.apache.hbase.thirdparty.com.google.protobuf.Message;
import org.apache.hbase.thirdparty.com.google.protobuf.RpcCallback;
import org.apache.hbase.thirdparty.com.google.protobuf.RpcChannel;
import org.apache.hbase.thirdparty.com.google.protobuf.RpcController;
import org.apache.hbase.thirdparty.com.google.protobuf.ServiceException;

/**
 * The blocking channel behind HBase's {@code Table}: a call sent over an RDMA endpoint is waited
 * for by polling for up to {@code strata.rdma.client.poll.us} before the caller parks, so that an
 * answer arriving meanwhile needs no thread wake-up — the polled completion on the caller's side
 * of the RDMA HBase paper (Huang et al., "High-Performance Design of HBase with RDMA over
 * InfiniBand", IPDPS 2012). A method whose calls typically take longer than that (a Put waiting
 * for its WAL sync) is not polled for: the core is left to the threads doing the work. Calls sent
 * over sockets, and callers beyond {@code strata.rdma.client.pollers}, park at once, as with
 * HBase's own channel. Thread-safe: each call waits on its own response; the per-method averages
 * are updated racily on purpose.
 */
final class PollingBlockingRpcChannel implements BlockingRpcChannel {
  private static final ThreadLocal<boolean[]> SENT_OVER_ENDPOINT =
    ThreadLocal.withInitial(() -> new boolean[1]);
  private static final Counter POLLED = RdmaRpcMetrics.counter("client.responses.polled");
  private static final Counter WAITED = RdmaRpcMetrics.counter("client.responses.waited");

  private final RpcChannel channel;
  private final long pollNanos;
  private final PollerSlots pollers;
  /** Per method (by index in its service): a moving average of its calls' response time. */
  private final long[] typicalNanos = new long[64];

  PollingBlockingRpcChannel(RpcChannel channel, long pollNanos, PollerSlots pollers) {
    this.channel = channel;
    this.pollNanos = pollNanos;
    this.pollers = pollers;
  }

  /** Notes that the calling thread just sent its call over an RDMA endpoint. */
  static void sentOverEndpoint() {
    SENT_OVER_ENDPOINT.get()[0] = true;
  }

  @Override
  public Message callBlockingMethod(MethodDescriptor md, RpcController controller, Message param,
    Message returnType) throws ServiceException {
    HBaseRpcController hrc = controller instanceof HBaseRpcController
      ? (HBaseRpcController) controller
      : new HBaseRpcControllerImpl();
    boolean[] sent = SENT_OVER_ENDPOINT.get();
    sent[0] = false;
    Response done = new Response();
    long start = System.nanoTime();
    channel.callMethod(md, hrc, param, returnType, done);
    Message value;
    try {
      if (sent[0]) {
        int m = md.getIndex() & (typicalNanos.length - 1);
        long typical = typicalNanos[m];
        value = done.get(typical <= pollNanos ? pollNanos : 0, true);
        // Racy by design: a lost update only delays the average.
        typicalNanos[m] = typical + ((System.nanoTime() - start) - typical) / 8;
      } else {
        value = done.get(0, false);
      }
    } catch (IOException e) {
      throw new ServiceException(e);
    }
    if (hrc.failed()) {
      throw new ServiceException(hrc.getFailed());
    }
    return value;
  }

  /** A call's response, handed over through a volatile flag the caller polls. */
  private final class Response implements RpcCallback<Message> {
    private Message value;
    private volatile boolean done;
    private volatile Thread waiter;

    @Override
    public void run(Message response) {
      value = response;
      done = true;
      Thread w = waiter;
      if (w != null) {
        LockSupport.unpark(w);
      }
    }

    /** The response, after polling up to {@code nanos}; {@code count}: an endpoint call's. */
    Message get(long nanos, boolean count) throws IOException {
      if (!done && nanos > 0 && pollers.tryTake()) {
        try {
          long deadline = System.nanoTime() + nanos;
          for (int looks = 0; !done && System.nanoTime() - deadline < 0; looks++) {
            PollPause.pause(looks);
          }
        } finally {
          pollers.release();
        }
      }
      if (count) {
        (done ? POLLED : WAITED).increment();
      }
      if (!done) {
        waiter = Thread.currentThread();
        while (!done) {
          LockSupport.park(this);
          if (Thread.interrupted()) {
            throw new InterruptedIOException("Interrupted waiting for an RPC response");
          }
        }
      }
      return value;
    }
  }
}
