package io.strata.hdfs.tiermover;

import io.strata.hdfs.HdfsKeys;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.apache.hadoop.hdfs.DFSInotifyEventInputStream;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.inotify.Event;
import org.apache.hadoop.hdfs.inotify.EventBatch;
import org.apache.hadoop.hdfs.inotify.MissingEventsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows the NameNode's renames through inotify from a transaction id, hands each path renamed
 * under a followed prefix to the {@link PendingChecks} queue, waits while the queue is full, and
 * saves the state at most every {@link HdfsKeys#TIERMOVER_SAVE_INTERVAL_MS} when it changed. A
 * NameNode that does not answer is retried from the position taken in, with a growing pause; a gap
 * in the edits (purged before they were read) is counted and logged, and reading goes on after it.
 *
 * <p>Threads: {@link #run} is the reading thread's loop; {@link #startAt} is called before it
 * starts; {@link #txid} and {@link #status} may be called from any thread.
 */
final class RenameFollower {
  /** The tier mover's logger, so that operators' log settings for it cover this piece too. */
  private static final Logger LOG = LoggerFactory.getLogger(TierMover.class);
  private static final int MAX_BATCHES_PER_ROUND = 1_000;

  private final DistributedFileSystem dfs;
  private final TierMoverSettings settings;
  private final PendingChecks queue;
  private final StateSaver saver;
  private final BooleanSupplier running;
  private final LagSamples eventLag = new LagSamples();
  private final AtomicLong renames = new AtomicLong();
  private final AtomicLong gaps = new AtomicLong();
  private final AtomicLong missedTxids = new AtomicLong();
  private volatile long lastGapFirst = -1;
  private volatile long lastGapLast = -1;
  /** The last transaction taken in: every rename up to it is queued (or finished). */
  private volatile long txid;
  private volatile long txidsBehind = -1;
  /** Why the edits (or the state file) cannot be read (written) now; null while they can. */
  private volatile String readError;

  RenameFollower(DistributedFileSystem dfs, TierMoverSettings settings, PendingChecks queue,
    StateSaver saver, BooleanSupplier running, long txid) {
    this.dfs = dfs;
    this.settings = settings;
    this.queue = queue;
    this.saver = saver;
    this.running = running;
    this.txid = txid;
  }

  long txid() {
    return txid;
  }

  /** Sets the position to read from; before {@link #run} starts. */
  void startAt(long txid) {
    this.txid = txid;
  }

  /** Where renames are read from: the NameNode's inotify stream, or a test's list. */
  interface EventSource {
    EventBatch poll(long time, TimeUnit unit)
      throws IOException, InterruptedException, MissingEventsException;

    EventBatch poll() throws IOException, InterruptedException, MissingEventsException;

    long txidsBehind();
  }

  private EventSource open(long from) throws IOException {
    DFSInotifyEventInputStream s = dfs.getInotifyEventStream(from);
    return new EventSource() {
      @Override
      public EventBatch poll(long time, TimeUnit unit)
        throws IOException, InterruptedException, MissingEventsException {
        return s.poll(time, unit);
      }

      @Override
      public EventBatch poll() throws IOException, MissingEventsException {
        return s.poll();
      }

      @Override
      public long txidsBehind() {
        return s.getTxidsBehindEstimate();
      }
    };
  }

  /**
   * Reads one round: waits up to 500 ms for a batch, then takes in batches while there are some,
   * fewer than {@code maxBatches} and {@code room} says so. Each batch is handed to
   * {@code takeIn} as soon as it is read, so a gap found later in the round loses none of them;
   * the gap is handed to {@code gap} and ends the round (the source goes on after the gap).
   * Returns the batches taken in.
   */
  static int readRound(EventSource source, int maxBatches, BooleanSupplier room,
    Consumer<EventBatch> takeIn, Consumer<MissingEventsException> gap)
    throws IOException, InterruptedException {
    int n = 0;
    try {
      EventBatch b = source.poll(500, TimeUnit.MILLISECONDS);
      while (b != null) {
        takeIn.accept(b);
        n++;
        b = n < maxBatches && room.getAsBoolean() ? source.poll() : null;
      }
    } catch (MissingEventsException e) {
      gap.accept(e);
    }
    return n;
  }

  /** The reading thread's loop, until the tier mover stops. */
  void run() {
    EventSource stream = null;
    long lastSave = System.currentTimeMillis();
    long backoffMs = 500;
    boolean outage = false;
    boolean full = false;
    long lastFullLog = 0;
    while (running.getAsBoolean()) {
      try {
        if (stream == null) {
          stream = open(txid);
        }
        if (!queue.hasRoom()) {
          // The transaction id is a position: waiting here loses nothing while the NameNode
          // keeps its edits, and holds memory to the bound.
          long now = System.currentTimeMillis();
          if (!full && now - lastFullLog >= 60_000) {
            lastFullLog = now;
            LOG.info("Tier mover: {} paths queued ({}); reading further renames once some are "
              + "placed (logged at most once a minute)", queue.size(),
              HdfsKeys.TIERMOVER_MAX_QUEUED);
          }
          full = true;
          Thread.sleep(PendingChecks.ROOM_WAIT_MS);
        } else {
          full = false;
          readRound(stream, MAX_BATCHES_PER_ROUND, queue::hasRoom, this::takeIn,
            this::recordGap);
          txidsBehind = stream.txidsBehind();
          if (outage) {
            LOG.info("Tier mover: reading the NameNode's edits again from transaction {}", txid);
            outage = false;
            readError = null;
            backoffMs = 500;
          }
        }
        long now = System.currentTimeMillis();
        if (saver.dirty() && now - lastSave >= settings.saveIntervalMs()) {
          saver.save();
          lastSave = now;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (IOException | RuntimeException e) {
        if (!running.getAsBoolean()) {
          return;
        }
        readError = e.toString();
        if (!outage) {
          LOG.warn("Tier mover: cannot read edits from the NameNode or save {} ({}); retrying "
            + "from transaction {}, no rename is skipped", saver.stateFile(), e.toString(), txid);
          outage = true;
        }
        // The stream may have read past what was taken in; reopen at the position taken in.
        stream = null;
        try {
          Thread.sleep(backoffMs);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          return;
        }
        backoffMs = Math.min(10_000, backoffMs * 2);
      }
    }
  }

  private void takeIn(EventBatch b) {
    for (Event e : b.getEvents()) {
      if (e instanceof Event.RenameEvent) {
        Event.RenameEvent r = (Event.RenameEvent) e;
        renames.incrementAndGet();
        accept(r.getDstPath(), r.getTimestamp());
      }
    }
    // After the renames are queued: a snapshot that sees this position also sees them.
    txid = b.getTxid();
    saver.markDirty();
  }

  private void recordGap(MissingEventsException e) {
    long first = e.getExpectedTxid();
    long last = e.getActualTxid() - 1;
    long lost = Math.max(0, last - first + 1);
    gaps.incrementAndGet();
    missedTxids.addAndGet(lost);
    lastGapFirst = first;
    lastGapLast = last;
    // The stream goes on after the gap; what follows it starts at the next transaction.
    txid = Math.max(txid, last);
    saver.markDirty();
    LOG.warn("Tier mover: the NameNode no longer has transactions {} to {} ({} transactions, "
      + "purged before the mover read them); renames in them are NOT followed and files renamed "
      + "then may stay on their old tier. Recover with 'strata mover -p DIR' on the directories "
      + "files were renamed into in that time (for an HBase table: 'strata migrate --table "
      + "TABLE'). Going on from transaction {}. To keep edits for a longer stop, raise "
      + "dfs.namenode.num.extra.edits.retained", first, last, lost, last + 1);
  }

  /** Takes in a renamed path if it is under a followed prefix. */
  private void accept(String dst, long renamedAt) {
    if (!settings.follows(dst)) {
      return;
    }
    long now = System.currentTimeMillis();
    eventLag.add(Math.max(0, now - renamedAt));
    queue.accept(dst, renamedAt, now);
  }

  /** Why the NameNode's edits cannot be read (or the state saved) now, or null. */
  String readError() {
    return readError;
  }

  long renames() {
    return renames.get();
  }

  TierMoverStatus.Position position() {
    return new TierMoverStatus.Position(txid, txidsBehind);
  }

  TierMoverStatus.Gaps gaps() {
    return new TierMoverStatus.Gaps(gaps.get(), missedTxids.get(), lastGapFirst, lastGapLast);
  }

  LagSamples.Snapshot eventLag() {
    return eventLag.snapshot();
  }
}
