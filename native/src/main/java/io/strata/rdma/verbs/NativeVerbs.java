package io.strata.rdma.verbs;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The JNI entry points of {@code libstrata_rdma.so} (registered by its {@code JNI_OnLoad}).
 * Handles are native pointers, each held by a {@link NativeReference} (the transport's context,
 * a listener's id, an endpoint) that frees it exactly once. The JNI binding
 * ({@code sr_jni.c} in native/) registers these methods and the {@link NativeCallbacks} by
 * name: keep the class, method names and signatures as they are. Stateless.
 */
final class NativeVerbs {
  private NativeVerbs() {
  }

  /** Devices and port states, e.g. {@code rxe0:1=ACTIVE}; TransportUnavailableException if none. */
  static native String probe(String device) throws IOException;

  static native long createContext(String device, int eagerSize, int credits, int maxMessage,
      int pollSpinUs, int sendTimeoutMs, boolean withoutConnectionManager) throws IOException;

  /** Runs the progress loop on the calling thread until {@link #stop}. */
  static native void run(long ctx, NativeCallbacks callbacks);

  static native void stop(long ctx);

  static native void destroyContext(long ctx);

  /** Live native contexts, listeners and endpoints of this process. */
  static native long liveObjects();

  static native long listen(long ctx, String host, int port, int backlog, long listenerId)
      throws IOException;

  static native int listenerPort(long listener);

  static native void closeListener(long listener);

  static native long connect(long ctx, String host, int port, byte[] privateData, int timeoutMs,
      long endpointId) throws IOException;

  static native void sendDirect(long endpoint, ByteBuffer buffer, int position, int length)
      throws IOException;

  static native void sendArray(long endpoint, byte[] array, int offset, int length)
      throws IOException;

  /**
   * One message gathered from {@code parts} (each a direct ByteBuffer or a byte[]), at most 16,
   * waiting at most {@code maxWaitMs} for credit (negative: the send timeout): false when none
   * came within that wait (nothing sent, the endpoint stays open).
   */
  static native boolean sendParts(long endpoint, Object[] parts, int[] offsets, int[] lengths,
      int total, int maxWaitMs) throws IOException;

  /** The smaller of both sides' message limits (exchanged at connect). */
  static native int maxMessage(long endpoint);

  static native void closeEndpoint(long endpoint);

  static native void releaseEndpoint(long endpoint);

  static native boolean isOpen(long endpoint);

  /** A direct buffer over the endpoint's receive region (0 eager pool, 1 rendezvous). */
  static native ByteBuffer region(long endpoint, int region) throws IOException;

  /** msgs sent, bytes sent, msgs received, bytes received, RDMA writes, credit msgs, waits. */
  static native void stats(long endpoint, long[] out);
}
