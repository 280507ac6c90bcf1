package io.strata.hdfs.sps;

import io.strata.compat.VersionCheck;
import io.strata.hdfs.HdfsKeys;
import java.io.Closeable;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.ObjectName;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.Block;
import org.apache.hadoop.hdfs.protocol.BlockStoragePolicy;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.HdfsConstants;
import org.apache.hadoop.hdfs.protocol.HdfsConstants.StoragePolicySatisfierMode;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;
import org.apache.hadoop.hdfs.protocol.HdfsLocatedFileStatus;
import org.apache.hadoop.hdfs.server.balancer.NameNodeConnector;
import org.apache.hadoop.hdfs.server.common.HdfsServerConstants;
import org.apache.hadoop.hdfs.server.namenode.sps.StoragePolicySatisfier;
import org.apache.hadoop.hdfs.server.protocol.BlockStorageMovementCommand;
import org.apache.hadoop.hdfs.server.sps.ExternalSPSContext;
import org.apache.hadoop.metrics2.util.MBeans;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * HDFS's external Storage Policy Satisfier, run inside the caller's JVM instead of as the
 * {@code hdfs --daemon start sps} process, and supervised. It is what moves the blocks of single
 * files to their storage policy ({@code DistributedFileSystem#satisfyStoragePolicy}) without a
 * namespace scan. The NameNode must run with {@code dfs.storage.policy.satisfier.mode=external}.
 * Like the Mover, it holds {@code /system/mover.id} while it runs, so only one of them can run
 * per namespace.
 *
 * <p>Supervision: upstream's satisfier ends its thread on any unexpected exception, drops the
 * files it had taken from the NameNode (their "being satisfied" mark stays, so asking again for
 * them is ignored), and accepts new requests that nothing serves. Here the end of its thread is
 * seen at once; the cause is logged with the exception, the files it had taken are handed to it
 * again, and it is restarted after a back-off ({@link HdfsKeys#SPS_RESTART_BACKOFF_MS}) that
 * doubles up to {@link HdfsKeys#SPS_RESTART_BACKOFF_MAX_MS} while it keeps failing soon after a
 * restart. Restarts are counted in {@link #status()} and in the JMX bean
 * {@code Hadoop:service=StrataSatisfier,name=Satisfier-<host>-<port>} ({@code Restarts},
 * {@code Running}, {@code LastFailure}, {@code Stalls}, {@code LastStall}).
 *
 * <p>Crashes: the NameNode hands each requested file out once, and ignores new requests for it
 * until the satisfier removes its "being satisfied" mark. Each file taken is journaled in HDFS
 * ({@link SatisfierJournal}, {@link HdfsKeys#SPS_JOURNAL_DIR}) before any work on it and dropped
 * from the journal once its mark is removed; a satisfier that starts re-adopts what the journal
 * names, so files held by one that was killed still reach their tier. A mark is removed before
 * the file is forgotten, never the other way round.
 *
 * <p>Stalls: upstream's satisfier retries a file it cannot move forever and says why only in its
 * debug log, re-reads the live DataNodes and their free space only every 5 minutes, and retries
 * a move whose DataNode went away only after 5 minutes more; meanwhile it looks healthy. Here a
 * satisfier that holds files without finishing one or a block move for
 * {@link HdfsKeys#SPS_STALL_MS} counts as stalled: why each file it holds is not on its tier is
 * logged ({@link StallDiagnosis}), and it is restarted, which re-reads the DataNodes and hands
 * it the files again. While it stays stalled the period doubles, up to 16 times the setting.
 *
 * <p>Thread-safe: the satisfier's own threads call the context; restarts and close are serialised
 * on this object.
 */
public final class InProcessSatisfier implements Closeable, SatisfierHealth {
  private static final Logger LOG = LoggerFactory.getLogger(InProcessSatisfier.class);

  /**
   * Called on the satisfier's thread before it analyses each file it works on (by inode id). A
   * runtime exception thrown here ends that thread as any unexpected exception in the satisfier
   * would; tests use it to check the supervision.
   */
  @FunctionalInterface
  public interface AnalysisHook {
    void beforeAnalysis(long inodeId);
  }

  private final URI nameNode;
  private final NameNodeConnector connector;
  private final Supervised sps;
  private final TrackingContext context;
  private final SatisfierFailureLog failureLog;
  private final ScheduledExecutorService supervisor;
  private final long backoffMs;
  private final long backoffMaxMs;
  private final String threadName;
  private final AtomicLong restarts = new AtomicLong();
  private final AtomicLong stalls = new AtomicLong();
  private final long stallMs;
  private final ObjectName bean;

  private volatile boolean closing;
  private volatile boolean restartPending;
  private volatile String lastFailure;
  private volatile String lastStall;
  /** The context's progress count when the last stall was found; -1 before any. */
  private volatile long stalledAtProgress = -1;
  /** The satisfier's thread now, joined before a restart starts the next one. */
  private volatile Thread satisfierThread;
  /** Set while a stall restart stops the thread, which then must not schedule a restart. */
  private volatile boolean stoppingForStall;
  /** Supervisor thread only: the stall period now (doubles while stalled). */
  private long currentStallMs;
  private long nextBackoffMs;
  private long startedAt;

  private InProcessSatisfier(URI nameNode, Configuration conf, NameNodeConnector connector,
    AnalysisHook hook) {
    this.nameNode = nameNode;
    this.connector = connector;
    this.backoffMs = HdfsKeys.spsRestartBackoffMs(conf);
    this.backoffMaxMs = HdfsKeys.spsRestartBackoffMaxMs(conf);
    this.nextBackoffMs = backoffMs;
    this.stallMs = HdfsKeys.spsStallMs(conf);
    this.currentStallMs = stallMs;
    this.threadName = "StoragePolicySatisfier-" + nameNode.getAuthority();
    this.sps = new Supervised(conf);
    this.context = new TrackingContext(sps, connector, hook, selfRetryMs(conf),
      new SatisfierJournal(connector.getDistributedFileSystem(), HdfsKeys.spsJournalDir(conf)));
    this.failureLog = SatisfierFailureLog.install(threadName);
    this.supervisor = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "strata-sps-supervisor-" + nameNode.getAuthority());
      t.setDaemon(true);
      return t;
    });
    this.bean = MBeans.register("StrataSatisfier", "Satisfier-" + nameNode.getHost() + "-"
      + nameNode.getPort(), new Bean());
  }

  /** Starts a satisfier for the NameNode at {@code nameNode}. */
  public static InProcessSatisfier start(Configuration conf, URI nameNode) throws IOException {
    return start(conf, nameNode, id -> {
    });
  }

  /** Starts a satisfier whose thread calls {@code hook} before each file it analyses. */
  public static InProcessSatisfier start(Configuration conf, URI nameNode, AnalysisHook hook)
    throws IOException {
    VersionCheck.hadoopPlugin("InProcessSatisfier (Storage Policy Satisfier)",
      HdfsKeys.versionCheck(conf));
    String mode = conf.get(DFSConfigKeys.DFS_STORAGE_POLICY_SATISFIER_MODE_KEY,
      DFSConfigKeys.DFS_STORAGE_POLICY_SATISFIER_MODE_DEFAULT);
    if (StoragePolicySatisfierMode.fromString(mode) != StoragePolicySatisfierMode.EXTERNAL) {
      throw new IllegalArgumentException(DFSConfigKeys.DFS_STORAGE_POLICY_SATISFIER_MODE_KEY
        + " is '" + mode + "'; the NameNode must run with 'external' for this satisfier");
    }
    Configuration spsConf = new Configuration(conf);
    if (!CacheRefreshCheck.refreshesOnFirstUse()) {
      // Without patches/hdfs/0003 the satisfier's DataNode cache is first filled only once the
      // machine has been up longer than the interval; refreshing at every use works on any
      // uptime, at the cost of a DataNode report per file analysed.
      LOG.warn("The Storage Policy Satisfier's DataNode cache on this class path is upstream's "
        + "(the strata-hdfs-overlay jar is not ahead of hadoop-hdfs), which does not refresh "
        + "while the machine has been up for less than {}; refreshing it at every file analysed "
        + "instead ({}=0)", DFSConfigKeys.DFS_SPS_DATANODE_CACHE_REFRESH_INTERVAL_MS,
        DFSConfigKeys.DFS_SPS_DATANODE_CACHE_REFRESH_INTERVAL_MS);
      spsConf.setLong(DFSConfigKeys.DFS_SPS_DATANODE_CACHE_REFRESH_INTERVAL_MS, 0);
    }
    NameNodeConnector connector = connect(nameNode, spsConf);
    InProcessSatisfier s;
    try {
      s = new InProcessSatisfier(nameNode, spsConf, connector, hook);
      s.sps.init(s.context);
      // Before taking anything new: the files a satisfier before this one held when it died.
      // The NameNode handed them out once and ignores new requests while their marks stay.
      int adopted = s.context.adoptJournal();
      if (adopted > 0) {
        LOG.warn("Storage Policy Satisfier for {}: re-adopting {} files a previous satisfier "
          + "took from the NameNode and did not finish (journal {}, {})", nameNode, adopted,
          s.context.journal.dir(), HdfsKeys.SPS_JOURNAL_DIR);
      }
      synchronized (s) {
        s.startedAt = System.currentTimeMillis();
        s.sps.start(StoragePolicySatisfierMode.EXTERNAL);
      }
      long period = Math.max(200, Math.min(10_000, s.stallMs / 4));
      s.supervisor.scheduleWithFixedDelay(s::checkProgress, period, period,
        TimeUnit.MILLISECONDS);
    } catch (RuntimeException | IOException e) {
      connector.close();
      throw e;
    }
    LOG.info("Storage Policy Satisfier started for {}", nameNode);
    return s;
  }

  /**
   * The connector, holding {@code /system/mover.id}. A holder killed without stopping keeps the
   * file until the NameNode's lease soft limit (60 s) has passed and its lease is recovered
   * ("Another ... is running", then "lease recovery is in progress"): that is waited out, up to
   * {@link HdfsKeys#SPS_START_WAIT_MS}. A holder still there after it is a live one.
   */
  private static NameNodeConnector connect(URI nameNode, Configuration conf) throws IOException {
    long waitMs = HdfsKeys.spsStartWaitMs(conf);
    long deadline = System.currentTimeMillis() + waitMs;
    boolean said = false;
    while (true) {
      try {
        return new NameNodeConnector(InProcessSatisfier.class.getSimpleName(), nameNode,
          HdfsServerConstants.MOVER_ID_PATH, null, conf,
          NameNodeConnector.DEFAULT_MAX_IDLE_ITERATIONS);
      } catch (IOException e) {
        String msg = String.valueOf(e.getMessage());
        if (!heldByAnother(msg)) {
          throw e;
        }
        if (System.currentTimeMillis() > deadline) {
          throw new IOException(HdfsServerConstants.MOVER_ID_PATH + " on " + nameNode + " is "
            + "still held after " + waitMs + " ms: another Storage Policy Satisfier or a Mover "
            + "runs for this namespace (its host is in the file: hdfs dfs -cat "
            + HdfsServerConstants.MOVER_ID_PATH + "); stop it first (" + e.getMessage() + ")", e);
        }
        if (!said) {
          LOG.warn("{} on {} is held ({}): by another satisfier or Mover, or by one that died "
            + "without stopping, whose lease the NameNode recovers once its soft limit (60 s) "
            + "has passed; waiting up to {} s ({})", HdfsServerConstants.MOVER_ID_PATH, nameNode,
            msg, waitMs / 1000, HdfsKeys.SPS_START_WAIT_MS);
          said = true;
        }
        try {
          Thread.sleep(2000);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw new java.io.InterruptedIOException("interrupted waiting for "
            + HdfsServerConstants.MOVER_ID_PATH);
        }
      }
    }
  }

  /**
   * Whether a failure to take {@code /system/mover.id} says another holder has it (to be waited
   * out): "Another ... is running", "AlreadyBeingCreatedException", or the NameNode recovering
   * the holder's lease, which it words "lease recovery is in progress" or "another recovery is
   * in progress by HOLDER" (upstream's {@code FSNamesystem.recoverLeaseInternal}).
   */
  static boolean heldByAnother(String msg) {
    return msg.contains(" is running") || msg.contains("recovery is in progress")
      || msg.contains("AlreadyBeingCreatedException");
  }

  /** Whether the satisfier's thread runs now (false between a failure and its restart). */
  public boolean isRunning() {
    return sps.isRunning();
  }

  /** Restarts after its thread stopped unexpectedly. */
  public long restarts() {
    return restarts.get();
  }

  @Override
  public SatisfierStatus status() {
    boolean up = !closing && (sps.isRunning() || restartPending);
    return new SatisfierStatus(up, closing ? "stopped in this JVM" : "in this JVM for " + nameNode,
      restarts.get(), lastFailure, stalls.get(), lastStall);
  }

  /**
   * Block moves not dispatched because a move of the same block (same source or target) was
   * still running, e.g. when a stall restart analysed a file again.
   */
  public long duplicateMovesSkipped() {
    return context.duplicatesSkipped.get();
  }

  /** Upstream's self-retry timeout: a dispatched move not reported by then is retried. */
  private static long selfRetryMs(Configuration conf) {
    return conf.getLong(DFSConfigKeys.DFS_STORAGE_POLICY_SATISFIER_SELF_RETRY_TIMEOUT_MILLIS_KEY,
      DFSConfigKeys.DFS_STORAGE_POLICY_SATISFIER_SELF_RETRY_TIMEOUT_MILLIS_DEFAULT);
  }

  /**
   * Whether it is stalled now: found stalled, and neither a file nor a block move finished since,
   * nor was it left holding nothing. A restart for the stall does not end it.
   */
  public boolean stalledNow() {
    long at = stalledAtProgress;
    return at >= 0 && at == context.progressCount() && !closing;
  }

  /** Files taken from the NameNode and not finished. */
  public int filesHeld() {
    return context.inFlight.size();
  }

  /** Times it was found stalled and restarted for it. */
  public long stalls() {
    return stalls.get();
  }

  /** On the supervisor thread: restarts a satisfier that holds files and makes no progress. */
  private void checkProgress() {
    try {
      if (closing || restartPending) {
        return;
      }
      if (context.inFlight.isEmpty()) {
        context.progressed();
        currentStallMs = stallMs;
        return;
      }
      long idleMs = context.msSinceProgress();
      if (idleMs < currentStallMs) {
        return;
      }
      List<String> why = diagnose();
      String summary = String.join(" | ", why);
      lastStall = summary;
      stalledAtProgress = context.progressCount();
      long n = stalls.incrementAndGet();
      LOG.warn("Storage Policy Satisfier for {} made no progress for {} s holding {} files taken "
        + "from the NameNode: {}. Restarting it, which re-reads the live DataNodes and their free "
        + "space and retries the moves it waited on (stall {}; next check after {} s without "
        + "progress)", nameNode, idleMs / 1000, context.inFlight.size(), summary, n,
        Math.min(stallMs * 16, currentStallMs * 2) / 1000);
      currentStallMs = Math.min(stallMs * 16, currentStallMs * 2);
      restartForStall();
    } catch (Throwable t) {
      // Never let the check end: a scheduled task that throws is not run again.
      LOG.error("Checking the progress of the Storage Policy Satisfier for {} failed", nameNode, t);
    }
  }

  /** Why each of (up to five of) the files held is not on its tier. */
  private List<String> diagnose() {
    List<String> lines = new ArrayList<>();
    Map<StorageType, Long> free;
    try {
      free = StallDiagnosis.mostFree(connector.getLiveDatanodeStorageReport());
    } catch (IOException e) {
      free = Map.of();
      lines.add("live DataNodes not readable: " + e);
    }
    int shown = 0;
    for (Long id : context.inFlight) {
      if (shown++ == 5) {
        lines.add((context.inFlight.size() - 5) + " more");
        break;
      }
      try {
        HdfsLocatedFileStatus f = context.located(id);
        lines.add(StallDiagnosis.explain(id, f,
          f == null ? null : context.getStoragePolicy(f.getStoragePolicy()), free));
      } catch (IOException e) {
        lines.add("inode " + id + ": not readable (" + e + ")");
      }
    }
    return lines;
  }

  /**
   * Stops the satisfier's thread and waits, outside the satisfier's lock, up to {@code waitMs}
   * for it to end; the thread if it is still alive then, else null.
   */
  private Thread stopThread(long waitMs) throws InterruptedException {
    Thread t = satisfierThread;
    sps.stop(false);
    if (t == null) {
      return null;
    }
    t.join(waitMs);
    return t.isAlive() ? t : null;
  }

  /** Stops the live satisfier thread, waits for it, and starts it again with the files held. */
  private synchronized void restartForStall() throws InterruptedException {
    if (closing) {
      return;
    }
    stoppingForStall = true;
    try {
      Thread old = stopThread(10_000);
      if (old != null) {
        LOG.warn("The Storage Policy Satisfier thread {} has not stopped within 10 s; starting "
          + "the next one anyway", old.getName());
      }
    } finally {
      stoppingForStall = false;
    }
    context.joinCollectors(10_000);
    // What the stopped thread had queued and in flight; the files come back through the
    // context, and attempts it waited on are retried from the start.
    sps.clearQueues();
    int requeued = context.requeueInFlight();
    startedAt = System.currentTimeMillis();
    sps.start(StoragePolicySatisfierMode.EXTERNAL);
    // The clock to the next stall check starts again; that is no progress of the files held.
    context.restartClock();
    LOG.info("Storage Policy Satisfier for {} restarted after a stall, {} files queued again",
      nameNode, requeued);
  }

  /** Called on the satisfier's thread when it ends, whatever ended it. */
  private void threadEnded() {
    if (closing || stoppingForStall) {
      return;
    }
    Throwable cause = failureLog == null ? null : failureLog.take();
    if (cause == null) {
      cause = context.lastThrown.getAndSet(null);
    }
    String why = cause != null ? cause.toString()
      : "an exception logged above by " + StoragePolicySatisfier.class.getName();
    long delay;
    synchronized (this) {
      lastFailure = why;
      restartPending = true;
      // A satisfier that ran a while before failing starts again at the initial back-off.
      if (System.currentTimeMillis() - startedAt > backoffMaxMs) {
        nextBackoffMs = backoffMs;
      }
      delay = nextBackoffMs;
      nextBackoffMs = Math.min(backoffMaxMs, nextBackoffMs * 2);
    }
    LOG.error("Storage Policy Satisfier for {} stopped: {}. {} files it had taken from the "
      + "NameNode are handed to it again; restarting it in {} ms (restart {})", nameNode, why,
      context.inFlight.size(), delay, restarts.get() + 1, cause);
    try {
      supervisor.schedule(this::restart, delay, TimeUnit.MILLISECONDS);
    } catch (RuntimeException e) {
      LOG.error("Cannot schedule the restart of the Storage Policy Satisfier for {}", nameNode, e);
    }
  }

  private synchronized void restart() {
    if (closing) {
      return;
    }
    try {
      // Stops what the dead thread left running (its path collector and attempt monitor), so
      // the new ones do not share the queues with old ones.
      sps.stop(false);
      context.joinCollectors(10_000);
      int requeued = context.requeueInFlight();
      startedAt = System.currentTimeMillis();
      sps.start(StoragePolicySatisfierMode.EXTERNAL);
      restarts.incrementAndGet();
      restartPending = false;
      LOG.warn("Storage Policy Satisfier for {} restarted (restart {}), {} files queued again",
        nameNode, restarts.get(), requeued);
    } catch (RuntimeException e) {
      LOG.error("Cannot restart the Storage Policy Satisfier for {}; trying again in {} ms",
        nameNode, nextBackoffMs, e);
      lastFailure = e.toString();
      supervisor.schedule(this::restart, nextBackoffMs, TimeUnit.MILLISECONDS);
      nextBackoffMs = Math.min(backoffMaxMs, nextBackoffMs * 2);
    }
  }

  @Override
  public void close() throws IOException {
    synchronized (this) {
      if (closing) {
        return;
      }
      closing = true;
    }
    try {
      supervisor.shutdownNow();
      // Upstream's stopGracefully() waits for the satisfier thread (up to 3 s) while holding the
      // satisfier's lock, and that thread, once interrupted, needs the same lock to end: every
      // close took the full 3 s. Stop it and wait for the thread outside the lock first (as a
      // stall restart does), with the same bound; stopGracefully() then finds it ended.
      if (sps.isRunning()) {
        try {
          stopThread(3_000);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      sps.stopGracefully();
    } finally {
      if (failureLog != null) {
        failureLog.uninstall();
      }
      if (bean != null) {
        MBeans.unregister(bean);
      }
      connector.close();
    }
    LOG.info("Storage Policy Satisfier for {} stopped", nameNode);
  }

  /** The satisfier, telling its supervisor when its thread ends. */
  private final class Supervised extends StoragePolicySatisfier {
    Supervised(Configuration conf) {
      super(conf);
    }

    @Override
    public void notifyStorageMovementAttemptFinishedBlk(DatanodeInfo dnInfo,
      StorageType storageType, Block block) {
      context.attemptFinished(block, dnInfo, storageType);
      super.notifyStorageMovementAttemptFinishedBlk(dnInfo, storageType, block);
    }

    @Override
    public void run() {
      // A name of its own, so that its log lines (and the failure log) tell it from another
      // namespace's satisfier in the same JVM.
      Thread.currentThread().setName(threadName);
      satisfierThread = Thread.currentThread();
      try {
        super.run();
      } finally {
        threadEnded();
      }
    }
  }

  /**
   * Upstream's external context, plus: policies resolved by the NameNode (upstream's resolves
   * ids with a suite of its own, built-in policies only, so policies defined in the NameNode's
   * configuration, the overlay's {@code strata.storage.policies}, were not satisfied); the files
   * taken from the NameNode and not yet finished, so that a restart hands them over again; the
   * analysis hook.
   */
  private static final class TrackingContext extends ExternalSPSContext {
    private final NameNodeConnector connector;
    private final AnalysisHook hook;
    final SatisfierJournal journal;
    /** Ids taken whose journal entry could not be written yet; retried at each take. */
    private final Set<Long> unjournaled = ConcurrentHashMap.newKeySet();
    private final Map<Byte, BlockStoragePolicy> policies = new ConcurrentHashMap<>();
    /** Inode ids taken from the NameNode whose "being satisfied" mark is not removed yet. */
    final Set<Long> inFlight = ConcurrentHashMap.newKeySet();
    /** Ids to hand out again before asking the NameNode for more. */
    private final Queue<Long> requeued = new ArrayDeque<>();
    private final Set<Thread> collectors = ConcurrentHashMap.newKeySet();
    final java.util.concurrent.atomic.AtomicReference<RuntimeException> lastThrown =
      new java.util.concurrent.atomic.AtomicReference<>();

    TrackingContext(StoragePolicySatisfier sps, NameNodeConnector connector, AnalysisHook hook,
      long selfRetryMs, SatisfierJournal journal) {
      super(sps, connector);
      this.connector = connector;
      this.hook = hook;
      this.selfRetryNanos = TimeUnit.MILLISECONDS.toNanos(selfRetryMs);
      this.journal = journal;
    }

    /** A block move dispatched to a DataNode and not reported finished yet. */
    private static final class Attempt {
      final String source;
      final String target;
      final StorageType targetType;
      final long startedNanos;

      Attempt(String source, String target, StorageType targetType, long startedNanos) {
        this.source = source;
        this.target = target;
        this.targetType = targetType;
        this.startedNanos = startedNanos;
      }
    }

    /** Moves dispatched and not finished, by block id; guarded by itself. */
    private final Map<Long, List<Attempt>> attempts = new java.util.HashMap<>();
    private final long selfRetryNanos;
    final AtomicLong duplicatesSkipped = new AtomicLong();

    /**
     * Dispatches a block move unless a move of that block from the same source or to the same
     * target is still running. A satisfier restarted for a stall analyses the files it held
     * again and would dispatch the moves still running a second time: two concurrent moves of
     * one replica, which copy it twice (or race on the same files on a DataNode) on volumes
     * that are already the slow part. The running move's report completes the new attempt as
     * it would have the old one. A move running longer than upstream's own self-retry timeout
     * ({@code dfs.storage.policy.satisfier.self.retry.timeout.millis}) is presumed lost, as
     * upstream presumes, and dispatched again.
     */
    @Override
    public void submitMoveTask(BlockStorageMovementCommand.BlockMovingInfo info)
      throws IOException {
      long now = System.nanoTime();
      long blockId = info.getBlock().getBlockId();
      String source = info.getSource().getDatanodeUuid();
      String target = info.getTarget().getDatanodeUuid();
      Attempt running = null;
      Attempt mine = new Attempt(source, target, info.getTargetStorageType(), now);
      synchronized (attempts) {
        List<Attempt> list = attempts.computeIfAbsent(blockId, k -> new ArrayList<>(1));
        list.removeIf(a -> now - a.startedNanos > selfRetryNanos);
        for (Attempt a : list) {
          if (a.source.equals(source) || a.target.equals(target)) {
            running = a;
            break;
          }
        }
        if (running == null) {
          list.add(mine);
        }
      }
      if (running != null) {
        duplicatesSkipped.incrementAndGet();
        LOG.info("Not moving block {} ({} -> {} {}) again: its move dispatched {} s ago to {} "
          + "is still running; waiting for that one", info.getBlock(), info.getSource(),
          info.getTarget(), info.getTargetStorageType(),
          TimeUnit.NANOSECONDS.toSeconds(now - running.startedNanos), running.target);
        return;
      }
      try {
        super.submitMoveTask(info);
      } catch (IOException | RuntimeException e) {
        forget(blockId, mine);
        throw e;
      }
    }

    private void forget(long blockId, Attempt a) {
      synchronized (attempts) {
        List<Attempt> list = attempts.get(blockId);
        if (list != null) {
          list.remove(a);
          if (list.isEmpty()) {
            attempts.remove(blockId);
          }
        }
      }
    }

    /** A dispatched move finished (moved or failed), as its DataNode reported it. */
    void attemptFinished(Block block, DatanodeInfo target, StorageType type) {
      progressed();
      synchronized (attempts) {
        List<Attempt> list = attempts.get(block.getBlockId());
        if (list != null) {
          list.removeIf(a -> a.target.equals(target.getDatanodeUuid()) && a.targetType == type);
          if (list.isEmpty()) {
            attempts.remove(block.getBlockId());
          }
        }
      }
    }

    @Override
    public Long getNextSPSPath() {
      collectors.add(Thread.currentThread());
      for (Long id : unjournaled) {
        journalTake(id);
      }
      Long id = dueMarkRetry();
      if (id == null) {
        synchronized (requeued) {
          id = requeued.poll();
        }
      }
      if (id == null) {
        id = super.getNextSPSPath();
        if (id != null) {
          // The NameNode has now handed it out for good: journaled before any work on it, so
          // that a satisfier started after this one dies finds it again.
          inFlight.add(id);
          journalTake(id);
        }
      }
      if (id != null) {
        inFlight.add(id);
      }
      return id;
    }

    /** Files whose mark could not be removed, by inode id: when to try again (ms) and wait. */
    private final Map<Long, long[]> markRetries = new ConcurrentHashMap<>();

    /** A file whose removal of its mark is due to be tried again, or null. */
    private Long dueMarkRetry() {
      long now = System.currentTimeMillis();
      for (Map.Entry<Long, long[]> e : markRetries.entrySet()) {
        if (e.getValue()[0] <= now && inFlight.contains(e.getKey())) {
          // Kept in the map (with its wait) until the removal succeeds.
          e.getValue()[0] = Long.MAX_VALUE;
          return e.getKey();
        }
        if (!inFlight.contains(e.getKey())) {
          markRetries.remove(e.getKey());
        }
      }
      return null;
    }

    private void journalTake(long id) {
      try {
        journal.take(id);
        unjournaled.remove(id);
      } catch (IOException e) {
        if (unjournaled.add(id)) {
          LOG.warn("Cannot journal inode {} taken by the Storage Policy Satisfier in {} ({}); "
            + "working on it anyway and retrying the journal; should this satisfier die first, "
            + "its mark stays until 'strata mover -p' clears it", id, journal.dir(),
            e.toString());
        }
      }
    }

    /**
     * Queues the files the journal names (held by a satisfier that died) to be handed out
     * before anything new; returns how many. Entries of deleted files are dropped.
     */
    int adoptJournal() throws IOException {
      int adopted = 0;
      List<Long> held;
      try {
        held = journal.held();
      } catch (IOException e) {
        throw new IOException("Cannot read the Storage Policy Satisfier's journal "
          + journal.dir() + " (" + HdfsKeys.SPS_JOURNAL_DIR + "), which names the files a "
          + "satisfier before this one left unfinished: " + e.getMessage(), e);
      }
      for (long id : held) {
        if (!connector.getDistributedFileSystem().exists(
          org.apache.hadoop.hdfs.DFSUtilClient.makePathFromFileId(id))) {
          journal.release(id);
          continue;
        }
        if (inFlight.add(id)) {
          synchronized (requeued) {
            requeued.add(id);
          }
          adopted++;
        }
      }
      return adopted;
    }

    /** When a file or a block move last finished (or work last began), System.nanoTime(). */
    private volatile long lastProgressNanos = System.nanoTime();
    private final AtomicLong progressCount = new AtomicLong();

    /** Progress (or nothing held): ends a stall. */
    void progressed() {
      progressCount.incrementAndGet();
      lastProgressNanos = System.nanoTime();
    }

    long progressCount() {
      return progressCount.get();
    }

    void restartClock() {
      lastProgressNanos = System.nanoTime();
    }

    long msSinceProgress() {
      return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lastProgressNanos);
    }

    /** The file with its blocks, without the analysis hook. */
    HdfsLocatedFileStatus located(long inodeId) throws IOException {
      return (HdfsLocatedFileStatus) super.getFileInfo(inodeId);
    }

    /**
     * Removes the file's mark, and only then forgets it. Upstream's context swallows any failure
     * to remove the mark (its check whether the mark is still there always says no), and the
     * file was forgotten before the call: a failure (the NameNode entering safe mode, an I/O
     * error) left a mark nobody would remove, and the file could never be placed again. Here a
     * mark still there after a failure keeps the file held and journaled, and the file is handed
     * to the satisfier again after a wait that doubles from 3 s up to 5 minutes while the removal
     * keeps failing. Not thrown to upstream's loop: it would retry at once, for ever, while the
     * failure lasts (a file the satisfier may not write), logging a stack trace each time.
     */
    @Override
    public void removeSPSHint(long inodeId) throws IOException {
      org.apache.hadoop.fs.Path path = org.apache.hadoop.hdfs.DFSUtilClient
        .makePathFromFileId(inodeId);
      org.apache.hadoop.hdfs.DistributedFileSystem dfs = connector.getDistributedFileSystem();
      try {
        dfs.removeXAttr(path, SatisfierMarks.MARK);
      } catch (FileNotFoundException deleted) {
        // The file was deleted while queued (a WAL archived, a compacted HFile cleaned): its
        // mark went with it. Upstream's context rethrows, and its satisfier loop then re-queues
        // the file and fails on it again at once, for ever, logging a stack trace each time
        // (the file variant of HDFS-16484). Nothing is left to do for it.
        LOG.debug("Inode {} was deleted before the satisfier finished with it", inodeId);
      } catch (IOException e) {
        boolean marked;
        try {
          Map<String, byte[]> xattrs = dfs.getXAttrs(path);
          marked = xattrs != null && xattrs.containsKey(SatisfierMarks.MARK);
        } catch (FileNotFoundException deleted) {
          marked = false;
        } catch (IOException unreadable) {
          e.addSuppressed(unreadable);
          marked = true;
        }
        if (marked) {
          long[] retry = markRetries.computeIfAbsent(inodeId, k -> new long[] { 0, 1_500 });
          retry[1] = Math.min(300_000, retry[1] * 2);
          retry[0] = System.currentTimeMillis() + retry[1];
          LOG.warn("Cannot remove the \"being satisfied\" mark of inode {} ({}); the satisfier "
            + "keeps the file (journaled in {}) and tries again in {} s", inodeId,
            String.valueOf(e).split("\n", 2)[0], journal.dir(), retry[1] / 1000);
          return;
        }
        // Already gone (removed by an earlier pass, or the file was re-adopted after it was).
      }
      inFlight.remove(inodeId);
      unjournaled.remove(inodeId);
      markRetries.remove(inodeId);
      progressed();
      try {
        journal.release(inodeId);
      } catch (IOException e) {
        LOG.warn("Cannot remove inode {} from the satisfier's journal {} ({}); a satisfier "
          + "started later looks at the file once more, which finds it done", inodeId,
          journal.dir(), e.toString());
      }
    }

    @Override
    public void notifyMovementTriedBlocks(Block[] moveAttemptFinishedBlks) {
      progressed();
      super.notifyMovementTriedBlocks(moveAttemptFinishedBlks);
    }

    @Override
    public HdfsFileStatus getFileInfo(long inodeId) throws IOException {
      try {
        hook.beforeAnalysis(inodeId);
      } catch (RuntimeException e) {
        lastThrown.set(e);
        throw e;
      }
      return super.getFileInfo(inodeId);
    }

    /** Queues every unfinished file to be handed out again; returns how many. */
    int requeueInFlight() {
      synchronized (requeued) {
        requeued.clear();
        requeued.addAll(inFlight);
        return requeued.size();
      }
    }

    /** Waits for the previous path collectors, which end once the satisfier is stopped. */
    void joinCollectors(long timeoutMs) {
      long deadline = System.currentTimeMillis() + timeoutMs;
      for (Thread t : collectors) {
        try {
          t.join(Math.max(1, deadline - System.currentTimeMillis()));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
        if (t.isAlive()) {
          LOG.warn("The satisfier's path collector {} has not stopped within {} ms", t.getName(),
            timeoutMs);
        } else {
          collectors.remove(t);
        }
      }
    }

    @Override
    public BlockStoragePolicy getStoragePolicy(byte policyId) {
      BlockStoragePolicy p = policies.get(policyId);
      if (p == null && policyId != HdfsConstants.BLOCK_STORAGE_POLICY_ID_UNSPECIFIED) {
        try {
          for (BlockStoragePolicy each : connector.getDistributedFileSystem()
            .getStoragePolicies()) {
            policies.put(each.getId(), each);
          }
        } catch (IOException e) {
          LOG.warn("Cannot read the NameNode's storage policies ({}); using the built-in "
            + "definition of policy id {}", e.toString(), policyId);
        }
        p = policies.get(policyId);
      }
      return p != null ? p : super.getStoragePolicy(policyId);
    }
  }

  /** The JMX view of the supervision. */
  public interface SatisfierMXBean {
    boolean isRunning();

    long getRestarts();

    String getLastFailure();

    long getStalls();

    String getLastStall();
  }

  private final class Bean implements SatisfierMXBean {
    @Override
    public boolean isRunning() {
      return sps.isRunning();
    }

    @Override
    public long getRestarts() {
      return restarts.get();
    }

    @Override
    public String getLastFailure() {
      return lastFailure == null ? "" : lastFailure;
    }

    @Override
    public long getStalls() {
      return stalls.get();
    }

    @Override
    public String getLastStall() {
      return lastStall == null ? "" : lastStall;
    }
  }
}
