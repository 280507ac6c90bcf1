package io.strata.rdma.loopback;

import io.strata.rdma.transport.PollPause;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The completion thread of one loopback transport: runs receive and close completions in the
 * order they were posted. Like a verbs completion thread it busy-polls for {@code spinNanos} after
 * its last completion before it parks, so that a request/response exchange finds it on-CPU.
 */
final class CompletionPoller implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(CompletionPoller.class);

  /** Something that completed: a received message or an endpoint's close. */
  interface Completion {
    void complete();
  }

  private final ConcurrentLinkedQueue<Completion> queue = new ConcurrentLinkedQueue<>();
  private final long spinNanos;
  private final Thread thread;
  private volatile boolean parked;
  private volatile boolean running = true;

  CompletionPoller(String name, long spinNanos) {
    this.spinNanos = spinNanos;
    this.thread = new Thread(this, name);
    this.thread.setDaemon(true);
    this.thread.start();
  }

  void post(Completion completion) {
    queue.offer(completion);
    if (parked) {
      LockSupport.unpark(thread);
    }
  }

  boolean onPollerThread() {
    return Thread.currentThread() == thread;
  }

  @Override
  public void run() {
    long lastWork = System.nanoTime();
    int looks = 0;
    while (running) {
      Completion c = queue.poll();
      if (c != null) {
        try {
          c.complete();
        } catch (RuntimeException | Error e) {
          LOG.error("Completion handler failed on {}", thread.getName(), e);
        }
        lastWork = System.nanoTime();
        continue;
      }
      if (System.nanoTime() - lastWork < spinNanos) {
        PollPause.pause(looks++);
        continue;
      }
      parked = true;
      if (queue.isEmpty() && running) {
        LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(100));
      }
      parked = false;
      lastWork = System.nanoTime();
    }
    // Run what was posted before the stop (close notifications), then leave.
    for (Completion c; (c = queue.poll()) != null;) {
      try {
        c.complete();
      } catch (RuntimeException | Error e) {
        LOG.error("Completion handler failed on {}", thread.getName(), e);
      }
    }
  }

  void stop() {
    running = false;
    LockSupport.unpark(thread);
    if (!onPollerThread()) {
      try {
        thread.join(5_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
