package io.strata.hbase.tiering;

import io.strata.hdfs.HdfsKeys;
import io.strata.hdfs.tiermover.ReplacementReport;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.BlockStoragePolicySpi;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hbase.ChoreService;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.ScheduledChore;
import org.apache.hadoop.hbase.Stoppable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A RegionServer's age chore: re-places the store files whose newest cell became older than
 * their family's {@link TieringKeys#AGE_THRESHOLD}, so that data drifts down the tiers without
 * waiting for a compaction to rewrite it. Every {@link TieringKeys#AGE_INTERVAL_MS} it asks each
 * registered store (a primary replica whose placement is on) for its aged files, pins the aged
 * policy on each and asks the Storage Policy Satisfier to move its blocks, handing it at most
 * {@link TieringKeys#AGE_BYTES_PER_SECOND}.
 *
 * <p>It runs in the RegionServer, not in the tier mover: aging is no namespace event the tier
 * mover could follow (nothing is renamed, time passes), and a file's age is in its HFile
 * metadata, which the RegionServer holds in memory for every open store file and the tier mover
 * (an HDFS-side service) cannot read.
 *
 * <p>One {@link ScheduledChore} per RegionServer JVM, on a chore service of its own (HBase gives
 * a store engine no handle on the RegionServer's): started by the first store that has the rule,
 * it lives as long as the JVM, as the {@link PlacementQueue} does; a pass that throws is logged
 * by the chore service and the next one runs; stores that closed leave it at its next pass.
 *
 * <p>A move is a policy change plus a request to the satisfier, which copies each replica before
 * it removes the old one: no data is at risk. A call that fails leaves the file pending: it is
 * logged (once per file, with the file and the error) and tried again at the next pass. A file
 * gone meanwhile (compacted away) is dropped. Which files were re-placed is kept in memory; a
 * RegionServer that (re)opens a store asks the NameNode once per aged file: one that has the
 * aged policy with every replica on its storage types is done, one that has the policy but not
 * the replicas (its RegionServer stopped between the pin and the satisfier call) is handed to the
 * satisfier again.
 *
 * <p>Progress: {@link TieringMetrics} ({@code aged.<POLICY>.files|bytes} re-placed,
 * {@code aged.pending.files|bytes} waiting after the last pass, {@code aged.failures}), one
 * INFO line per pass that re-placed or failed something, and a {@link ReplacementReport}
 * published after every pass under {@code hbase.rootdir} ({@link HdfsKeys#AGING_REPORTS_SUBDIR}),
 * which the tier mover reads for the {@code aging} part of its status: one status then shows
 * the moves of renamed files and of aged ones. A report that cannot be written is logged once
 * and written again at the next pass; it never holds up a re-placement.
 *
 * <p>Thread-safety: stores register from their open threads into a concurrent set, never waiting
 * for a pass; a pass runs on the chore service's thread under the instance's lock; the JVM's
 * instance is guarded by the class's lock.
 */
final class AgeMover extends ScheduledChore {
  private static final Logger LOG = LoggerFactory.getLogger(AgeMover.class);

  /** The chore's name, as the chore service logs it. */
  static final String NAME = "StrataAgeMover";

  /** The JVM's chore, once a store with the rule opened. */
  private static AgeMover instance;
  private static ChoreService service;

  /** Never stopped: the chore lives as long as the JVM (its stores leave it when they close). */
  private static final Stoppable FOREVER = new Stoppable() {
    @Override
    public void stop(String why) {
    }

    @Override
    public boolean isStopped() {
      return false;
    }
  };

  /** A store file whose newest cell is older than its family's threshold. */
  static final class Aged {
    final FileSystem fs;
    final Path path;
    final String policy;
    final long bytes;
    final long ageMs;

    Aged(FileSystem fs, Path path, String policy, long bytes, long ageMs) {
      this.fs = fs;
      this.path = path;
      this.policy = policy;
      this.bytes = bytes;
      this.ageMs = ageMs;
    }
  }

  /** What the chore asks of a store. */
  interface AgingStore {
    /** Whether the store was closed or replaced: it is dropped from the chore. */
    boolean gone();

    /** The store's name in logs. */
    String name();

    /** Its store files whose newest cell is at least the threshold old, at {@code nowMs}. */
    List<Aged> aged(long nowMs);

    /** A file now has its aged policy (or is gone): not offered again. */
    void done(Path file);
  }

  private final long intervalMs;
  private final long bytesPerSecond;
  /** Concurrent: a store's open adds itself without waiting for a pass's NameNode calls. */
  private final Set<AgingStore> stores = java.util.concurrent.ConcurrentHashMap.newKeySet();
  /** Bytes the next passes may still hand to the satisfier; negative after a large file. */
  private long allowance;
  private long lastPassMs;
  /** Files whose failure was logged, so that a retried failure is not logged every pass. */
  private final Set<Path> failedOnce = new HashSet<>();
  /** Since this chore started: files and bytes handed to the satisfier, failed calls. */
  private long replacedFiles;
  private long replacedBytes;
  private long failures;
  /** Where the progress report goes, or null (unit tests: no report). */
  private Publisher publisher;

  /** Publishes the chore's progress for the tier mover's status. */
  static final class Publisher {
    private final FileSystem fs;
    private final Path dir;
    private final String name;
    private final String source;
    private boolean failing;

    Publisher(FileSystem fs, Path dir, String name, String source) {
      this.fs = fs;
      this.dir = dir;
      this.name = name;
      this.source = source;
    }

    /** The JVM's publisher: {@code <hbase.rootdir>/.strata/aging/<host>-<pid>.json}. */
    static Publisher of(Configuration conf) throws IOException {
      Path root = new Path(conf.get(HConstants.HBASE_DIR));
      String jvm = java.lang.management.ManagementFactory.getRuntimeMXBean().getName();
      int at = jvm.indexOf('@');
      String pid = at > 0 ? jvm.substring(0, at) : jvm;
      String host = at > 0 ? jvm.substring(at + 1) : "unknown";
      return new Publisher(root.getFileSystem(conf), new Path(root, HdfsKeys.AGING_REPORTS_SUBDIR),
        (host + "-" + pid).replaceAll("[^A-Za-z0-9._-]", "_"),
        "age chore on " + host + " (pid " + pid + ")");
    }

    void publish(ReplacementReport r) {
      try {
        r.publish(fs, dir, name);
        if (failing) {
          LOG.info("Age chore: its progress report {} is written again", new Path(dir, name));
        }
        failing = false;
      } catch (IOException | RuntimeException e) {
        if (!failing) {
          LOG.warn("Age chore: cannot write its progress report to {} ({}); the tier mover's "
            + "status shows its last report until the next pass writes it (logged once)", dir,
            e.toString());
        }
        failing = true;
      }
    }
  }

  /** A chore not scheduled anywhere: {@link #chore} is run by hand (unit tests). */
  AgeMover(long intervalMs, long bytesPerSecond) {
    super(NAME, FOREVER, (int) Math.min(Integer.MAX_VALUE, intervalMs));
    this.intervalMs = intervalMs;
    this.bytesPerSecond = bytesPerSecond;
    this.allowance = share();
    this.lastPassMs = System.currentTimeMillis();
  }

  /** Bytes one interval may move; the most the allowance saves up while idle. */
  private long share() {
    double v = (double) bytesPerSecond * intervalMs / 1000.0;
    return v >= Long.MAX_VALUE ? Long.MAX_VALUE : Math.max(1, (long) v);
  }

  /**
   * Registers a store with the JVM's age chore, starting the chore at the first store; the
   * chore's interval and rate are the first store's site values ({@link TieringKeys}).
   */
  static void register(Configuration conf, AgingStore store) {
    AgeMover mover;
    synchronized (AgeMover.class) {
      if (instance == null) {
        AgeMover m = new AgeMover(TieringKeys.ageIntervalMs(conf),
          TieringKeys.ageBytesPerSecond(conf));
        if (service == null) {
          service = new ChoreService("strata-age");
        }
        if (!service.scheduleChore(m)) {
          LOG.warn("Could not schedule the age chore for store {}; its files are not re-placed "
            + "by age until the next store with an age rule opens and tries again", store.name());
          return;
        }
        instance = m;
        try {
          m.publisher = Publisher.of(conf);
        } catch (IOException | RuntimeException e) {
          LOG.warn("Age chore: no progress report for the tier mover's status ({}): cannot reach "
            + "the file system of {}; aged files are re-placed all the same", e.toString(),
            conf.get(HConstants.HBASE_DIR));
        }
        LOG.info("Age chore started by store {}: every {} ms, at most {} bytes/s handed to the "
          + "Storage Policy Satisfier ({}, {})", store.name(), m.intervalMs, m.bytesPerSecond,
          TieringKeys.AGE_INTERVAL_MS, TieringKeys.AGE_BYTES_PER_SECOND);
      }
      mover = instance;
    }
    mover.add(store);
  }

  /** Adds a store to this chore (the JVM's chore: {@link #register}). */
  void add(AgingStore store) {
    stores.add(store);
  }

  @Override
  protected void chore() {
    pass(System.currentTimeMillis());
  }

  /** One pass at {@code now}; returns the files still pending after it. */
  synchronized long pass(long now) {
    allowance = Math.min(share(), allowance
      + (long) Math.min((double) Long.MAX_VALUE / 2, (double) bytesPerSecond * (now - lastPassMs)
        / 1000.0));
    lastPassMs = now;
    stores.removeIf(AgingStore::gone);
    List<Object[]> work = new ArrayList<>();
    for (AgingStore s : stores) {
      for (Aged a : s.aged(now)) {
        work.add(new Object[] { s, a });
      }
    }
    int moved = 0;
    int failed = 0;
    long movedBytes = 0;
    Map<String, Integer> byStore = new HashMap<>();
    Set<Path> current = new HashSet<>();
    long pendingFiles = 0;
    long pendingBytes = 0;
    for (Object[] w : work) {
      AgingStore s = (AgingStore) w[0];
      Aged a = (Aged) w[1];
      current.add(a.path);
      Outcome o = allowance > 0 ? replace(s, a) : Outcome.WAITING;
      if (o == Outcome.MOVED) {
        moved++;
        movedBytes += a.bytes;
        allowance -= a.bytes;
        byStore.merge(s.name(), 1, Integer::sum);
        s.done(a.path);
      } else if (o == Outcome.ALREADY || o == Outcome.GONE) {
        s.done(a.path);
      } else {
        // FAILED, or WAITING for the rate's next share: offered again at the next pass
        failed += o == Outcome.FAILED ? 1 : 0;
        pendingFiles++;
        pendingBytes += a.bytes;
      }
    }
    failedOnce.retainAll(current);
    TieringMetrics.agedPending(pendingFiles, pendingBytes);
    replacedFiles += moved;
    replacedBytes += movedBytes;
    failures += failed;
    if (publisher != null) {
      publisher.publish(new ReplacementReport(publisher.source, now, intervalMs, replacedFiles,
        replacedBytes, pendingFiles, pendingBytes, failures));
    }
    if (moved > 0 || failed > 0) {
      LOG.info("Age chore: re-placed {} aged store files ({} bytes) and asked the Storage Policy "
        + "Satisfier to move them (per store: {}); {} files ({} bytes) pending, {} of them after "
        + "a failure (tried again in {} ms)", moved, movedBytes, byStore, pendingFiles,
        pendingBytes, failed, intervalMs);
    }
    return pendingFiles;
  }

  private enum Outcome {
    MOVED, ALREADY, GONE, FAILED, WAITING
  }

  /** Pins the aged policy on the file and asks the satisfier to move its blocks. */
  private Outcome replace(AgingStore s, Aged a) {
    try {
      BlockStoragePolicySpi current = a.fs.getStoragePolicy(a.path);
      if (current != null && a.policy.equals(current.getName().toUpperCase(Locale.ROOT))) {
        if (inPlace(a, current)) {
          return Outcome.ALREADY; // placed before this store (re)opened
        }
      } else {
        a.fs.setStoragePolicy(a.path, a.policy);
      }
    } catch (FileNotFoundException e) {
      return Outcome.GONE; // compacted away or archived meanwhile
    } catch (IOException | RuntimeException e) {
      return failed(s, a, "set storage policy " + a.policy, e);
    }
    try {
      a.fs.satisfyStoragePolicy(a.path);
    } catch (FileNotFoundException e) {
      return Outcome.GONE;
    } catch (IOException | RuntimeException e) {
      if (String.valueOf(e.getMessage()).contains("already")) {
        // The satisfier holds a request for it (a pass before a failed reply, or a restart).
        return moved(s, a);
      }
      return failed(s, a, "ask the Storage Policy Satisfier to move it to " + a.policy
        + " (is dfs.storage.policy.satisfier.mode=external with an SPS running?)", e);
    }
    return moved(s, a);
  }

  /** Whether every replica of the file is on one of the policy's storage types. */
  private static boolean inPlace(Aged a, BlockStoragePolicySpi policy) throws IOException {
    Set<StorageType> types = new HashSet<>(java.util.Arrays.asList(policy.getStorageTypes()));
    for (BlockLocation b : a.fs.getFileBlockLocations(a.path, 0, Long.MAX_VALUE)) {
      for (StorageType t : b.getStorageTypes()) {
        if (!types.contains(t)) {
          return false;
        }
      }
    }
    return true;
  }

  private Outcome moved(AgingStore s, Aged a) {
    failedOnce.remove(a.path);
    LOG.debug("Store {}: aged file {} ({} ms since its newest cell) re-placed on {}", s.name(),
      a.path, a.ageMs, a.policy);
    TieringMetrics.placed("aged", a.policy, a.bytes);
    return Outcome.MOVED;
  }

  private Outcome failed(AgingStore s, Aged a, String what, Exception e) {
    TieringMetrics.agedFailure();
    if (failedOnce.add(a.path)) {
      LOG.warn("Store {}: could not {} for aged file {} ({} ms since its newest cell): {}; it "
        + "keeps its blocks where they are and is tried again every {} ms (logged once)",
        s.name(), what, a.path, a.ageMs, e.toString(), intervalMs);
    }
    return Outcome.FAILED;
  }

  /** The stores registered with this JVM's chores (tests and status). */
  static int registeredStores() {
    AgeMover m;
    synchronized (AgeMover.class) {
      m = instance;
    }
    return m == null ? 0 : m.stores.size();
  }
}
