package io.strata.cli;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Runs a started service in the foreground until the JVM is told to stop (Ctrl-C, TERM) or a
 * given time has passed, reporting at an interval; then stops it. On a signal the JVM ends once
 * its shutdown hooks return, so the hook waits (up to {@link #STOP_WAIT_S} s) for the stop to
 * finish: a service that saves state on close keeps it. For the tools that run as daemons
 * ({@code strata tier-mover}, {@code strata satisfier}). Call from one thread.
 */
public final class UntilStopped {
  /** Longest time a signal waits for the service's stop. */
  public static final long STOP_WAIT_S = 30;

  /** A step that may fail. */
  @FunctionalInterface
  public interface Step {
    void run() throws Exception;
  }

  private UntilStopped() {
  }

  /**
   * @param name       names the shutdown hook's thread
   * @param intervalMs time between {@code report} calls
   * @param durationMs stop after this long; 0 runs until a signal
   * @param report     called every interval while running
   * @param stop       called once at the end, whatever ended the run
   */
  public static void run(String name, long intervalMs, long durationMs, Step report, Step stop)
    throws Exception {
    CountDownLatch stopRequested = new CountDownLatch(1);
    CountDownLatch stopped = new CountDownLatch(1);
    Thread hook = new Thread(() -> {
      stopRequested.countDown();
      try {
        stopped.await(STOP_WAIT_S, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, name + "-stop");
    Runtime.getRuntime().addShutdownHook(hook);
    long start = System.currentTimeMillis();
    try {
      while (true) {
        long left = durationMs > 0 ? durationMs - (System.currentTimeMillis() - start)
          : Long.MAX_VALUE;
        if (left <= 0 || stopRequested.await(Math.min(intervalMs, left), TimeUnit.MILLISECONDS)) {
          break;
        }
        report.run();
      }
    } finally {
      try {
        stop.run();
      } finally {
        stopped.countDown();
      }
    }
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // stopped by a signal: the hook is running
    }
  }
}
