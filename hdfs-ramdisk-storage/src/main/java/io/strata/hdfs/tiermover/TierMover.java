package io.strata.hdfs.tiermover;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.strata.hdfs.HdfsKeys;
import io.strata.hdfs.mover.PlacementCheck;
import java.io.Closeable;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.DelayQueue;
import java.util.concurrent.Delayed;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.hdfs.DFSInotifyEventInputStream;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.inotify.Event;
import org.apache.hadoop.hdfs.inotify.EventBatch;
import org.apache.hadoop.hdfs.inotify.MissingEventsException;
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
 * transaction taken in and the accepted files not yet placed are saved in a state file.
 */
public final class TierMover implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(TierMover.class);
  private static final int MAX_BATCHES_PER_ROUND = 1_000;
  private static final long IDLE_SAVE_MS = 2_000;

  private final DistributedFileSystem dfs;
  private final java.nio.file.Path stateFile;
  private final List<String> followed;
  private final long settleMs;
  private final long checkMs;
  private final long checkMaxMs;
  private final long rerequestMs;
  private final long giveUpMs;

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
  private final Object saveLock = new Object();

  private volatile long txid;
  private volatile long txidsBehind = -1;
  private volatile boolean running = true;
  private volatile boolean dirty;
  private final Thread events;
  private final Thread checker;

  private TierMover(DistributedFileSystem dfs, Configuration conf, java.nio.file.Path stateFile,
    TierMoverState state) {
    this.dfs = dfs;
    this.stateFile = stateFile;
    this.followed = Arrays.asList(conf.getTrimmedStrings(HdfsKeys.TIERMOVER_PATHS,
      HdfsKeys.TIERMOVER_PATHS_DEFAULT));
    this.settleMs = nonNegative(conf, HdfsKeys.TIERMOVER_SETTLE_MS,
      HdfsKeys.TIERMOVER_SETTLE_MS_DEFAULT);
    this.checkMs = Math.max(1, nonNegative(conf, HdfsKeys.TIERMOVER_CHECK_INTERVAL_MS,
      HdfsKeys.TIERMOVER_CHECK_INTERVAL_MS_DEFAULT));
    this.checkMaxMs = Math.max(checkMs, nonNegative(conf,
      HdfsKeys.TIERMOVER_CHECK_INTERVAL_MAX_MS, HdfsKeys.TIERMOVER_CHECK_INTERVAL_MAX_MS_DEFAULT));
    this.rerequestMs = nonNegative(conf, HdfsKeys.TIERMOVER_REREQUEST_MS,
      HdfsKeys.TIERMOVER_REREQUEST_MS_DEFAULT);
    this.giveUpMs = nonNegative(conf, HdfsKeys.TIERMOVER_GIVE_UP_MS,
      HdfsKeys.TIERMOVER_GIVE_UP_MS_DEFAULT);
    for (String p : followed) {
      if (!p.startsWith("/")) {
        throw new IllegalArgumentException(HdfsKeys.TIERMOVER_PATHS + " entry '" + p
          + "' is not an absolute path");
      }
    }
    this.txid = state.txid();
    long now = System.currentTimeMillis();
    state.pending().forEach((path, renamedAt) -> enqueue(path, renamedAt, now));
    this.events = new Thread(this::followRenames, "strata-tier-mover-events");
    this.checker = new Thread(this::checkQueued, "strata-tier-mover-checker");
    events.setDaemon(true);
    checker.setDaemon(true);
  }

  private static long nonNegative(Configuration conf, String key, long dflt) {
    long v = conf.getTimeDuration(key, dflt, TimeUnit.MILLISECONDS);
    if (v < 0) {
      throw new IllegalArgumentException(key + " must not be negative: " + conf.get(key));
    }
    return v;
  }

  /**
   * Starts following renames on the NameNode at {@code nameNode}, from the transaction saved in
   * {@code stateFile} or, on a first start, from the NameNode's current one.
   */
  public static TierMover start(Configuration conf, URI nameNode, java.nio.file.Path stateFile)
    throws IOException {
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
      if (mover.txid == TierMoverState.NO_TXID) {
        mover.txid = dfs.getClient().getNamenode().getCurrentEditLogTxid();
        LOG.info("Tier mover: first start on {}, following renames under {} from transaction {}",
          nameNode, mover.followed, mover.txid);
      } else {
        LOG.info("Tier mover: resuming on {} from transaction {} with {} files still to place "
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

  private void followRenames() {
    DFSInotifyEventInputStream stream = null;
    long lastSave = System.currentTimeMillis();
    long backoffMs = 500;
    boolean outage = false;
    while (running) {
      try {
        if (stream == null) {
          stream = dfs.getInotifyEventStream(txid);
        }
        EventBatch batch = stream.poll(500, TimeUnit.MILLISECONDS);
        List<EventBatch> batches = new ArrayList<>();
        while (batch != null) {
          batches.add(batch);
          batch = batches.size() < MAX_BATCHES_PER_ROUND ? stream.poll() : null;
        }
        txidsBehind = stream.getTxidsBehindEstimate();
        if (outage) {
          LOG.info("Tier mover: reading the NameNode's edits again from transaction {}", txid);
          outage = false;
          backoffMs = 500;
        }
        for (EventBatch b : batches) {
          for (Event e : b.getEvents()) {
            if (e instanceof Event.RenameEvent) {
              Event.RenameEvent r = (Event.RenameEvent) e;
              renames.incrementAndGet();
              accept(r.getDstPath(), r.getTimestamp());
            }
          }
          txid = b.getTxid();
        }
        long now = System.currentTimeMillis();
        if (!batches.isEmpty() || (dirty && now - lastSave > IDLE_SAVE_MS)) {
          save();
          lastSave = now;
        }
      } catch (MissingEventsException e) {
        LOG.warn("Tier mover: the NameNode no longer has transactions {} to {}; renames in them "
          + "are not followed. Run 'strata mover -p DIR' on directories renamed in that time",
          e.getExpectedTxid(), e.getActualTxid() - 1);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (IOException | RuntimeException e) {
        if (!running) {
          return;
        }
        if (!outage) {
          LOG.warn("Tier mover: cannot read edits from the NameNode ({}); retrying from "
            + "transaction {}, no rename is skipped", e.toString(), txid);
          outage = true;
        }
        // The stream may have read past what was taken in; reopen at the saved position.
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

  private boolean follows(String path) {
    for (String p : followed) {
      if (p.equals("/") || path.equals(p) || path.startsWith(p.endsWith("/") ? p : p + "/")) {
        return true;
      }
    }
    return false;
  }

  /** Takes in a renamed file, or the files below a renamed directory. */
  private void accept(String dst, long renamedAt) throws IOException {
    if (!follows(dst)) {
      return;
    }
    long now = System.currentTimeMillis();
    eventLag.add(Math.max(0, now - renamedAt));
    Path path = new Path(dst);
    FileStatus st;
    try {
      st = dfs.getFileStatus(path);
    } catch (FileNotFoundException e) {
      gone.incrementAndGet();
      return;
    }
    if (!st.isDirectory()) {
      enqueue(dst, renamedAt, now);
      return;
    }
    try {
      RemoteIterator<LocatedFileStatus> it = dfs.listFiles(path, true);
      while (it.hasNext()) {
        enqueue(Path.getPathWithoutSchemeAndAuthority(it.next().getPath()).toString(), renamedAt,
          now);
      }
    } catch (FileNotFoundException e) {
      gone.incrementAndGet();
    }
  }

  private void enqueue(String path, long renamedAt, long now) {
    Entry e = new Entry(path, renamedAt, now, now + settleMs);
    pending.put(path, e);
    due.add(e);
    accepted.incrementAndGet();
    dirty = true;
  }

  private void checkQueued() {
    while (running) {
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
        check(e);
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
    PlacementCheck.Placement p;
    try {
      p = PlacementCheck.inspect(dfs, new Path(e.path));
    } catch (FileNotFoundException gone) {
      // Deleted, or renamed again: a later rename event covers its new name.
      finish(e, this.gone);
      return;
    }
    if (p.misplaced().isEmpty()) {
      if (e.lastRequest == 0) {
        finish(e, inPlace);
      } else {
        moveLag.add(Math.max(0, now - e.renamedAt));
        finish(e, moved);
        LOG.debug("Tier mover: {} is on {} {} ms after its rename", e.path, p.policy().getName(),
          now - e.renamedAt);
      }
      return;
    }
    if (now - e.acceptedAt > giveUpMs) {
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
    }
    reschedule(e, Math.min(checkMaxMs, checkMs << Math.min(e.checks++, 20)));
  }

  private void reschedule(Entry e, long delayMs) {
    e.dueAt = System.currentTimeMillis() + delayMs;
    if (running) {
      due.add(e);
    }
  }

  private void finish(Entry e, AtomicLong outcome) {
    if (pending.remove(e.path, e)) {
      outcome.incrementAndGet();
      dirty = true;
    }
  }

  private void save() throws IOException {
    synchronized (saveLock) {
      dirty = false;
      Map<String, Long> snapshot = new LinkedHashMap<>();
      pending.values().forEach(e -> snapshot.put(e.path, e.renamedAt));
      new TierMoverState(txid, snapshot).save(stateFile);
    }
  }

  /** Counters and lags since start. */
  public Status status() {
    return new Status(txid, txidsBehind, renames.get(), accepted.get(), pending.size(),
      inPlace.get(), moved.get(), failed.get(), gone.get(), requests.get(), moveLag.snapshot(),
      eventLag.snapshot());
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
      LOG.info("Tier mover stopped at transaction {} with {} files still to place (saved in {})",
        txid, pending.size(), stateFile);
    } finally {
      dfs.close();
    }
  }

  private static final class Entry implements Delayed {
    final String path;
    final long renamedAt;
    final long acceptedAt;
    volatile long dueAt;
    long lastRequest;
    int checks;

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

    Status(long txid, long txidsBehind, long renames, long accepted, long queued,
      long alreadyInPlace, long moved, long failed, long gone, long requests,
      LagSamples.Snapshot moveLag, LagSamples.Snapshot eventLag) {
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
      return String.format(java.util.Locale.ROOT, "transaction %d (%s behind): %d renames, %d "
        + "files taken in, %d queued, %d moved, %d already in place, %d gone, %d failed; move "
        + "lag ms p50 %d p99 %d max %d", txid, txidsBehind < 0 ? "?" : Long.toString(txidsBehind),
        renames, accepted, queued, moved, alreadyInPlace, gone, failed, moveLag.p50, moveLag.p99,
        moveLag.max);
    }
  }
}
