package io.strata.hdfs.tiermover;

import io.strata.compat.VersionCheck;
import io.strata.hdfs.HdfsKeys;
import io.strata.hdfs.sps.MoverIdHolder;
import io.strata.hdfs.sps.SatisfierHealth;
import java.io.Closeable;
import java.io.IOException;
import java.net.URI;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.DistributedFileSystem;
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
 * <p>This class wires the pieces and owns their life cycle: {@link RenameFollower} (the reading
 * thread), {@link PendingChecks} (the queue and the checker thread), {@link StateSaver} (the
 * state file) and {@link SatisfierWatch} (whether a Storage Policy Satisfier runs).
 *
 * <p>Threads: one reads the NameNode's edits (and saves the state), one checks the queued paths;
 * {@link #status()} may be called from any thread, {@link #close()} once from any thread.
 */
public final class TierMover implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(TierMover.class);

  private final DistributedFileSystem dfs;
  private final SatisfierWatch satisfier;
  private final PendingChecks queue;
  private final StateSaver saver;
  private final RenameFollower follower;
  private volatile boolean running = true;
  private final org.apache.hadoop.fs.Path agingDir;
  /** The last sum of the RegionServers' aging reports, and when it was read (status threads). */
  private TierMoverStatus.Aging aging = TierMoverStatus.Aging.NONE;
  private long agingReadMs = Long.MIN_VALUE;
  private final Thread events;
  private final Thread checker;

  private TierMover(DistributedFileSystem dfs, TierMoverSettings settings,
    java.nio.file.Path stateFile, TierMoverState state, SatisfierHealth health) {
    this.dfs = dfs;
    this.agingDir = new org.apache.hadoop.fs.Path(settings.agingDir());
    this.satisfier = new SatisfierWatch(health, dfs.getUri(), settings.noProgressMs());
    this.queue = new PendingChecks(dfs, settings, this::running, this::stateChanged, satisfier);
    this.saver = new StateSaver(stateFile, queue, this::txid);
    this.follower = new RenameFollower(dfs, settings, queue, saver, this::running, state.txid());
    queue.restore(state.pending());
    this.events = new Thread(follower::run, "strata-tier-mover-events");
    this.checker = new Thread(queue::run, "strata-tier-mover-checker");
    for (Thread t : new Thread[] { events, checker }) {
      t.setDaemon(true);
      // Both catch what they expect; anything else ends the thread, and that must not be silent.
      t.setUncaughtExceptionHandler((th, ex) -> LOG.error("Tier mover: thread {} stopped "
        + "unexpectedly; renames are not followed until the tier mover is restarted (it resumes "
        + "from its state file {})", th.getName(), stateFile, ex));
    }
  }

  private boolean running() {
    return running;
  }

  private void stateChanged() {
    saver.markDirty();
  }

  private long txid() {
    return follower.txid();
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
    VersionCheck.hadoopPlugin("TierMover", HdfsKeys.versionCheck(conf));
    FileSystem fs = FileSystem.newInstance(nameNode, conf);
    if (!(fs instanceof DistributedFileSystem)) {
      fs.close();
      throw new IllegalArgumentException(nameNode + " is not HDFS");
    }
    DistributedFileSystem dfs = (DistributedFileSystem) fs;
    TierMover mover;
    try {
      TierMoverState state = TierMoverState.load(stateFile);
      TierMoverSettings settings = TierMoverSettings.from(conf);
      mover = new TierMover(dfs, settings, stateFile, state,
        satisfier != null ? satisfier : new MoverIdHolder(dfs));
      mover.satisfier.look(true, mover.queue::size);
      if (mover.follower.txid() == TierMoverState.NO_TXID) {
        mover.follower.startAt(dfs.getClient().getNamenode().getCurrentEditLogTxid());
        LOG.info("Tier mover: first start on {}, following renames under {} from transaction {}",
          nameNode, settings.followed(), mover.follower.txid());
      } else {
        LOG.info("Tier mover: resuming on {} from transaction {} with {} paths still to place "
          + "(state {})", nameNode, mover.follower.txid(), state.pending().size(), stateFile);
      }
      mover.saver.save();
    } catch (IOException | RuntimeException e) {
      dfs.close();
      throw e;
    }
    mover.events.start();
    mover.checker.start();
    return mover;
  }

  /** Counters and lags since start. */
  public TierMoverStatus status() {
    TierMoverStatus.Queue q = queue.queue();
    return new TierMoverStatus(follower.position(), queue.files(follower.renames()), q,
      new TierMoverStatus.Lags(queue.moveLag(), follower.eventLag()), follower.gaps(),
      saver.status(), satisfier.last(), aging());
  }

  /** How often the aging reports are read again: status is asked for often, they change less. */
  static final long AGING_READ_INTERVAL_MS = 5_000;

  /**
   * The RegionServers' age chores as they last reported ({@link ReplacementReport}), read from
   * {@link HdfsKeys#TIERMOVER_AGING_DIR} at most every {@link #AGING_READ_INTERVAL_MS}. A failed
   * read keeps the last sum and says why; it does not stop the tier mover.
   */
  private synchronized TierMoverStatus.Aging aging() {
    long now = System.currentTimeMillis();
    if (agingReadMs != Long.MIN_VALUE && now - agingReadMs < AGING_READ_INTERVAL_MS) {
      return aging;
    }
    agingReadMs = now;
    try {
      aging = TierMoverStatus.Aging.of(ReplacementReport.readAll(dfs, agingDir), now);
    } catch (IOException | RuntimeException e) {
      if (aging.error() == null) {
        LOG.warn("Tier mover: cannot read the RegionServers' aging reports in {} ({}); the "
          + "status keeps their last sum until they can be read", agingDir, e.toString());
      }
      aging = aging.failed(e.toString());
    }
    return aging;
  }

  /**
   * Why the tier mover cannot do its work now, or null: one of its threads ended unexpectedly
   * (renames are not followed until it is restarted), or it cannot read the NameNode's edits.
   */
  public String trouble() {
    if (!running) {
      return "stopped";
    }
    for (Thread t : new Thread[] { events, checker }) {
      if (!t.isAlive()) {
        return "thread " + t.getName() + " stopped unexpectedly (see the log); restart the tier "
          + "mover";
      }
    }
    String e = follower.readError();
    return e == null ? null : "cannot read the NameNode's edits or save the state: " + e;
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
      saver.save();
      LOG.info("Tier mover stopped at transaction {} with {} paths still to place (saved in {})",
        follower.txid(), queue.size(), saver.stateFile());
    } finally {
      dfs.close();
    }
  }
}
