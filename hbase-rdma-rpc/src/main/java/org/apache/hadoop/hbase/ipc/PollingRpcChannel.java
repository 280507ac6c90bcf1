package org.apache.hadoop.hbase.ipc;

import org.apache.hbase.thirdparty.com.google.protobuf.Descriptors.MethodDescriptor;
import org.apache.hbase.thirdparty.com.google.protobuf.Message;
import org.apache.hbase.thirdparty.com.google.protobuf.RpcCallback;
import org.apache.hbase.thirdparty.com.google.protobuf.RpcChannel;
import org.apache.hbase.thirdparty.com.google.protobuf.RpcController;

/**
 * The async channel behind HBase's {@code AsyncTable} ({@code strata.rdma.client.async.poll}):
 * a call sent over an RDMA endpoint is polled for ({@link EndpointPolling}) on the thread that
 * issued it, before {@code callMethod} returns. The call's callback — which completes the
 * caller's future — usually runs meanwhile on the thread that delivered the response, so the
 * future the caller then joins is complete and the caller does not park. Without it, every
 * answer would need the joining thread woken up: the wake-up the blocking path saves.
 *
 * <p>The cost: the issuing thread is held until the answer or for the poll at most. A caller
 * that issues many calls before joining any has them answered one after the other rather than
 * overlapped (turn the key off for such callers). Calls over sockets return at once. Thread-safe.
 */
final class PollingRpcChannel implements RpcChannel {
  private final RpcChannel channel;
  private final EndpointPolling polling;

  PollingRpcChannel(RpcChannel channel, EndpointPolling polling) {
    this.channel = channel;
    this.polling = polling;
  }

  @Override
  public void callMethod(MethodDescriptor md, RpcController controller, Message param,
    Message returnType, RpcCallback<Message> done) {
    EndpointPolling.resetSent();
    long start = System.nanoTime();
    Completion completion = new Completion(done, md, start);
    channel.callMethod(md, controller, param, returnType, completion);
    if (EndpointPolling.wasSentOverEndpoint()) {
      completion.overEndpoint = true;
      polling.poll(completion, polling.budgetNanos(md));
    }
  }

  /** Runs the caller's callback, then marks the call done for the poller. */
  private final class Completion implements RpcCallback<Message>, EndpointPolling.Done {
    private final RpcCallback<Message> done;
    private final MethodDescriptor md;
    private final long start;
    private volatile boolean finished;
    private volatile boolean overEndpoint;

    Completion(RpcCallback<Message> done, MethodDescriptor md, long start) {
      this.done = done;
      this.md = md;
      this.start = start;
    }

    @Override
    public void run(Message response) {
      try {
        done.run(response);
      } finally {
        finished = true;
        if (overEndpoint) {
          polling.observed(md, System.nanoTime() - start);
        }
      }
    }

    @Override
    public boolean isDone() {
      return finished;
    }
  }
}
