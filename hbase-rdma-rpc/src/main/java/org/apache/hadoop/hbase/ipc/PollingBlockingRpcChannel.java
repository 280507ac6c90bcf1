package org.apache.hadoop.hbase.ipc;

import java.io.InterruptedIOException;
import java.util.concurrent.locks.LockSupport;
import org.apache.hbase.thirdparty.com.google.protobuf.BlockingRpcChannel;
import org.apache.hbase.thirdparty.com.google.protobuf.Descriptors.MethodDescriptor;
import org.apache.hbase.thirdparty.com.google.protobuf.Message;
import org.apache.hbase.thirdparty.com.google.protobuf.RpcCallback;
import org.apache.hbase.thirdparty.com.google.protobuf.RpcChannel;
import org.apache.hbase.thirdparty.com.google.protobuf.RpcController;
import org.apache.hbase.thirdparty.com.google.protobuf.ServiceException;

/**
 * The blocking channel behind HBase's {@code Table}: a call sent over an RDMA endpoint is waited
 * for by polling ({@link EndpointPolling}) before the caller parks. Calls sent over sockets park
 * at once, as with HBase's own channel. Thread-safe: each call waits on its own response.
 */
final class PollingBlockingRpcChannel implements BlockingRpcChannel {
  private final RpcChannel channel;
  private final EndpointPolling polling;

  PollingBlockingRpcChannel(RpcChannel channel, EndpointPolling polling) {
    this.channel = channel;
    this.polling = polling;
  }

  @Override
  public Message callBlockingMethod(MethodDescriptor md, RpcController controller, Message param,
    Message returnType) throws ServiceException {
    HBaseRpcController hrc = controller instanceof HBaseRpcController
      ? (HBaseRpcController) controller
      : new HBaseRpcControllerImpl();
    EndpointPolling.resetSent();
    Response done = new Response();
    long start = System.nanoTime();
    channel.callMethod(md, hrc, param, returnType, done);
    if (EndpointPolling.wasSentOverEndpoint()) {
      polling.poll(done, polling.budgetNanos(md));
      try {
        done.await();
      } catch (InterruptedIOException e) {
        throw new ServiceException(e);
      }
      polling.observed(md, System.nanoTime() - start);
    } else {
      try {
        done.await();
      } catch (InterruptedIOException e) {
        throw new ServiceException(e);
      }
    }
    if (hrc.failed()) {
      throw new ServiceException(hrc.getFailed());
    }
    return done.value;
  }

  /** A call's response, handed over through a volatile flag the caller polls. */
  private static final class Response implements RpcCallback<Message>, EndpointPolling.Done {
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

    @Override
    public boolean isDone() {
      return done;
    }

    /** Parks until the response is in. */
    void await() throws InterruptedIOException {
      if (!done) {
        waiter = Thread.currentThread();
        while (!done) {
          LockSupport.park(this);
          if (Thread.interrupted()) {
            throw new InterruptedIOException("Interrupted waiting for an RPC response");
          }
        }
      }
    }
  }
}
