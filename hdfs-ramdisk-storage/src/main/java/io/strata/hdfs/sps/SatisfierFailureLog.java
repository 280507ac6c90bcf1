package io.strata.hdfs.sps;

import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.hdfs.server.namenode.sps.StoragePolicySatisfier;
import org.apache.log4j.AppenderSkeleton;
import org.apache.log4j.Level;
import org.apache.log4j.Logger;
import org.apache.log4j.spi.LoggingEvent;
import org.apache.log4j.spi.ThrowableInformation;

/**
 * Keeps the last exception that HDFS's {@link StoragePolicySatisfier} logged at ERROR: the
 * satisfier catches what kills its thread, logs it and ends the thread, and hands it to no one
 * else, so this is where its supervisor learns why it stopped. Works where Hadoop's logging
 * backend (log4j 1.2 API, reload4j) is in use; elsewhere {@link #install()} returns null and the
 * supervisor refers to the satisfier's own log line instead. Thread-safe.
 */
final class SatisfierFailureLog extends AppenderSkeleton {
  private final AtomicReference<Throwable> last = new AtomicReference<>();
  private final String threadName;

  private SatisfierFailureLog(String threadName) {
    this.threadName = threadName;
  }

  /**
   * Attaches a tap for the satisfier thread named {@code threadName} to the satisfier's logger,
   * or returns null when log4j is not the backend.
   */
  static SatisfierFailureLog install(String threadName) {
    try {
      SatisfierFailureLog tap = new SatisfierFailureLog(threadName);
      tap.setName("strata-sps-failure-log");
      tap.setThreshold(Level.ERROR);
      Logger.getLogger(StoragePolicySatisfier.class).addAppender(tap);
      return tap;
    } catch (LinkageError | RuntimeException noLog4j) {
      return null;
    }
  }

  /** The last exception logged at ERROR since the previous call, or null. */
  Throwable take() {
    return last.getAndSet(null);
  }

  void uninstall() {
    Logger.getLogger(StoragePolicySatisfier.class).removeAppender(this);
  }

  @Override
  protected void append(LoggingEvent event) {
    ThrowableInformation t = event.getThrowableInformation();
    if (t != null && t.getThrowable() != null && threadName.equals(event.getThreadName())) {
      last.set(t.getThrowable());
    }
  }

  @Override
  public void close() {
  }

  @Override
  public boolean requiresLayout() {
    return false;
  }
}
