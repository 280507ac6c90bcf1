package org.apache.hadoop.hbase.ipc;

import io.strata.hbase.rdma.RpcStages;
import io.strata.hbase.rdma.RpcStages.Stamp;

/**
 * A server call's own timestamps ({@link RpcStages}), taken on its way from the transport to a
 * handler and published when its response is ready. Only calls of the recorded methods made
 * while recording carry them. Confined to the thread that handles the call at each step (the
 * scheduler's queue orders the steps).
 */
final class CallStamps {
  /** Calls that carry stamps. */
  interface Staged {
    /** The call's stamps; null when it records none. */
    CallStamps stamps();
  }

  private final long received;
  private final long decoded;
  private final int requestBytes;
  private long handlerStart;
  private long handlerEnd;

  private CallStamps(long received, long decoded, int requestBytes) {
    this.received = received;
    this.decoded = decoded;
    this.requestBytes = requestBytes;
  }

  /**
   * Stamps for a call decoded now whose bytes arrived at {@code receivedNanos} (0: not taken),
   * or null when the call is not recorded.
   */
  static CallStamps of(String method, long receivedNanos, int requestBytes) {
    if (receivedNanos == 0 || !RpcStages.recording() || !RpcStages.recorded(method)) {
      return null;
    }
    return new CallStamps(receivedNanos, System.nanoTime(), requestBytes);
  }

  /** The receipt time to hand to {@link #of}: now when recording, else 0 (nothing taken). */
  static long receivedNow() {
    return RpcStages.recording() ? System.nanoTime() : 0;
  }

  static void handlerStart(RpcCall call) {
    CallStamps s = call instanceof Staged ? ((Staged) call).stamps() : null;
    if (s != null) {
      s.handlerStart = System.nanoTime();
    }
  }

  static void handlerEnd(RpcCall call) {
    CallStamps s = call instanceof Staged ? ((Staged) call).stamps() : null;
    if (s != null) {
      s.handlerEnd = System.nanoTime();
    }
  }

  /** Publishes the stamps with the response's serialization done now, before it is sent. */
  void publish(BufferChain response) {
    RpcStages.stamp(Stamp.SERVER_RECEIVED, received);
    RpcStages.stamp(Stamp.SERVER_DECODED, decoded);
    RpcStages.stamp(Stamp.HANDLER_START, handlerStart);
    RpcStages.stamp(Stamp.HANDLER_END, handlerEnd);
    RpcStages.stamp(Stamp.RESPONSE_ENCODED);
    RpcStages.bytes(requestBytes, response == null ? 0 : response.size());
  }
}
