package io.strata.hdfs.tiermover;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.strata.hdfs.HdfsKeys;
import io.strata.hdfs.mover.PlacementCheck;
import io.strata.hdfs.sps.MoverIdHolder;
import io.strata.hdfs.sps.SatisfierHealth;
import io.strata.hdfs.sps.SatisfierStatus;
import java.io.Closeable;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.DelayQueue;
import java.util.concurrent.Delayed;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DFSClient;
import org.apache.hadoop.hdfs.DFSInotifyEventInputStream;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.inotify.Event;
import org.apache.hadoop.hdfs.inotify.EventBatch;
import org.apache.hadoop.hdfs.inotify.MissingEventsException;
import org.apache.hadoop.hdfs.protocol.DirectoryListing;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves a file's blocks when a rename puts it under another storage policy. HDFS keeps blocks
 * where they are on a rename; this service follows the NameNode's renames through inotify (as an
 * HDFS superuser), checks each renamed file's replicas against its effective policy, asks the
 * Storage Policy Satisfier to move the misplaced ones, and watches them until they are on their
 * tier. It knows nothing about who renamed: HBase archiving an HFile is one rename among others.
 *
 * <p>inotify rather than a NameNode audit logger: it runs outside the NameNode (no code on the
 * NameNode's RPC handler threads, no NameNode classpath change), and a transaction id is a
 * resumable position, so a restart of the mover or of the NameNode loses no rename. The last
 * transaction taken in and the accepted paths not yet placed are saved in a state file, at most
 * every {@link HdfsKeys#TIERMOVER_SAVE_INTERVAL_MS}; the saved transaction never passes a rename
 * missing from the saved paths, so a crash only makes the mover read some edits again.
 *
 * <p>Memory is bounded by {@link HdfsKeys#TIERMOVER_MAX_QUEUED}: a renamed directory is one entry
 * whose files the checker lists in chunks as room frees up (remembering where it is, also in the
 * state file), and reading renames waits while the bound is reached.
 *
 * <p>Threads: one reads the NameNode's edits (and saves the state), one checks the queued paths;
 * {@link #status()} may be called from any thread. Structural changes of the queue, the
 * directories' positions and the state snapshot are made under one lock, so a snapshot never holds
 * a directory position past a file that is not in it.
 */
public final class TierMover implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(TierMover.class);
  private static final int MAX_BATCHES_PER_ROUND = 1_000;
  private static final long SATISFIER_CHECK_MS = 5_000;
  /** How long a full queue waits before looking for room again. */
  private static final long ROOM_WAIT_MS = 100;
  /** NameNode listings per turn of one directory, so other due files are not held up long. */
  private static final int LISTINGS_PER_TURN = 4;

  private final DistributedFileSystem dfs;
  private final java.nio.file.Path stateFile;
  private final List<String> followed;
  private final long settleMs;
  private final long checkMs;
  private final long checkMaxMs;
  private final long rerequestMs;
  private final long giveUpMs;
  private final long recheckMs;
  private final int maxQueued;
  private final long saveIntervalMs;
  private final TierMoverSettings settings;

  /** Guards adding and removing entries, {@link #directories}, cursors and state snapshots. */
  private final Object lock = new Object();
  private final Map<String, Entry> pending = new ConcurrentHashMap<>();
  private final DelayQueue<Entry> due = new DelayQueue<>();
  private final LagSamples moveLag = new LagSamples();
  private final LagSamples eventLag = new LagSamples();
  private final AtomicLong renames = new AtomicLong();
  private final AtomicLong accepted = new AtomicLong();
  private final AtomicLong inPlace = new AtomicLong();
  private final AtomicLong moved = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private final AtomicLong gone = new AtomicLong();
  private final AtomicLong requests = new AtomicLong();
  private final AtomicLong listed = new AtomicLong();
  private final AtomicLong saves = new AtomicLong();
  private final AtomicLong savedBytes = new AtomicLong();
  private final AtomicLong gaps = new AtomicLong();
  private final AtomicLong missedTxids = new AtomicLong();
  private final Object saveLock = new Object();

  /** Entries that are directories being listed; under {@link #lock}. */
  private int directories;
  private volatile long peakQueued;
  private volatile long lastGapFirst = -1;
  private volatile long lastGapLast = -1;
  private volatile long txid;
  private volatile long txidsBehind = -1;
  private volatile boolean running = true;
  private volatile boolean dirty;
  /** Asked every {@link #SATISFIER_CHECK_MS} by the checker thread. */
  private SatisfierHealth satisfierHealth;
  private final long noProgressMs;
  private volatile SatisfierStatus satisfier;
  private long satisfierCheckedAt;
  /** Checker thread only: the first request since a file last moved, 0 for none. */
  private long requestedSinceMoveAt;
  private boolean stallReported;
  private final Thread events;
  private final Thread checker;

  private TierMover(DistributedFileSystem dfs, Configuration conf, java.nio.file.Path stateFile,
    TierMoverState state) {
    this.dfs = dfs;
    this.stateFile = stateFile;
    this.settings = TierMoverSettings.from(conf);
    this.noProgressMs = settings.noProgressMs();
    this.followed = settings.followed();
    this.settleMs = settings.settleMs();
    this.checkMs = settings.checkMs();
    this.checkMaxMs = settings.checkMaxMs();
    this.rerequestMs = settings.rerequestMs();
    this.giveUpMs = settings.giveUpMs();
    this.recheckMs = settings.recheckMs();
    this.saveIntervalMs = settings.saveIntervalMs();
    this.maxQueued = settings.maxQueued();
    this.txid = state.txid();
    long now = System.currentTimeMillis();
    for (TierMoverState.Pending p : state.pending()) {
      Entry e = enqueue(p.path(), p.renamedAt(), now, now + settleMs);
      if (p.directory()) {
        synchronized (lock) {
          e.directory = true;
          e.cursor = p.cursor();
          directories++;
        }
      }
    }
    this.events = new Thread(this::followRenames, "strata-tier-mover-events");
    this.checker = new Thread(this::checkQueued, "strata-tier-mover-checker");
    for (Thread t : new Thread[] { events, checker }) {
      t.setDaemon(true);
      // Both catch what they expect; anything else ends the thread, and that must not be silent.
      t.setUncaughtExceptionHandler((th, ex) -> LOG.error("Tier mover: thread {} stopped "
        + "unexpectedly; renames are not followed until the tier mover is restarted (it resumes "
        + "from its state file {})", th.getName(), stateFile, ex));
    }
  }

  /**
   * Starts following renames on the NameNode at {@code nameNode}, from the transaction saved in
   * {@code stateFile} or, on a first start, from the NameNode's current one.
   */
  public static TierMover start(Configuration conf, URI nameNode, java.nio.file.Path stateFile)
    throws IOException {
    return start(conf, nameNode, stateFile, null);
  }

  /**
   * As {@link #start(Configuration, URI, java.nio.file.Path)}, asking {@code satisfier} whether
   * a Storage Policy Satisfier runs; null asks the NameNode whether its mover id file is held
   * ({@link MoverIdHolder}).
   */
  public static TierMover start(Configuration conf, URI nameNode, java.nio.file.Path stateFile,
    SatisfierHealth satisfier) throws IOException {
    FileSystem fs = FileSystem.newInstance(nameNode, conf);
    if (!(fs instanceof DistributedFileSystem)) {
      fs.close();
      throw new IllegalArgumentException(nameNode + " is not HDFS");
    }
    DistributedFileSystem dfs = (DistributedFileSystem) fs;
    TierMover mover;
    try {
      TierMoverState state = TierMoverState.load(stateFile);
      mover = new TierMover(dfs, conf, stateFile, state);
      mover.satisfierHealth = satisfier != null ? satisfier : new MoverIdHolder(dfs);
      mover.watchSatisfier(true);
      if (mover.txid == TierMoverState.NO_TXID) {
        mover.txid = dfs.getClient().getNamenode().getCurrentEditLogTxid();
        LOG.info("Tier mover: first start on {}, following renames under {} from transaction {}",
          nameNode, mover.followed, mover.txid);
      } else {
        LOG.info("Tier mover: resuming on {} from transaction {} with {} paths still to place "
          + "(state {})", nameNode, mover.txid, state.pending().size(), stateFile);
      }
      mover.save();
    } catch (IOException | RuntimeException e) {
      dfs.close();
      throw e;
    }
    mover.events.start();
    mover.checker.start();
    return mover;
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

  private void followRenames() {
    EventSource stream = null;
    long lastSave = System.currentTimeMillis();
    long backoffMs = 500;
    boolean outage = false;
    boolean full = false;
    long lastFullLog = 0;
    while (running) {
      try {
        if (stream == null) {
          stream = open(txid);
        }
        if (pending.size() >= maxQueued) {
          // The transaction id is a position: waiting here loses nothing while the NameNode
          // keeps its edits, and holds memory to the bound.
          long now = System.currentTimeMillis();
          if (!full && now - lastFullLog >= 60_000) {
            lastFullLog = now;
            LOG.info("Tier mover: {} paths queued ({}); reading further renames once some are "
              + "placed (logged at most once a minute)", pending.size(),
              HdfsKeys.TIERMOVER_MAX_QUEUED);
          }
          full = true;
          Thread.sleep(ROOM_WAIT_MS);
        } else {
          full = false;
          readRound(stream, MAX_BATCHES_PER_ROUND, () -> pending.size() < maxQueued,
            this::takeIn, this::recordGap);
          txidsBehind = stream.txidsBehind();
          if (outage) {
            LOG.info("Tier mover: reading the NameNode's edits again from transaction {}", txid);
            outage = false;
            backoffMs = 500;
          }
        }
        long now = System.currentTimeMillis();
        if (dirty && now - lastSave >= saveIntervalMs) {
          save();
          lastSave = now;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (IOException | RuntimeException e) {
        if (!running) {
          return;
        }
        if (!outage) {
          LOG.warn("Tier mover: cannot read edits from the NameNode or save {} ({}); retrying "
            + "from transaction {}, no rename is skipped", stateFile, e.toString(), txid);
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
    dirty = true;
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
    dirty = true;
    LOG.warn("Tier mover: the NameNode no longer has transactions {} to {} ({} transactions, "
      + "purged before the mover read them); renames in them are NOT followed and files renamed "
      + "then may stay on their old tier. Recover with 'strata mover -p DIR' on the directories "
      + "files were renamed into in that time (for an HBase table: 'strata migrate --table "
      + "TABLE'). Going on from transaction {}. To keep edits for a longer stop, raise "
      + "dfs.namenode.num.extra.edits.retained", first, last, lost, last + 1);
  }

  private boolean follows(String path) {
    return settings.follows(path);
  }

  /**
   * Takes in a renamed path. No NameNode call here: the checker finds out whether it is a file
   * or a directory when it is due, so a rename of a large tree costs the reader nothing.
   */
  private void accept(String dst, long renamedAt) {
    if (!follows(dst)) {
      return;
    }
    long now = System.currentTimeMillis();
    eventLag.add(Math.max(0, now - renamedAt));
    enqueue(dst, renamedAt, now, now + settleMs);
  }

  private Entry enqueue(String path, long renamedAt, long now, long dueAt) {
    Entry e = new Entry(path, renamedAt, now, dueAt);
    synchronized (lock) {
      add(e);
    }
    due.add(e);
    return e;
  }

  /** Under {@link #lock}. A path renamed again replaces its entry (a directory starts over). */
  private void add(Entry e) {
    Entry old = pending.put(e.path, e);
    if (old != null && old.directory) {
      directories--;
    }
    peakQueued = Math.max(peakQueued, pending.size());
    accepted.incrementAndGet();
    dirty = true;
  }

  /**
   * Looks at the satisfier (at most every {@link #SATISFIER_CHECK_MS} unless {@code now}) and
   * says when it stops or comes back, and when requests make no progress though one runs.
   */
  private void watchSatisfier(boolean now) {
    long t = System.currentTimeMillis();
    if (!now && t - satisfierCheckedAt < SATISFIER_CHECK_MS) {
      return;
    }
    satisfierCheckedAt = t;
    SatisfierStatus s;
    try {
      s = satisfierHealth.status();
    } catch (IOException | RuntimeException e) {
      // The NameNode does not answer: the checks of the queued files retry and say so.
      return;
    }
    SatisfierStatus before = satisfier;
    satisfier = s;
    if (!s.running() && (before == null || before.running())) {
      LOG.warn("Tier mover: no Storage Policy Satisfier is running for {} ({}); the {} queued "
        + "paths cannot reach their tier until one runs and are not given up meanwhile: {}",
        dfs.getUri(), s.where(), pending.size(), MoverIdHolder.howToStart());
    } else if (s.running() && before != null && !before.running()) {
      LOG.info("Tier mover: a Storage Policy Satisfier runs for {} again ({})", dfs.getUri(),
        s.where());
    }
    if (s.running() && !stallReported && requestedSinceMoveAt != 0
      && t - requestedSinceMoveAt > noProgressMs) {
      LOG.warn("Tier mover: no file has reached its tier for {} s since the Storage Policy "
        + "Satisfier was asked to move it ({} queued); the satisfier is {}: is it stuck, did it "
        + "die (a dead process keeps the mover id file until its lease expires), or do the "
        + "DataNodes lack volumes of the policies' storage types with free space?",
        (t - requestedSinceMoveAt) / 1000, pending.size(), s);
      stallReported = true;
    }
  }

  private boolean satisfierRunning() {
    SatisfierStatus s = satisfier;
    return s == null || s.running();
  }

  private void checkQueued() {
    while (running) {
      watchSatisfier(false);
      Entry e;
      try {
        e = due.poll(500, TimeUnit.MILLISECONDS);
      } catch (InterruptedException ie) {
        Thread.currentThread().interrupt();
        return;
      }
      if (e == null || pending.get(e.path) != e) {
        continue;
      }
      try {
        if (e.directory) {
          list(e);
        } else {
          check(e);
        }
      } catch (IOException | RuntimeException ex) {
        if (!running) {
          return;
        }
        LOG.debug("Tier mover: cannot check {} now ({}); retrying", e.path, ex.toString());
        reschedule(e, checkMaxMs);
      }
    }
  }

  private void check(Entry e) throws IOException {
    long now = System.currentTimeMillis();
    if (!e.file) {
      HdfsFileStatus st = dfs.getClient().getFileInfo(e.path);
      if (st == null) {
        // Deleted, or renamed again: a later rename event covers its new name.
        finish(e, gone);
        return;
      }
      if (st.isDirectory()) {
        synchronized (lock) {
          if (pending.get(e.path) != e) {
            return;
          }
          e.directory = true;
          directories++;
          dirty = true;
        }
        list(e);
        return;
      }
      if (st.isSymlink()) {
        finish(e, inPlace);
        return;
      }
      e.file = true;
    }
    PlacementCheck.Placement p;
    try {
      p = PlacementCheck.inspect(dfs, new Path(e.path));
    } catch (FileNotFoundException gone) {
      finish(e, this.gone);
      return;
    }
    if (p.misplaced().isEmpty()) {
      if (e.placedAt == 0) {
        e.placedAt = now;
      }
      // A storage policy change is no inotify event: a policy set after this look would go
      // unnoticed, so a file found in place is looked at once more, recheckMs after it was taken
      // in. A closed file without blocks has nothing to move, whatever its policy becomes.
      boolean nothingToMove = p.blocks() == 0 && !p.underConstruction();
      long recheckAt = e.acceptedAt + recheckMs;
      if (!nothingToMove && now < recheckAt) {
        reschedule(e, recheckAt - now);
        return;
      }
      if (e.lastRequest == 0) {
        finish(e, inPlace);
      } else {
        moveLag.add(Math.max(0, e.placedAt - e.renamedAt));
        finish(e, moved);
        requestedSinceMoveAt = 0;
        stallReported = false;
        LOG.debug("Tier mover: {} is on {} {} ms after its rename", e.path, p.policy().getName(),
          e.placedAt - e.renamedAt);
      }
      return;
    }
    e.placedAt = 0;
    // A file waiting for a satisfier that does not run is not a failure to place it.
    if (now - e.acceptedAt > giveUpMs && satisfierRunning()) {
      LOG.warn("Tier mover: {} still has {} of its blocks off policy {} (wants {}, e.g. block {} "
        + "on {}) {} s after its rename; giving up on it. Do the DataNodes have volumes of these "
        + "storage types with free space, and is the Storage Policy Satisfier running? 'strata "
        + "mover -p {}' retries it", e.path, p.misplaced().size(), p.policy().getName(),
        Arrays.toString(p.policy().getStorageTypes()), p.misplaced().get(0).getBlock(),
        Arrays.toString(p.misplaced().get(0).getStorageTypes()), (now - e.acceptedAt) / 1000,
        e.path);
      finish(e, failed);
      return;
    }
    if (!p.underConstruction() && (e.lastRequest == 0 || now - e.lastRequest >= rerequestMs)) {
      dfs.satisfyStoragePolicy(new Path(e.path));
      requests.incrementAndGet();
      e.lastRequest = now;
      if (requestedSinceMoveAt == 0) {
        requestedSinceMoveAt = now;
      }
    }
    reschedule(e, Math.min(checkMaxMs, checkMs << Math.min(e.checks++, 20)));
  }

  /**
   * Lists a renamed directory's files into the queue, depth first in name order, as far as the
   * queue has room, and remembers where it stopped (its cursor, saved with the state).
   */
  private void list(Entry e) throws IOException {
    if (e.frames == null) {
      e.frames = framesAt(e.path, e.cursor);
    }
    DFSClient client = dfs.getClient();
    int room;
    synchronized (lock) {
      room = maxQueued - (pending.size() - directories);
    }
    int listings = 0;
    while (room > 0 && !e.frames.isEmpty() && listings++ < LISTINGS_PER_TURN) {
      Frame f = e.frames.peek();
      DirectoryListing l;
      try {
        l = client.listPaths(f.dir, f.after, false);
      } catch (FileNotFoundException gone) {
        l = null;
      }
      long now = System.currentTimeMillis();
      synchronized (lock) {
        if (pending.get(e.path) != e) {
          return;
        }
        if (l == null) {
          // Deleted or renamed away meanwhile; a rename is an event of its own.
          e.frames.pop();
          continue;
        }
        // Again under the lock: the reader may have queued renames since the last look.
        room = maxQueued - (pending.size() - directories);
        if (room <= 0) {
          break;
        }
        HdfsFileStatus[] part = l.getPartialListing();
        int used = 0;
        boolean descended = false;
        for (HdfsFileStatus s : part) {
          used++;
          String child = child(f.dir, s.getLocalName());
          f.after = s.getLocalNameInBytes();
          if (s.isDirectory()) {
            e.frames.push(new Frame(child));
            descended = true;
            break;
          }
          if (s.isSymlink()) {
            continue;
          }
          // The directory already waited the settle time: its files are due now.
          Entry file = new Entry(child, e.renamedAt, now, now);
          file.file = true;
          add(file);
          due.add(file);
          e.cursor = child;
          dirty = true;
          if (--room <= 0) {
            break;
          }
        }
        if (!descended && used == part.length && !l.hasMore()) {
          e.frames.pop();
        }
      }
    }
    if (e.frames.isEmpty()) {
      finish(e, listed);
    } else {
      reschedule(e, room > 0 ? 0 : ROOM_WAIT_MS);
    }
  }

  private static String child(String dir, String name) {
    return dir.endsWith("/") ? dir + name : dir + "/" + name;
  }

  /** The listing position of a directory whose last file handed out is {@code cursor}. */
  static Deque<Frame> framesAt(String root, String cursor) {
    Deque<Frame> frames = new ArrayDeque<>();
    frames.push(new Frame(root));
    String prefix = root.endsWith("/") ? root : root + "/";
    if (cursor == null || !cursor.startsWith(prefix)) {
      return frames;
    }
    String[] parts = cursor.substring(prefix.length()).split("/");
    String dir = root;
    for (int i = 0; i < parts.length; i++) {
      // Listing resumes after this name; below a directory, after its own last name.
      frames.peek().after = parts[i].getBytes(StandardCharsets.UTF_8);
      if (i < parts.length - 1) {
        dir = child(dir, parts[i]);
        frames.push(new Frame(dir));
      }
    }
    return frames;
  }

  private void reschedule(Entry e, long delayMs) {
    e.dueAt = System.currentTimeMillis() + delayMs;
    if (running) {
      due.add(e);
    }
  }

  private void finish(Entry e, AtomicLong outcome) {
    synchronized (lock) {
      if (pending.remove(e.path, e)) {
        if (e.directory) {
          directories--;
        }
        outcome.incrementAndGet();
        dirty = true;
      }
    }
  }

  private void save() throws IOException {
    synchronized (saveLock) {
      long at;
      List<TierMoverState.Pending> snapshot = new ArrayList<>();
      synchronized (lock) {
        dirty = false;
        // The position first: every rename up to it is queued already (or finished).
        at = txid;
        for (Entry e : pending.values()) {
          snapshot.add(new TierMoverState.Pending(e.path, e.renamedAt, e.directory,
            e.directory ? e.cursor : null));
        }
      }
      try {
        savedBytes.addAndGet(new TierMoverState(at, snapshot).save(stateFile));
        saves.incrementAndGet();
      } catch (IOException | RuntimeException ex) {
        dirty = true;
        throw ex;
      }
    }
  }

  /** Counters and lags since start. */
  public Status status() {
    int dirs;
    synchronized (lock) {
      dirs = directories;
    }
    return new Status(txid, txidsBehind, renames.get(), accepted.get(), pending.size(),
      inPlace.get(), moved.get(), failed.get(), gone.get(), requests.get(), moveLag.snapshot(),
      eventLag.snapshot(), dirs, listed.get(), peakQueued, gaps.get(), missedTxids.get(),
      lastGapFirst, lastGapLast, saves.get(), savedBytes.get(), satisfier);
  }

  /** Stops following, saves the state, and closes the NameNode connection. */
  @Override
  public void close() throws IOException {
    running = false;
    events.interrupt();
    checker.interrupt();
    try {
      events.join(10_000);
      checker.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      save();
      LOG.info("Tier mover stopped at transaction {} with {} paths still to place (saved in {})",
        txid, pending.size(), stateFile);
    } finally {
      dfs.close();
    }
  }

  /** One directory being listed, and the last name taken from it. Checker thread only. */
  static final class Frame {
    final String dir;
    byte[] after = HdfsFileStatus.EMPTY_NAME;

    Frame(String dir) {
      this.dir = dir;
    }
  }

  private static final class Entry implements Delayed {
    final String path;
    final long renamedAt;
    final long acceptedAt;
    volatile long dueAt;
    /** Checker thread only. */
    long lastRequest;
    long placedAt;
    int checks;
    boolean file;
    Deque<Frame> frames;
    /** Set under {@link TierMover#lock}. */
    volatile boolean directory;
    volatile String cursor;

    Entry(String path, long renamedAt, long acceptedAt, long dueAt) {
      this.path = path;
      this.renamedAt = renamedAt;
      this.acceptedAt = acceptedAt;
      this.dueAt = dueAt;
    }

    @Override
    public long getDelay(TimeUnit unit) {
      return unit.convert(dueAt - System.currentTimeMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public int compareTo(Delayed o) {
      return Long.compare(dueAt, ((Entry) o).dueAt);
    }
  }

  /** A snapshot of the tier mover's progress. Lags are in milliseconds. */
  public static final class Status {
    public final long txid;
    public final long txidsBehind;
    public final long renames;
    public final long accepted;
    public final long queued;
    public final long alreadyInPlace;
    public final long moved;
    public final long failed;
    public final long gone;
    public final long requests;
    /** Rename to replicas seen on the policy's storage types, for the files that moved. */
    public final LagSamples.Snapshot moveLag;
    /** Rename to the mover taking it in. */
    public final LagSamples.Snapshot eventLag;
    /** Of {@link #queued}: renamed directories whose files are being listed. */
    public final long directoriesQueued;
    /** Renamed directories whose files have all been listed. */
    public final long directoriesListed;
    /** The most paths queued at once (the memory held), bounded by strata.tiermover.max.queued. */
    public final long queuedPeak;
    /** Gaps in the NameNode's edits (purged before they were read): renames there are lost. */
    public final long gaps;
    public final long missedTxids;
    /** The last gap's first and last transaction, -1 without a gap. */
    public final long lastGapFirstTxid;
    public final long lastGapLastTxid;
    /** State file saves and the bytes they wrote. */
    public final long stateSaves;
    public final long stateBytesWritten;
    /** The Storage Policy Satisfier as last seen, null before the first look. */
    public final SatisfierStatus satisfier;

    Status(long txid, long txidsBehind, long renames, long accepted, long queued,
      long alreadyInPlace, long moved, long failed, long gone, long requests,
      LagSamples.Snapshot moveLag, LagSamples.Snapshot eventLag, long directoriesQueued,
      long directoriesListed, long queuedPeak, long gaps, long missedTxids,
      long lastGapFirstTxid, long lastGapLastTxid, long stateSaves, long stateBytesWritten,
      SatisfierStatus satisfier) {
      this.txid = txid;
      this.txidsBehind = txidsBehind;
      this.renames = renames;
      this.accepted = accepted;
      this.queued = queued;
      this.alreadyInPlace = alreadyInPlace;
      this.moved = moved;
      this.failed = failed;
      this.gone = gone;
      this.requests = requests;
      this.moveLag = moveLag;
      this.eventLag = eventLag;
      this.directoriesQueued = directoriesQueued;
      this.directoriesListed = directoriesListed;
      this.queuedPeak = queuedPeak;
      this.gaps = gaps;
      this.missedTxids = missedTxids;
      this.lastGapFirstTxid = lastGapFirstTxid;
      this.lastGapLastTxid = lastGapLastTxid;
      this.stateSaves = stateSaves;
      this.stateBytesWritten = stateBytesWritten;
      this.satisfier = satisfier;
    }

    /** The status as the {@code tier_mover} object of Strata's JSON reports. */
    public ObjectNode toJson() {
      ObjectNode n = JsonNodeFactory.instance.objectNode();
      n.put("txid", txid);
      n.put("txids_behind", txidsBehind);
      n.put("renames", renames);
      n.put("files_accepted", accepted);
      n.put("queued", queued);
      n.put("moved", moved);
      n.put("already_in_place", alreadyInPlace);
      n.put("gone", gone);
      n.put("failed", failed);
      n.put("move_requests", requests);
      lagJson(n.putObject("move_lag_ms"), moveLag);
      lagJson(n.putObject("event_lag_ms"), eventLag);
      n.put("directories_queued", directoriesQueued);
      n.put("directories_listed", directoriesListed);
      n.put("queued_peak", queuedPeak);
      n.put("gaps", gaps);
      n.put("missed_txids", missedTxids);
      n.put("last_gap_first_txid", lastGapFirstTxid);
      n.put("last_gap_last_txid", lastGapLastTxid);
      n.put("state_saves", stateSaves);
      n.put("state_bytes_written", stateBytesWritten);
      if (satisfier == null) {
        n.putNull("satisfier");
      } else {
        n.set("satisfier", satisfier.toJson());
      }
      return n;
    }

    private static void lagJson(ObjectNode n, LagSamples.Snapshot s) {
      n.put("count", s.count);
      n.put("p50", s.p50);
      n.put("p99", s.p99);
      n.put("max", s.max);
    }

    @Override
    public String toString() {
      String line = String.format(java.util.Locale.ROOT, "transaction %d (%s behind): %d renames, "
        + "%d files taken in, %d queued (%d directories being listed, peak %d), %d moved, %d "
        + "already in place, %d gone, %d failed; move lag ms p50 %d p99 %d max %d", txid,
        txidsBehind < 0 ? "?" : Long.toString(txidsBehind), renames, accepted, queued,
        directoriesQueued, queuedPeak, moved, alreadyInPlace, gone, failed, moveLag.p50,
        moveLag.p99, moveLag.max);
      if (satisfier != null && (!satisfier.running() || satisfier.restarts() > 0)) {
        line += "; Storage Policy Satisfier " + satisfier;
      }
      if (gaps > 0) {
        line += String.format(java.util.Locale.ROOT, "; LOST %d transactions in %d gaps (last: "
          + "transactions %d to %d, purged by the NameNode before they were read): renames then "
          + "were not followed, run 'strata mover -p DIR' on the directories renamed into",
          missedTxids, gaps, lastGapFirstTxid, lastGapLastTxid);
      }
      return line;
    }
  }
}
