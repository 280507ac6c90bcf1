package io.strata.rdma.transport;

import java.util.concurrent.atomic.LongAdder;

/** Messages and bytes sent and received: the proof that calls really used a transport. */
public final class TransportCounters {
  private final LongAdder messagesSent = new LongAdder();
  private final LongAdder bytesSent = new LongAdder();
  private final LongAdder messagesReceived = new LongAdder();
  private final LongAdder bytesReceived = new LongAdder();

  public void sent(int bytes) {
    messagesSent.increment();
    bytesSent.add(bytes);
  }

  public void received(int bytes) {
    messagesReceived.increment();
    bytesReceived.add(bytes);
  }

  /** Adds another endpoint's counts to these (a sum over endpoints). */
  public void add(TransportCounters other) {
    messagesSent.add(other.messagesSent());
    bytesSent.add(other.bytesSent());
    messagesReceived.add(other.messagesReceived());
    bytesReceived.add(other.bytesReceived());
  }

  public long messagesSent() {
    return messagesSent.sum();
  }

  public long bytesSent() {
    return bytesSent.sum();
  }

  public long messagesReceived() {
    return messagesReceived.sum();
  }

  public long bytesReceived() {
    return bytesReceived.sum();
  }

  @Override
  public String toString() {
    return "sent " + messagesSent() + " msgs/" + bytesSent() + " B, received " + messagesReceived()
        + " msgs/" + bytesReceived() + " B";
  }
}
