package io.strata.hdfs.tiermover;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Saves the tier mover's durable state ({@link TierMoverState}) when it changed: the position in
 * the NameNode's edits and the paths not yet placed, taken together under the queue's lock so
 * that the saved position never passes a rename missing from the saved paths.
 *
 * <p>Threads: {@link #markDirty} from any thread; {@link #save} from the reading thread (its
 * periodic saves) and the thread that starts or closes the tier mover, one save at a time.
 */
final class StateSaver {
  private final Path stateFile;
  private final PendingChecks queue;
  private final LongSupplier position;
  private final Object saveLock = new Object();
  private final AtomicLong saves = new AtomicLong();
  private final AtomicLong savedBytes = new AtomicLong();
  private volatile boolean dirty;

  /**
   * @param position the last transaction taken in; read under the queue's lock, after every
   *                 rename up to it has been queued
   */
  StateSaver(Path stateFile, PendingChecks queue, LongSupplier position) {
    this.stateFile = stateFile;
    this.queue = queue;
    this.position = position;
  }

  Path stateFile() {
    return stateFile;
  }

  /** Something the state holds changed: the next periodic save writes it. */
  void markDirty() {
    dirty = true;
  }

  boolean dirty() {
    return dirty;
  }

  void save() throws IOException {
    synchronized (saveLock) {
      TierMoverState snapshot = queue.snapshot(() -> {
        dirty = false;
        // The position first: every rename up to it is queued already (or finished).
        return position.getAsLong();
      });
      try {
        savedBytes.addAndGet(snapshot.save(stateFile));
        saves.incrementAndGet();
      } catch (IOException | RuntimeException ex) {
        dirty = true;
        throw ex;
      }
    }
  }

  TierMoverStatus.Saves status() {
    return new TierMoverStatus.Saves(saves.get(), savedBytes.get());
  }
}
