package io.strata.hdfs.tiermover;

import io.strata.hdfs.sps.MoverIdHolder;
import io.strata.hdfs.sps.SatisfierHealth;
import io.strata.hdfs.sps.SatisfierStatus;
import java.io.IOException;
import java.net.URI;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tier mover's look at the Storage Policy Satisfier: says when it stops or comes back, and
 * when requests make no progress though one runs; the queued files are not given up while none
 * runs.
 *
 * <p>Threads: {@link #look}, {@link #requested} and {@link #moved} are called by one thread at a
 * time (the starting thread once, before the checker thread starts, then the checker thread
 * only); {@link #running} and {@link #last} may be called from any thread.
 */
final class SatisfierWatch {
  /** The tier mover's logger, so that operators' log settings for it cover this piece too. */
  private static final Logger LOG = LoggerFactory.getLogger(TierMover.class);
  private static final long CHECK_MS = 5_000;

  private final SatisfierHealth health;
  private final URI uri;
  private final long noProgressMs;
  private volatile SatisfierStatus last;
  private long checkedAt;
  /** The first request since a file last moved, 0 for none. */
  private long requestedSinceMoveAt;
  private boolean stallReported;

  SatisfierWatch(SatisfierHealth health, URI uri, long noProgressMs) {
    this.health = health;
    this.uri = uri;
    this.noProgressMs = noProgressMs;
  }

  /**
   * Looks at the satisfier (at most every {@link #CHECK_MS} unless {@code now}) and says when it
   * stops or comes back, and when requests make no progress though one runs.
   */
  void look(boolean now, IntSupplier queued) {
    long t = System.currentTimeMillis();
    if (!now && t - checkedAt < CHECK_MS) {
      return;
    }
    checkedAt = t;
    SatisfierStatus s;
    try {
      s = health.status();
    } catch (IOException | RuntimeException e) {
      // The NameNode does not answer: the checks of the queued files retry and say so.
      return;
    }
    SatisfierStatus before = last;
    last = s;
    if (!s.running() && (before == null || before.running())) {
      LOG.warn("Tier mover: no Storage Policy Satisfier is running for {} ({}); the {} queued "
        + "paths cannot reach their tier until one runs and are not given up meanwhile: {}",
        uri, s.where(), queued.getAsInt(), MoverIdHolder.howToStart());
    } else if (s.running() && before != null && !before.running()) {
      LOG.info("Tier mover: a Storage Policy Satisfier runs for {} again ({})", uri, s.where());
    }
    if (s.running() && !stallReported && requestedSinceMoveAt != 0
      && t - requestedSinceMoveAt > noProgressMs) {
      LOG.warn("Tier mover: no file has reached its tier for {} s since the Storage Policy "
        + "Satisfier was asked to move it ({} queued); the satisfier is {}: is it stuck, did it "
        + "die (a dead process keeps the mover id file until its lease expires), or do the "
        + "DataNodes lack volumes of the policies' storage types with free space?",
        (t - requestedSinceMoveAt) / 1000, queued.getAsInt(), s);
      stallReported = true;
    }
  }

  /** Whether a satisfier runs, as last seen; true before the first look. */
  boolean running() {
    SatisfierStatus s = last;
    return s == null || s.running();
  }

  /** A file was handed to the satisfier at {@code now}. */
  void requested(long now) {
    if (requestedSinceMoveAt == 0) {
      requestedSinceMoveAt = now;
    }
  }

  /** A file the satisfier was asked to move reached its tier. */
  void moved() {
    requestedSinceMoveAt = 0;
    stallReported = false;
  }

  /** The satisfier as last seen, null before the first look. */
  SatisfierStatus last() {
    return last;
  }
}
