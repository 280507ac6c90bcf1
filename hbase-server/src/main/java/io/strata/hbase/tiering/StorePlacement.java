package io.strata.hbase.tiering;

import io.strata.compat.VersionCheck;
import io.strata.hbase.placement.StoreFileOrigin;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.regionserver.CreateStoreFileWriterParams;
import org.apache.hadoop.hbase.regionserver.HStore;
import org.apache.hadoop.hbase.regionserver.HStoreFile;
import org.apache.hadoop.hbase.regionserver.StoreEngine;
import org.apache.hadoop.hbase.regionserver.StoreFileManager;
import org.apache.hadoop.hbase.regionserver.StoreFileWriter;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.HFileArchiveUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Strata's placement of one store's HBase files, used by each of Strata's store engines
 * ({@link TieredStoreEngine} for HBase's default engine, {@link TieredDateTieredStoreEngine} for
 * its date-tiered one, {@link TieredStripeStoreEngine} for its stripe one): flushes on the flush
 * policy, compactions on the small or large policy by input size unless HBase chose a policy
 * itself (date-tiered storage-policy windows, upstream's per-family policy), files HBase archives
 * after a compaction on the archive policy and files a bulk load hands to the store on the
 * bulk-load policy, with their blocks moved there. An engine calls it from the
 * {@link StoreEngine} methods it overrides, after (or around) upstream's own
 * work; see {@link TieringKeys}, and {@link TierPolicies} for which rule chooses each policy.
 *
 * <p>Upstream pins a policy on compaction output only; a flushed file takes its family
 * directory's policy, so the flush policy is pinned on the file itself, which keeps it through
 * the rename out of {@code .tmp}.
 * <p>Placement never stops a store from opening or serving. Each store is in one of three
 * modes, decided at open and logged in one line naming the store:
 * <ul>
 * <li><b>on</b>: the file system offers storage policies;</li>
 * <li><b>off</b>: it has none ({@code getAllStoragePolicies} is unsupported, e.g. a
 * {@code file://} root): the engine does exactly what its upstream engine does;</li>
 * <li><b>deferred</b>: the NameNode did not answer (an {@link IOException}, e.g. during a
 * failover): the store opens; the files it writes or archives meanwhile are handed to the
 * RegionServer's {@link PlacementQueue}, which pins them (and has their blocks moved) from its
 * own thread once the NameNode answers, whether or not the store is still open. The store asks
 * the NameNode again, for its own new files, from a timer (back-off 1 s, doubling to 5 min, for
 * a day; a flush or compaction check that finds the back-off passed brings the try forward);
 * nothing waits for it.</li>
 * </ul>
 * A file written while deferred records the policy it is to get in its own file info; a store
 * that opens with such files queues a placement check ({@link TieringKeys#CHECK_ON_OPEN}) that
 * places those still without a policy, which is how files whose RegionServer stopped during an
 * outage get their tier. A store that closes while some of its
 * files still wait logs a WARN naming them and what places them.
 * A bad value found at open (a threshold that is not a size, a policy this HDFS does not offer)
 * is logged with its key, value and the fallback used.
 *
 * <p>Thread-safety: HBase calls an engine (and so this) from flush, compaction and archiving threads at once,
 * and the retry timer calls it too. The mode is atomic; only the timer's thread asks the NameNode
 * again (one try at a time, a lock nobody waits for); files waiting for a pin are kept in a
 * concurrent map (before commit) or in the thread-safe {@link PlacementQueue}.
 */
final class StorePlacement implements AgeMover.AgingStore {
  // Logged under the engine's name, which operators and log settings already know.
  private static final Logger LOG = LoggerFactory.getLogger(TieredStoreEngine.class);

  /** First wait before asking a NameNode that did not answer again; doubled per failure. */
  static final long FIRST_RETRY_MS = 1_000;
  /** Longest wait between two tries. */
  static final long MAX_RETRY_MS = 300_000;
  /**
   * How long a deferred store asks the NameNode again from its timer; after that only its
   * flushes and compaction checks bring a try (its waiting files are the queue's business).
   */
  static final long SCHEDULED_RETRY_MS = 24 * 3600_000L;

  /**
   * File info key of a store file written while the NameNode did not answer: the storage policy
   * it is to get. The placement check at open places such a file if it has no policy yet.
   */
  static final byte[] DEFERRED_POLICY_KEY = Bytes.toBytes("STRATA_DEFERRED_STORAGE_POLICY");

  /** Name of the thread of every store's tries (tests and thread dumps tell its calls by it). */
  static final String RETRY_THREAD_NAME = "strata-placement-retry";

  /** One daemon thread for every store's scheduled tries, created on first use. */
  private static final class Retries {
    static final ScheduledExecutorService EXECUTOR =
      Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, RETRY_THREAD_NAME);
        t.setDaemon(true);
        return t;
      });
  }

  private enum Mode {
    ON, OFF, DEFERRED
  }

  private HStore store;
  private String storeName;
  private FileSystem fs;
  private TierPolicies policies;
  private boolean requestMoves;
  private boolean checkOnOpen;
  private String tableName;
  /** Set once HBase closed the store: no more timer tries, and the close WARN is logged once. */
  private final AtomicBoolean closed = new AtomicBoolean();
  private final AtomicBoolean retrySubmitted = new AtomicBoolean();
  private final AtomicReference<Mode> mode = new AtomicReference<>(Mode.ON);
  /** The policies the file system offers, once known (mode ON). */
  private volatile Set<String> offered;
  /** Held by the one thread asking the NameNode again; others do not wait for it. */
  private final ReentrantLock retryLock = new ReentrantLock();
  private volatile long nextTryMs;
  private volatile long retryMs = FIRST_RETRY_MS;
  /** When the current deferral began; scheduled tries stop {@link #SCHEDULED_RETRY_MS} later. */
  private volatile long deferredSinceMs;
  private final AtomicBoolean retryScheduled = new AtomicBoolean();
  /**
   * Output files in .tmp, created while deferred: path -> policy they are to get; a commit hands
   * them to the placement queue.
   */
  private final Map<Path, String> unpinnedWriters = new ConcurrentHashMap<>();
  /** Names of store files the age chore re-placed (or found placed): not offered again. */
  private final Set<String> agedDone = ConcurrentHashMap.newKeySet();

  /** The engine that calls this: its store file manager, upstream's writers. */
  private final StoreEngine<?, ?, ?, ?> engine;
  private final WriterFactory upstreamWriter;

  /** Upstream's writer creation of the engine ({@code super.createWriter}). */
  public interface WriterFactory {
    StoreFileWriter create(CreateStoreFileWriterParams params) throws IOException;
  }

  StorePlacement(StoreEngine<?, ?, ?, ?> engine, WriterFactory upstreamWriter) {
    this.engine = engine;
    this.upstreamWriter = upstreamWriter;
  }

  private StoreFileManager getStoreFileManager() {
    return engine.getStoreFileManager();
  }

  /** From the engine's {@code createComponents}, after upstream's. */
  void open(Configuration conf, HStore store) {
    // Every store opened with a tiered engine passes here; the versions are read once per
    // process, so this costs a comparison.
    VersionCheck.hbasePlugin("TieredStoreEngine placement (RegionServer store engine)",
      TieringKeys.versionCheck(conf));
    this.store = store;
    this.storeName = store.getRegionInfo().getRegionNameAsString() + " family "
      + store.getColumnFamilyName();
    this.fs = PlacementQueue.policyFs(store.getFileSystem());
    this.policies = TierPolicies.resolve(conf, store.getHRegion().getTableDescriptor(),
      store.getColumnFamilyDescriptor());
    this.requestMoves = TieringKeys.requestMoves(conf);
    this.checkOnOpen = TieringKeys.checkOnOpen(conf);
    // A store built by a test or a tool may have no table name; it is only used in messages.
    org.apache.hadoop.hbase.TableName table = store.getTableName();
    this.tableName = table == null ? "(no table)" : table.getNameAsString();
    if (policies.thresholdProblem() != null) {
      // The validator refuses such a table; reaching here means a site file differs.
      LOG.warn("Store {}: {}; using the default {} bytes", storeName,
        policies.thresholdProblem(), TieringKeys.COMPACTION_THRESHOLD_DEFAULT);
    }
    for (String p : policies.ageProblems()) {
      // The validator refuses such a table; reaching here means a site file differs.
      LOG.warn("Store {}: {}; its files are not re-placed by age", storeName, p);
    }
    if (fs == null) {
      // A store without a file system (built for a test, or by a tool that never writes files):
      // nothing to place, and upstream's engine never looks at the file system here either.
      mode.set(Mode.OFF);
      LOG.info("Tiered placement off for store {}: it has no file system; its files are written "
        + "as by HBase's own store engine", storeName);
      return;
    }
    try {
      offered = TierPolicies.offeredPolicies(fs);
    } catch (UnsupportedOperationException e) {
      mode.set(Mode.OFF);
      LOG.info("Tiered placement off for store {}: file system {} has no storage policies ({}); "
        + "its files are written as by HBase's own store engine", storeName, fs.getUri(),
        e.getMessage());
      return;
    } catch (IOException e) {
      mode.set(Mode.DEFERRED);
      deferredSinceMs = System.currentTimeMillis();
      nextTryMs = deferredSinceMs + retryMs;
      scheduleRetry();
      LOG.warn("Tiered placement of store {} deferred: the NameNode did not answer "
        + "getAllStoragePolicies ({}); the store opens, and the files it writes meanwhile get "
        + "their policies once the NameNode answers (asked again with back-off {} s to {} s). "
        + "Policies: {}", storeName, e.toString(),
        FIRST_RETRY_MS / 1000, MAX_RETRY_MS / 1000, policies.describe());
      return;
    } catch (RuntimeException e) {
      mode.set(Mode.OFF);
      LOG.warn("Tiered placement off for store {}: listing the storage policies of {} failed "
        + "({}); its files are written as by HBase's own store engine", storeName,
        fs.getUri(), e.toString());
      return;
    }
    logPlacement("");
  }

  /** The store's placement line, and a line per Strata policy this HDFS does not offer. */
  private void logPlacement(String when) {
    for (Map.Entry<TierPolicies.Kind, TierPolicies.Choice> e : policies.choices().entrySet()) {
      TierPolicies.Choice c = e.getValue();
      if (e.getKey() != TierPolicies.Kind.OLDWAL && !pinnable(c) && !c.upstream()) {
        // The validator refuses such a table; reaching here means a site file differs.
        LOG.warn("Store {}: {} = '{}' ({}) is not a storage policy of this HDFS (valid: {}); "
          + "{} files are not pinned and take their directory's policy", storeName,
          e.getKey().key(), c.policy(), c.rule(), String.join(", ", offered),
          e.getKey().label());
      }
    }
    LOG.info("Tiered placement for store {}{}: {}", storeName, when, policies.describe());
  }

  private boolean pinnable(TierPolicies.Choice c) {
    Set<String> o = offered;
    return !c.upstream() && o != null && o.contains(c.policy());
  }

  /** Whether placement is on now; asks a NameNode that did not answer again when it is time. */
  private boolean placementOn() {
    if (mode.get() == Mode.DEFERRED) {
      retryIfDue();
    }
    return mode.get() == Mode.ON;
  }

  /** Schedules the next timer try, unless one is scheduled already. */
  private void scheduleRetry() {
    if (!closed.get() && System.currentTimeMillis() - deferredSinceMs < SCHEDULED_RETRY_MS
      && retryScheduled.compareAndSet(false, true)) {
      Retries.EXECUTOR.schedule(() -> {
        retryScheduled.set(false);
        retry();
      }, retryMs, TimeUnit.MILLISECONDS);
    }
  }

  /**
   * If the store is deferred and the back-off has passed, has the timer's thread ask the NameNode
   * now; returns at once (a flush must not wait for a NameNode).
   */
  private void retryIfDue() {
    if (!closed.get() && System.currentTimeMillis() >= nextTryMs
      && retrySubmitted.compareAndSet(false, true)) {
      Retries.EXECUTOR.execute(() -> {
        retrySubmitted.set(false);
        retry();
      });
    }
  }

  private void retry() {
    if (mode.get() != Mode.DEFERRED || closed.get() || !retryLock.tryLock()) {
      return;
    }
    try {
      if (mode.get() != Mode.DEFERRED) {
        return;
      }
      try {
        offered = TierPolicies.offeredPolicies(fs);
      } catch (IOException e) {
        retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
        nextTryMs = System.currentTimeMillis() + retryMs;
        LOG.info("Tiered placement of store {} still deferred: the NameNode did not answer ({}); "
          + "{} of its files wait in the placement queue; next try in {} s", storeName,
          e.toString(), PlacementQueue.get().waiting(storeName).size(), retryMs / 1000);
        scheduleRetry();
        return;
      } catch (RuntimeException e) {
        mode.set(Mode.OFF);
        LOG.warn("Tiered placement off for store {}: listing the storage policies of {} failed "
          + "({}); its new files are written as by HBase's own store engine", storeName,
          fs.getUri(), e.toString());
        return;
      }
      retryMs = FIRST_RETRY_MS;
      mode.set(Mode.ON);
      logPlacement(" (the NameNode answers again)");
      // unpinnedWriters is not pruned here: a writer's file leaves .tmp in its commit's rename
      // before the commit takes it from the map, so a file missing from .tmp may be committed
      // this moment. What failed flushes or compactions leave is dropped at close.
    } catch (RuntimeException e) {
      LOG.error("Tiered placement of store {}: a try to leave deferred mode failed; next at the "
        + "next flush or compaction check", storeName, e);
    } finally {
      retryLock.unlock();
    }
  }

  /** A pin failed because the NameNode did not answer: defer, and ask again later. */
  private void enterDeferred(String cause) {
    if (mode.compareAndSet(Mode.ON, Mode.DEFERRED)) {
      retryMs = FIRST_RETRY_MS;
      deferredSinceMs = System.currentTimeMillis();
      nextTryMs = deferredSinceMs + retryMs;
      scheduleRetry();
      LOG.warn("Tiered placement of store {} deferred: the NameNode did not answer ({}); files "
        + "written meanwhile get their policies once it answers", storeName, cause);
    }
  }

  /**
   * Hands a committed or archived file whose policy is not pinned yet to the RegionServer's
   * placement queue, which outlives this store; never calls the NameNode. Its blocks are always
   * handed to the satisfier: they were written before the pin, and no rename follows that a tier
   * mover would see.
   */
  private void remember(Path file, String policy, String kind, long bytes) {
    PlacementQueue.get()
      .add(new PlacementQueue.Item(fs, file, policy, kind, bytes, storeName, tableName));
  }

  /**
   * Loads the store's files, then queues the placement check of those written while the NameNode
   * did not answer (their file info says so): the queue's thread lists the family directory once
   * and places each that still has no policy of its own (its RegionServer stopped before the
   * NameNode answered). A store without such files costs the NameNode nothing here.
   */
  void initialized(boolean warmup) {
    if (warmup || mode.get() == Mode.OFF || !store.isPrimaryReplicaStore()) {
      return;
    }
    if (policies.ageThresholdMs() != TieringKeys.AGE_OFF) {
      AgeMover.register(store.getReadOnlyConfiguration(), this);
    }
    if (!checkOnOpen) {
      return;
    }
    List<PlacementQueue.Expected> files = new ArrayList<>();
    for (HStoreFile sf : getStoreFileManager().getStoreFiles()) {
      byte[] deferred = sf.getMetadataValue(DEFERRED_POLICY_KEY);
      if (deferred == null || sf.getFileInfo().isReference() || sf.getFileInfo().isLink()) {
        continue; // placed when written, or another region's file (placed by that region)
      }
      String kind;
      try {
        kind = StoreFileOrigin.of(fileInfo(sf)) == StoreFileOrigin.COMPACTION ? "compacted"
          : "flushed";
      } catch (IOException e) {
        kind = "flushed"; // only names the file in logs and metrics
      }
      files.add(new PlacementQueue.Expected(sf.getPath().getName(), Bytes.toString(deferred),
        kind, sf.getFileInfo().getSize()));
    }
    if (!files.isEmpty()) {
      PlacementQueue.get().check(new PlacementQueue.StoreCheck(fs,
        store.getRegionFileSystem().getStoreDir(store.getColumnFamilyName()), storeName,
        tableName, files));
    }
  }

  @Override
  public boolean gone() {
    return closed.get() || store.getHRegion().isClosed();
  }

  @Override
  public String name() {
    return storeName;
  }

  /**
   * The store files whose newest cell (the file's own {@code TIMERANGE}) is at least the age
   * threshold old and that the chore has not re-placed yet; none while placement is not on (a
   * NameNode that does not answer is asked again by the store first). References and links are
   * the other region's files, placed by that region.
   */
  @Override
  public List<AgeMover.Aged> aged(long nowMs) {
    List<AgeMover.Aged> aged = new ArrayList<>();
    if (mode.get() != Mode.ON || !pinnable(policies.choice(TierPolicies.Kind.AGED))) {
      return aged;
    }
    Set<String> names = new java.util.HashSet<>();
    for (HStoreFile sf : getStoreFileManager().getStoreFiles()) {
      String name = sf.getPath().getName();
      names.add(name);
      if (agedDone.contains(name) || sf.getFileInfo().isReference()
        || sf.getFileInfo().isLink()) {
        continue;
      }
      java.util.OptionalLong newest;
      try {
        newest = sf.getMaximumTimestamp();
      } catch (RuntimeException e) {
        continue; // its reader was closed: compacted away meanwhile
      }
      if (!newest.isPresent()) {
        continue; // no time range recorded: its age is unknown, so it does not age
      }
      long age = nowMs - newest.getAsLong();
      TierPolicies.Choice c = policies.aged(age);
      if (c != null) {
        aged.add(new AgeMover.Aged(fs, sf.getPath(), c.policy(), sf.getFileInfo().getSize(),
          age));
      }
    }
    agedDone.retainAll(names);
    return aged;
  }

  @Override
  public void done(Path file) {
    agedDone.add(file.getName());
  }

  /** The file info keys that tell how a store file was made. */
  private static Map<byte[], byte[]> fileInfo(HStoreFile sf) {
    Map<byte[], byte[]> info = new TreeMap<>(Bytes.BYTES_COMPARATOR);
    for (byte[] key : new byte[][] { HStoreFile.BULKLOAD_TIME_KEY,
      HStoreFile.MAJOR_COMPACTION_KEY, HStoreFile.COMPACTION_EVENT_KEY }) {
      byte[] v = sf.getMetadataValue(key);
      if (v != null) {
        info.put(key, v);
      }
    }
    return info;
  }

  /**
   * StoreEngine has no close callback; HStore.close() clears the store's file list under the
   * engine's write lock while its region is closing, so the release that finds both is the
   * close. A flush or compaction commit while closing leaves at least one file in the list.
   */
  void writeUnlocked() {
    if (store != null && !closed.get() && store.getHRegion().isClosing()
      && getStoreFileManager().getStorefileCount() == 0) {
      closed();
    }
  }

  /** The store closed: its timer stops, and what still waits is said, with what places it. */
  private void closed() {
    if (!closed.compareAndSet(false, true) || mode.get() == Mode.OFF) {
      return;
    }
    unpinnedWriters.clear(); // outputs of failed flushes or compactions, never committed
    List<Path> waiting = PlacementQueue.get().waiting(storeName);
    boolean checkPending = PlacementQueue.get().checkWaiting(storeName);
    if (waiting.isEmpty() && !checkPending) {
      return;
    }
    LOG.warn("Region {} family {} closes while the NameNode has not answered for {} of its files "
      + "({}){}: the RegionServer's placement queue keeps them and pins their storage policy "
      + "once the NameNode answers, whoever holds the region then; if this RegionServer stops "
      + "first, the next opener of the region places them at open ({}), as does 'strata migrate "
      + "--table {}'", store.getRegionInfo().getRegionNameAsString(), store.getColumnFamilyName(),
      waiting.size(), PlacementQueue.names(waiting, 20),
      checkPending ? "; its placement check at open has not run yet" : "",
      checkOnOpen ? TieringKeys.CHECK_ON_OPEN + " = true" : "if " + TieringKeys.CHECK_ON_OPEN
        + " is set to true there", tableName);
  }

  /**
   * A file written while the NameNode does not answer: remembered until its commit hands it to
   * the placement queue, and recorded in the file itself (its file info names the policy it is
   * to get), where the next opener's placement check finds it if this RegionServer stops first.
   * The record costs the NameNode nothing: it is written with the file's data.
   */
  private void defer(StoreFileWriter writer, String policy) {
    unpinnedWriters.put(writer.getPath(), policy);
    try {
      writer.appendFileInfo(DEFERRED_POLICY_KEY, Bytes.toBytes(policy));
    } catch (IOException | RuntimeException e) {
      LOG.warn("Store {}: could not record in {} that its policy {} is deferred ({}); if this "
        + "RegionServer stops before the NameNode answers, 'strata migrate --table {}' places it",
        storeName, writer.getPath(), policy, e.toString(), tableName);
    }
  }

  StoreFileWriter createWriter(CreateStoreFileWriterParams params) throws IOException {
    if (params.isCompaction()) {
      // HBase writes the output under storage_policy_<P>/ and pins P on it at commit. A policy
      // HBase chose itself (date-tiered compaction) wins, and so does upstream's per-family
      // policy, which HBase applies to the directories the output is written in.
      if (params.fileStoragePolicy() == null || params.fileStoragePolicy().isEmpty()) {
        TierPolicies.Choice c = policies.compaction(params.totalCompactedFilesSize());
        if (!c.upstream() && mode.get() != Mode.OFF) {
          if (placementOn()) {
            if (pinnable(c)) {
              params.fileStoragePolicy(c.policy());
            }
          } else if (mode.get() == Mode.DEFERRED) {
            StoreFileWriter writer = upstreamWriter.create(params);
            defer(writer, c.policy());
            return writer;
          }
        }
      }
      return upstreamWriter.create(params);
    }
    // A flush gets no pin at commit upstream: pin the policy on the new file itself, before its
    // first block is allocated, so that it survives the rename out of .tmp.
    StoreFileWriter writer = upstreamWriter.create(params);
    TierPolicies.Choice c = policies.choice(TierPolicies.Kind.FLUSHED);
    if (c.upstream() || mode.get() == Mode.OFF) {
      return writer;
    }
    if (!placementOn()) {
      if (mode.get() == Mode.DEFERRED) {
        defer(writer, c.policy());
      }
      return writer;
    }
    if (!pinnable(c)) {
      return writer;
    }
    try {
      fs.setStoragePolicy(writer.getPath(), c.policy());
    } catch (IOException e) {
      if (PlacementQueue.notAnswering(e)) {
        defer(writer, c.policy());
        enterDeferred(e.toString());
      } else {
        LOG.warn("Could not pin storage policy {} on flushed file {} of store {}: {}; it takes "
          + "its family directory's policy", c.policy(), writer.getPath(), storeName,
          e.toString());
      }
    } catch (RuntimeException e) {
      LOG.warn("Could not pin storage policy {} on flushed file {} of store {}: {}; it takes its "
        + "family directory's policy", c.policy(), writer.getPath(), storeName, e.toString());
    }
    return writer;
  }

  /** After upstream's commit: {@code committed} are the store files of {@code files}. */
  List<HStoreFile> committed(List<Path> files, boolean isCompaction, List<HStoreFile> committed) {
    if (mode.get() == Mode.OFF) {
      return committed;
    }
    String kind = isCompaction ? "compacted" : "flushed";
    for (int i = 0; i < committed.size(); i++) {
      HStoreFile sf = committed.get(i);
      long bytes = sf.getFileInfo().getSize();
      String waiting = unpinnedWriters.remove(files.get(i));
      if (waiting != null) {
        // Written while the NameNode did not answer: the queue's thread pins it, whether the
        // NameNode answers again by now or not, so that this flush does not wait for it.
        remember(sf.getPath(), waiting, kind, bytes);
        continue;
      }
      TieringMetrics.placed(kind, placedPolicy(files.get(i), isCompaction), bytes);
    }
    return committed;
  }

  /** The policy a committed file has, for the metrics. */
  private String placedPolicy(Path written, boolean isCompaction) {
    String parent = written.getParent().getName();
    if (parent.startsWith(HConstants.STORAGE_POLICY_PREFIX)) {
      return parent.substring(HConstants.STORAGE_POLICY_PREFIX.length());
    }
    if (isCompaction) {
      // Written in .tmp/<family>: upstream's policy if a compaction kind chose it, else none.
      for (TierPolicies.Kind k : new TierPolicies.Kind[] { TierPolicies.Kind.COMPACTED_SMALL,
        TierPolicies.Kind.COMPACTED_LARGE }) {
        if (policies.choice(k).upstream()) {
          return policies.choice(k).policy();
        }
      }
      return "NONE";
    }
    TierPolicies.Choice c = policies.choice(TierPolicies.Kind.FLUSHED);
    return c.upstream() || pinnable(c) ? c.policy() : "NONE";
  }

  /**
   * Every new store file passes here; a bulk-loaded one (HBase renamed it in from wherever the
   * loading tool wrote it, so neither a writer's pin nor the family directory placed its blocks)
   * gets the bulk-load policy pinned and its blocks moved.
   */
  void added(Collection<HStoreFile> storeFiles) {
    if (mode.get() == Mode.OFF || !store.isPrimaryReplicaStore()) {
      return;
    }
    TierPolicies.Choice c = policies.choice(TierPolicies.Kind.BULKLOADED);
    boolean on = placementOn();
    if (on && !pinnable(c)) {
      return;
    }
    for (HStoreFile sf : storeFiles) {
      if (!sf.isBulkLoadResult()) {
        continue;
      }
      long bytes = sf.getFileInfo().getSize();
      if (!on) {
        if (mode.get() == Mode.DEFERRED) {
          remember(sf.getPath(), c.policy(), "bulkloaded", bytes);
        }
      } else if (BlockMover.pinAndMove(fs, sf.getPath(), c.policy(), "bulkloaded HFile", true)) {
        // Always ask for the move: the blocks were written before the pin and no rename into
        // archive/ follows for a tier mover to see.
        TieringMetrics.placed("bulkloaded", c.policy(), bytes);
      }
    }
  }

  /** From the engine's {@code needsCompaction}, before upstream's. */
  void compactionCheck() {
    // Called after every flush and by the RegionServer's compaction checker: a cheap moment to
    // ask a NameNode that did not answer again (at most once per back-off interval).
    if (mode.get() == Mode.DEFERRED) {
      retryIfDue();
    }
  }

  void removedCompacted(Collection<HStoreFile> compactedFiles) {
    // Called after HBase archived the files (only the primary replica archives).
    if (mode.get() == Mode.OFF || !store.isPrimaryReplicaStore() || compactedFiles.isEmpty()) {
      return;
    }
    TierPolicies.Choice c = policies.choice(TierPolicies.Kind.ARCHIVED);
    boolean on = placementOn();
    if (on && !pinnable(c)) {
      return;
    }
    Path archiveDir;
    try {
      archiveDir = HFileArchiveUtil.getStoreArchivePath(store.getReadOnlyConfiguration(),
        store.getRegionFileSystem().getRegionInfoForFS(),
        store.getColumnFamilyDescriptor().getName());
    } catch (IOException e) {
      LOG.warn("Cannot resolve the archive directory of store {}: {}; {} archived files stay on "
        + "their tier", storeName, e.toString(), compactedFiles.size());
      return;
    }
    for (HStoreFile f : compactedFiles) {
      Path archived = new Path(archiveDir, f.getPath().getName());
      long bytes = f.getFileInfo().getSize();
      if (!on) {
        if (mode.get() == Mode.DEFERRED) {
          remember(archived, c.policy(), "archived", bytes);
        }
      } else if (BlockMover.pinAndMove(fs, archived, c.policy(), "archived HFile",
        requestMoves)) {
        TieringMetrics.placed("archived", c.policy(), bytes);
      }
    }
  }
}
