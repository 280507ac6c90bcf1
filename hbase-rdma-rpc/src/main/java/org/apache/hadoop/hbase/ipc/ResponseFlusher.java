package org.apache.hadoop.hbase.ipc;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends the responses that found no credit on their endpoint, so that no RPC handler ever waits
 * for a client to return credits. One thread per RPC server, idle (parked) while no endpoint has
 * a queued response; while some do, it offers each queue to its endpoint without waiting and
 * closes the endpoints whose queue grew too old ({@link HybridServerConnection#flushQueued}).
 * The transports have no credit-returned callback, so it looks again after a short pause; a
 * handler answering on the same endpoint flushes that queue first, so a client that is merely
 * busy gets its queued responses with the next one.
 *
 * <p>Supervised: a failure on one endpoint is logged and the loop goes on; the thread ends only
 * with {@link #stop()}.
 */
final class ResponseFlusher implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(ResponseFlusher.class);
  /** Pause between passes that sent nothing: short against a call's time, long for a core. */
  private static final long RETRY_NANOS = TimeUnit.MICROSECONDS.toNanos(500);
  /** Longest park while idle: a missed wake-up costs at most this. */
  private static final long IDLE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  private final Set<HybridServerConnection> pending = ConcurrentHashMap.newKeySet();
  private final Thread thread;
  private volatile boolean running = true;

  ResponseFlusher(String name) {
    this.thread = new Thread(this, "strata-rdma-response-flusher-" + name);
    thread.setDaemon(true);
    thread.start();
  }

  /** {@code connection} has queued a response: look at it until its queue is empty. */
  void queued(HybridServerConnection connection) {
    if (pending.add(connection)) {
      LockSupport.unpark(thread);
    }
  }

  @Override
  public void run() {
    while (running) {
      try {
        if (pending.isEmpty()) {
          LockSupport.parkNanos(this, IDLE_NANOS);
          continue;
        }
        boolean sent = false;
        for (HybridServerConnection c : pending) {
          // Removed before the look: a response queued meanwhile adds it again.
          pending.remove(c);
          HybridServerConnection.Flushed f;
          try {
            f = c.flushQueued();
          } catch (RuntimeException | Error e) {
            LOG.error("Sending the queued responses of {} failed; closing it", c, e);
            c.close();
            continue;
          }
          sent |= f.sentAny;
          if (!f.empty) {
            pending.add(c);
          }
        }
        if (!sent && !pending.isEmpty()) {
          LockSupport.parkNanos(this, RETRY_NANOS);
        }
      } catch (Throwable t) {
        LOG.error("Response flusher: unexpected failure; going on", t);
        LockSupport.parkNanos(this, RETRY_NANOS);
      }
    }
  }

  void stop() {
    running = false;
    LockSupport.unpark(thread);
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (thread.isAlive()) {
      LOG.warn("{} did not stop within 10 s", thread.getName());
    }
  }
}
