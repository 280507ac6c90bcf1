package io.strata.hdfs.tiermover;

import io.strata.hdfs.mover.PlacementCheck;
import io.strata.hdfs.sps.SatisfierMarks;
import java.io.FileNotFoundException;
import java.io.IOException;
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
import java.util.function.LongSupplier;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DFSClient;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.DirectoryListing;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tier mover's queue of renamed paths not yet placed, and the checks that place them: each
 * path is looked at when due (after the settle time, then at growing intervals), its misplaced
 * blocks handed to the Storage Policy Satisfier, a file found in place looked at once more after
 * the recheck time, a file that stays misplaced given up on; a renamed directory is listed in
 * chunks as room frees up under the bound of queued paths, its listing position (cursor) kept for
 * the state file.
 *
 * <p>Threads: {@link #run} is the checker thread's loop, the only caller of the checks; the
 * reading thread adds renamed paths ({@link #accept}); {@link #size}, {@link #hasRoom} and
 * {@link #status} may be called from any thread. Adding and removing entries, the count of
 * directories, cursors and {@link #snapshot}s are done under one lock, so a snapshot never holds a
 * directory position past a file that is not in it.
 */
final class PendingChecks {
  /** The tier mover's logger, so that operators' log settings for it cover this piece too. */
  private static final Logger LOG = LoggerFactory.getLogger(TierMover.class);
  /** How long a full queue waits before looking for room again. */
  static final long ROOM_WAIT_MS = 100;
  /** NameNode listings per turn of one directory, so other due files are not held up long. */
  private static final int LISTINGS_PER_TURN = 4;

  private final DistributedFileSystem dfs;
  private final TierMoverSettings settings;
  private final BooleanSupplier running;
  /** Told of every change the state file holds. */
  private final Runnable changed;
  private final SatisfierWatch satisfier;

  /** Guards adding and removing entries, {@link #directories}, cursors and state snapshots. */
  private final Object lock = new Object();
  private final Map<String, Entry> pending = new ConcurrentHashMap<>();
  private final DelayQueue<Entry> due = new DelayQueue<>();
  private final LagSamples moveLag = new LagSamples();
  private final AtomicLong accepted = new AtomicLong();
  private final AtomicLong inPlace = new AtomicLong();
  private final AtomicLong moved = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private final AtomicLong gone = new AtomicLong();
  private final AtomicLong requests = new AtomicLong();
  private final AtomicLong staleMarksCleared = new AtomicLong();
  private final SatisfierMarks marks;
  private final AtomicLong listed = new AtomicLong();
  /** Entries that are directories being listed; under {@link #lock}. */
  private int directories;
  private volatile long peakQueued;

  PendingChecks(DistributedFileSystem dfs, TierMoverSettings settings, BooleanSupplier running,
    Runnable changed, SatisfierWatch satisfier) {
    this.dfs = dfs;
    this.settings = settings;
    this.running = running;
    this.changed = changed;
    this.satisfier = satisfier;
    this.marks = new SatisfierMarks(dfs, settings.spsJournalDir());
  }

  /** Queues the paths of a saved state, due after the settle time. */
  void restore(List<TierMoverState.Pending> saved) {
    long now = System.currentTimeMillis();
    for (TierMoverState.Pending p : saved) {
      Entry e = enqueue(p.path(), p.renamedAt(), now, now + settings.settleMs());
      if (p.directory()) {
        synchronized (lock) {
          e.directory = true;
          e.cursor = p.cursor();
          directories++;
        }
      }
    }
  }

  /**
   * Takes in a path renamed at {@code renamedAt}, due after the settle time. No NameNode call
   * here: the checker finds out whether it is a file or a directory when it is due, so a rename
   * of a large tree costs the reader nothing.
   */
  void accept(String path, long renamedAt, long now) {
    enqueue(path, renamedAt, now, now + settings.settleMs());
  }

  /** Paths held, files and directories. */
  int size() {
    return pending.size();
  }

  /** Whether the bound of queued paths leaves room for more renames. */
  boolean hasRoom() {
    return pending.size() < settings.maxQueued();
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
    changed.run();
  }

  /** The checker thread's loop, until the tier mover stops. */
  void run() {
    while (running.getAsBoolean()) {
      satisfier.look(false, pending::size);
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
        if (!running.getAsBoolean()) {
          return;
        }
        LOG.debug("Tier mover: cannot check {} now ({}); retrying", e.path, ex.toString());
        reschedule(e, settings.checkMaxMs());
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
          changed.run();
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
      long recheckAt = e.acceptedAt + settings.recheckMs();
      if (!nothingToMove && now < recheckAt) {
        reschedule(e, recheckAt - now);
        return;
      }
      if (e.lastRequest == 0) {
        finish(e, inPlace);
      } else {
        moveLag.add(Math.max(0, e.placedAt - e.renamedAt));
        finish(e, moved);
        satisfier.moved();
        LOG.debug("Tier mover: {} is on {} {} ms after its rename", e.path, p.policy().getName(),
          e.placedAt - e.renamedAt);
      }
      return;
    }
    e.placedAt = 0;
    // A file waiting for a satisfier that does not run is not a failure to place it.
    if (now - e.acceptedAt > settings.giveUpMs() && satisfier.running()) {
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
    if (!p.underConstruction()
      && (e.lastRequest == 0 || now - e.lastRequest >= settings.rerequestMs())) {
      if (e.lastRequest == 0) {
        dfs.satisfyStoragePolicy(new Path(e.path));
      } else {
        // Asked before and still misplaced: the NameNode ignores a file that keeps its "being
        // satisfied" mark, so a mark no satisfier holds (one died holding the file) is cleared.
        rerequest(e.path);
      }
      requests.incrementAndGet();
      e.lastRequest = now;
      satisfier.requested(now);
    }
    reschedule(e, Math.min(settings.checkMaxMs(), settings.checkMs() << Math.min(e.checks++, 20)));
  }

  private void rerequest(String path) throws IOException {
    try {
      if (marks.request(new Path(path)) == SatisfierMarks.Outcome.CLEARED_STALE_MARK) {
        staleMarksCleared.incrementAndGet();
        LOG.warn("Tier mover: {} still off its tier kept a Storage Policy Satisfier mark that no "
          + "satisfier holds (one died holding it; the NameNode ignores requests for a marked "
          + "file); cleared it and asked again", path);
      }
    } catch (org.apache.hadoop.security.AccessControlException denied) {
      LOG.warn("Tier mover: {}; asking without clearing it", denied.getMessage());
      dfs.satisfyStoragePolicy(new Path(path));
    }
  }

  /** Stale satisfier marks cleared before asking again. */
  long staleMarksCleared() {
    return staleMarksCleared.get();
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
    int maxQueued = settings.maxQueued();
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
          changed.run();
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
    if (running.getAsBoolean()) {
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
        changed.run();
      }
    }
  }

  /**
   * The state to save: under the lock, {@code position} first (it may only name a transaction
   * whose renames are all queued or finished), then the paths not yet placed.
   */
  TierMoverState snapshot(LongSupplier position) {
    List<TierMoverState.Pending> snapshot = new ArrayList<>();
    long at;
    synchronized (lock) {
      at = position.getAsLong();
      for (Entry e : pending.values()) {
        snapshot.add(new TierMoverState.Pending(e.path, e.renamedAt, e.directory,
          e.directory ? e.cursor : null));
      }
    }
    return new TierMoverState(at, snapshot);
  }

  /** What became of the paths taken in, without the rename count (the reader's). */
  TierMoverStatus.Files files(long renames) {
    return new TierMoverStatus.Files(renames, accepted.get(), inPlace.get(), moved.get(),
      failed.get(), gone.get(), requests.get());
  }

  TierMoverStatus.Queue queue() {
    int dirs;
    synchronized (lock) {
      dirs = directories;
    }
    return new TierMoverStatus.Queue(pending.size(), dirs, listed.get(), peakQueued);
  }

  LagSamples.Snapshot moveLag() {
    return moveLag.snapshot();
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
    /** Set under {@link PendingChecks#lock}. */
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
}
