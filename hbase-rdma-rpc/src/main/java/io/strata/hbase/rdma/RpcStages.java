package io.strata.hbase.rdma;

/**
 * Timestamps of the last Get or Mutate call at the points where its time is spent, for measuring
 * where a call's time goes (the RDMA HBase paper's Figure 7): client serialization, send and
 * transport to the server, the server's decoding, queue wait, handler and response
 * serialization, transport back, client processing. Also the bytes of its request and response
 * as the RPC framed them.
 *
 * <p>Off unless a benchmark turns it on ({@link #record}): each point then costs one read of a
 * volatile flag. The server records only on a RegionServer whose {@link HybridRpcKeys.Server#STAGES}
 * is on (socket calls then go through connection and call subclasses that take the stamps; off,
 * they are HBase's own). Client and server stamps are comparable only in one JVM or on one host
 * ({@link System#nanoTime()}).
 *
 * <p>Thread-safety: one slot per point, last writer wins. A reading is meaningful when one
 * thread makes one call at a time and reads after the call returned (the call's completion orders
 * the writes before the read); calls of other methods or services do not record.
 */
public final class RpcStages {
  /** The points a call passes, in order (transport send and server receipt may interleave). */
  public enum Stamp {
    /** Client: the caller's Get or Put began (taken by the caller). */
    CALL_START,
    /** Client: the request is encoded into the buffer the endpoint sends. */
    REQUEST_ENCODED,
    /** Server: the request's bytes arrived (endpoint message or socket frame). */
    SERVER_RECEIVED,
    /** Server: the request is decoded into a call and handed to the scheduler. */
    SERVER_DECODED,
    /** Server: a handler began running the call. */
    HANDLER_START,
    /** Server: the handler's RegionServer work is done. */
    HANDLER_END,
    /** Server: the response is serialized, about to be sent. */
    RESPONSE_ENCODED,
    /** Client: the response's bytes arrived at the endpoint's receiver. */
    RESPONSE_RECEIVED,
    /** Client: the caller has the result (taken by the caller). */
    CALL_END
  }

  private static final int POINTS = Stamp.values().length;
  private static volatile boolean recording;
  private static final long[] STAMPS = new long[POINTS];
  private static volatile int requestBytes;
  private static volatile int responseBytes;

  private RpcStages() {
  }

  /** Turns recording on or off (a benchmark's switch). */
  public static void record(boolean on) {
    recording = on;
  }

  /** Whether points record now. */
  public static boolean recording() {
    return recording;
  }

  /** Records the point now, if recording. */
  public static void stamp(Stamp s) {
    if (recording) {
      STAMPS[s.ordinal()] = System.nanoTime();
    }
  }

  /** Records a point taken earlier. */
  public static void stamp(Stamp s, long nanos) {
    if (recording) {
      STAMPS[s.ordinal()] = nanos;
    }
  }

  /** Records the sizes of the last call's request and response as framed by the RPC. */
  public static void bytes(int request, int response) {
    if (recording) {
      requestBytes = request;
      responseBytes = response;
    }
  }

  /** Clears every point (before a call, so that a point the path does not pass reads 0). */
  public static void clear() {
    for (int i = 0; i < POINTS; i++) {
      STAMPS[i] = 0;
    }
  }

  /** The points of the last call, indexed by {@link Stamp#ordinal()}; 0 where none was taken. */
  public static long[] snapshot() {
    return STAMPS.clone();
  }

  /** The last call's request bytes (RPC framing: length, header, param, cell block). */
  public static int requestBytes() {
    return requestBytes;
  }

  /** The last call's response bytes (RPC framing). */
  public static int responseBytes() {
    return responseBytes;
  }

  /** Whether calls of this method record on the server: the routed data calls. */
  public static boolean recorded(String method) {
    return "Get".equals(method) || "Mutate".equals(method);
  }
}
