package io.strata.hbase.tiering;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.fs.BlockStoragePolicySpi;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FilterFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.fs.HFileSystem;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.BlockStoragePolicy;
import org.apache.hadoop.hdfs.protocol.HdfsConstants;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;
import org.apache.hadoop.ipc.RemoteException;
import org.apache.hadoop.ipc.RetriableException;
import org.apache.hadoop.ipc.StandbyException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The RegionServer's placements that wait for the NameNode: files whose storage policy could not
 * be pinned while it did not answer, and the placement checks of stores that opened. One per JVM,
 * so that what a store could not place outlives the store: a region that moves, splits or closes
 * during an outage leaves its files here, and they are pinned (and their blocks handed to the
 * Storage Policy Satisfier) once the NameNode answers. What a RegionServer that stops leaves here
 * is lost with it; the next opener of each region finds those files by its placement check
 * ({@link #check}): a store file of a placed kind with no policy of its own.
 *
 * <p>One daemon thread does every NameNode call, so no flush, compaction or region open waits for
 * a NameNode; when one fails because the NameNode does not answer, that file system's files wait
 * (1 s, doubling to 5 min) and are tried again, while other file systems' files go on. The thread is restarted by the next hand-over if it ever
 * dies (logged). Bounded: beyond {@link #MAX_FILES} files, or after a file waited
 * {@link #MAX_WAIT_MS}, a file is dropped with a WARN naming it and {@code strata migrate}.
 *
 * <p>Thread-safety: every method may be called from any thread; the state is guarded by the
 * queue's monitor, and NameNode calls are made outside it.
 */
final class PlacementQueue {
  private static final Logger LOG = LoggerFactory.getLogger(PlacementQueue.class);

  /** Name of the queue's thread (tests and thread dumps tell its calls by it). */
  static final String THREAD_NAME = "strata-placement-queue";
  /** First wait after a round the NameNode did not answer; doubled per failed round. */
  static final long FIRST_RETRY_MS = 1_000;
  /** Longest wait between two rounds. */
  static final long MAX_RETRY_MS = 300_000;
  /**
   * Files waiting at most, RegionServer-wide: an outage long enough to fill it saw that many
   * flushes, compactions and archivings; later files are left to {@code strata migrate}.
   */
  static final int MAX_FILES = 100_000;
  /** How long a file waits at most before it is left to {@code strata migrate} (logged). */
  static final long MAX_WAIT_MS = 24 * 3600_000L;

  private static final PlacementQueue INSTANCE = new PlacementQueue();

  static PlacementQueue get() {
    return INSTANCE;
  }

  /** A file whose policy is to be pinned. */
  static final class Item {
    final FileSystem fs;
    final Path path;
    final String policy;
    final String kind;
    final long bytes;
    final String store;
    final String table;
    final long sinceMs = System.currentTimeMillis();

    Item(FileSystem fs, Path path, String policy, String kind, long bytes, String store,
      String table) {
      this.fs = fs;
      this.path = path;
      this.policy = policy;
      this.kind = kind;
      this.bytes = bytes;
      this.store = store;
      this.table = table;
    }
  }

  /** A store file written while deferred: its name and the policy its file info names. */
  static final class Expected {
    final String name;
    final String policy;
    final String kind;
    final long bytes;

    Expected(String name, String policy, String kind, long bytes) {
      this.name = name;
      this.policy = policy;
      this.kind = kind;
      this.bytes = bytes;
    }
  }

  /** The placement check of a store that opened: one listing of its family directory. */
  static final class StoreCheck {
    final FileSystem fs;
    final Path familyDir;
    final String store;
    final String table;
    final List<Expected> files;

    StoreCheck(FileSystem fs, Path familyDir, String store, String table, List<Expected> files) {
      this.fs = fs;
      this.familyDir = familyDir;
      this.store = store;
      this.table = table;
      this.files = files;
    }
  }

  /** Outcome of one NameNode call for a file. */
  private enum Outcome {
    DONE, NOT_ANSWERING
  }

  private final Map<Path, Item> items = new LinkedHashMap<>();
  private final Deque<StoreCheck> checks = new ArrayDeque<>();
  /** Per file system that did not answer: {time of its next try, its current wait}. */
  private final Map<FileSystem, long[]> backOff = new IdentityHashMap<>();
  private Thread worker;
  private long errorWaitMs = FIRST_RETRY_MS;
  private boolean overflowLogged;
  private long restarts;

  /**
   * Hands a file over; returns false (logged) if the queue is full. Never calls the NameNode.
   */
  synchronized boolean add(Item item) {
    if (!items.containsKey(item.path) && items.size() >= MAX_FILES) {
      if (!overflowLogged) {
        overflowLogged = true;
        LOG.warn("{} files already wait for their storage policy on this RegionServer; {} HFile "
          + "{} of store {} and later ones keep the policy they have: run 'strata migrate "
          + "--table {}' once the NameNode answers", MAX_FILES, item.kind, item.path, item.store,
          item.table);
      }
      return false;
    }
    items.put(item.path, item);
    wake();
    return true;
  }

  /** Queues the placement check of a store that opened. Never calls the NameNode. */
  synchronized void check(StoreCheck check) {
    checks.add(check);
    wake();
  }

  /** The files of a store still waiting, in the order they came. */
  synchronized List<Path> waiting(String store) {
    List<Path> paths = new ArrayList<>();
    for (Item i : items.values()) {
      if (i.store.equals(store)) {
        paths.add(i.path);
      }
    }
    return paths;
  }

  /** Whether the store has a placement check not run yet. */
  synchronized boolean checkWaiting(String store) {
    for (StoreCheck c : checks) {
      if (c.store.equals(store)) {
        return true;
      }
    }
    return false;
  }

  synchronized int size() {
    return items.size();
  }

  /** Times the queue's thread died and was started again. */
  synchronized long restarts() {
    return restarts;
  }

  private void wake() {
    if (worker == null || !worker.isAlive()) {
      if (worker != null) {
        restarts++;
        LOG.error("The placement queue's thread had died (see above); started again with {} "
          + "files and {} store checks waiting", items.size(), checks.size());
      }
      worker = new Thread(this::run, THREAD_NAME);
      worker.setDaemon(true);
      worker.start();
    }
    notifyAll();
  }

  private void run() {
    while (true) {
      try {
        Set<FileSystem> notDue = Collections.newSetFromMap(new IdentityHashMap<>());
        synchronized (this) {
          while (true) {
            long now = System.currentTimeMillis();
            long due = Long.MAX_VALUE;
            notDue.clear();
            for (FileSystem f : filesystemsWithWork()) {
              long[] b = backOff.get(f);
              long at = b == null ? 0 : b[0];
              if (at > now) {
                notDue.add(f);
              }
              due = Math.min(due, at);
            }
            if (due <= now) {
              break;
            }
            wait(due == Long.MAX_VALUE ? 60_000 : due - now);
          }
        }
        Set<FileSystem> silent = round(notDue);
        synchronized (this) {
          Set<FileSystem> withWork = filesystemsWithWork();
          backOff.keySet().removeIf(f -> !silent.contains(f) && !notDue.contains(f)
            || !withWork.contains(f));
          for (FileSystem f : silent) {
            long[] b = backOff.computeIfAbsent(f, k -> new long[] { 0, FIRST_RETRY_MS });
            b[0] = System.currentTimeMillis() + b[1];
            LOG.info("Placement queue: the NameNode of {} did not answer; {} files and {} store "
              + "checks wait; next try in {} s", f.getUri(), count(f), checks.size(), b[1] / 1000);
            b[1] = Math.min(b[1] * 2, MAX_RETRY_MS);
          }
        }
        errorWaitMs = FIRST_RETRY_MS;
      } catch (InterruptedException e) {
        LOG.warn("Placement queue thread interrupted; {} files wait for the next hand-over",
          size());
        return;
      } catch (RuntimeException | Error e) {
        // Keep serving: the next round runs after a back-off of its own.
        LOG.error("Placement queue round failed; trying again in {} s", errorWaitMs / 1000, e);
        try {
          Thread.sleep(errorWaitMs);
        } catch (InterruptedException ie) {
          return;
        }
        errorWaitMs = Math.min(errorWaitMs * 2, MAX_RETRY_MS);
      }
    }
  }

  /** The file systems that files or checks wait for. */
  private synchronized Set<FileSystem> filesystemsWithWork() {
    Set<FileSystem> fss = Collections.newSetFromMap(new IdentityHashMap<>());
    for (Item i : items.values()) {
      fss.add(i.fs);
    }
    for (StoreCheck c : checks) {
      fss.add(c.fs);
    }
    return fss;
  }

  private synchronized int count(FileSystem f) {
    int n = 0;
    for (Item i : items.values()) {
      if (i.fs == f) {
        n++;
      }
    }
    return n;
  }

  /**
   * One pass over the checks and files of the file systems that are due; returns those whose
   * NameNode did not answer. One that does not answer is not asked again in the pass, and holds
   * up no other's files: each waits with a back-off of its own.
   */
  private Set<FileSystem> round(Set<FileSystem> notDue) {
    Set<FileSystem> silent = Collections.newSetFromMap(new IdentityHashMap<>());
    List<StoreCheck> pendingChecks;
    synchronized (this) {
      pendingChecks = new ArrayList<>(checks);
    }
    for (StoreCheck c : pendingChecks) {
      if (silent.contains(c.fs) || notDue.contains(c.fs)) {
        continue;
      }
      if (closed(c.fs)) {
        LOG.warn("Placement check of store {} dropped: its RegionServer's file system is closed "
          + "(the RegionServer stopped); the next opener of the region checks again", c.store);
      } else if (runCheck(c) == Outcome.NOT_ANSWERING) {
        silent.add(c.fs);
        continue;
      }
      synchronized (this) {
        checks.remove(c);
      }
    }
    List<Item> snapshot;
    synchronized (this) {
      snapshot = new ArrayList<>(items.values());
    }
    int pinned = 0;
    Map<String, Integer> byStore = new HashMap<>();
    for (Item i : snapshot) {
      if (silent.contains(i.fs) || notDue.contains(i.fs)) {
        continue;
      }
      if (closed(i.fs)) {
        LOG.warn("{} HFile {} of store {} dropped from the placement queue: its RegionServer's "
          + "file system is closed (the RegionServer stopped); the next opener of the region "
          + "places it at open ({}), as does 'strata migrate --table {}'", i.kind, i.path,
          i.store, TieringKeys.CHECK_ON_OPEN, i.table);
        remove(i);
        continue;
      }
      if (System.currentTimeMillis() - i.sinceMs > MAX_WAIT_MS) {
        LOG.warn("{} HFile {} of store {} waited {} h for the NameNode; dropped: run 'strata "
          + "migrate --table {}' to give it policy {}", i.kind, i.path, i.store,
          MAX_WAIT_MS / 3600_000L, i.table, i.policy);
        remove(i);
        continue;
      }
      if (pin(i) == Outcome.NOT_ANSWERING) {
        silent.add(i.fs);
        continue;
      }
      remove(i);
      pinned++;
      byStore.merge(i.store, 1, Integer::sum);
    }
    if (pinned > 0) {
      LOG.info("Placement queue: placed {} files that waited for the NameNode (per store: {})",
        pinned, byStore);
    }
    return silent;
  }

  /**
   * Whether the file system was closed (its RegionServer stopped): its calls fail for ever, and
   * are not the NameNode's silence.
   */
  static boolean closed(FileSystem fs) {
    FileSystem f = fs;
    while (f instanceof FilterFileSystem) {
      f = ((FilterFileSystem) f).getRawFileSystem();
    }
    return f instanceof DistributedFileSystem
      && !((DistributedFileSystem) f).getClient().isClientRunning();
  }

  private synchronized void remove(Item i) {
    items.remove(i.path, i);
    if (items.size() < MAX_FILES) {
      overflowLogged = false;
    }
  }

  /** Pins the file's policy and asks for the move of its blocks (they were written before). */
  private Outcome pin(Item i) {
    try {
      i.fs.setStoragePolicy(i.path, i.policy);
    } catch (FileNotFoundException e) {
      LOG.debug("{} HFile {} is gone (compacted away or deleted); nothing to place", i.kind,
        i.path);
      return Outcome.DONE;
    } catch (IOException e) {
      if (notAnswering(e)) {
        return Outcome.NOT_ANSWERING;
      }
      LOG.warn("Could not set storage policy {} on {} HFile {} of store {}: {}; its blocks stay "
        + "where they are", i.policy, i.kind, i.path, i.store, e.toString());
      return Outcome.DONE;
    } catch (RuntimeException e) {
      LOG.warn("Could not set storage policy {} on {} HFile {} of store {}: {}; its blocks stay "
        + "where they are", i.policy, i.kind, i.path, i.store, e.toString());
      return Outcome.DONE;
    }
    try {
      i.fs.satisfyStoragePolicy(i.path);
    } catch (FileNotFoundException e) {
      return Outcome.DONE;
    } catch (IOException e) {
      if (notAnswering(e)) {
        return Outcome.NOT_ANSWERING; // the pin is repeated, which does no harm
      }
      LOG.warn("Set storage policy {} on {} HFile {} but could not queue the move of its blocks "
        + "({}); is dfs.storage.policy.satisfier.mode=external with an SPS running? Run "
        + "'strata mover -p {}' to move them", i.policy, i.kind, i.path, e.toString(), i.path);
      return Outcome.DONE;
    } catch (RuntimeException e) {
      LOG.warn("Set storage policy {} on {} HFile {} but could not queue the move of its blocks "
        + "({}); run 'strata mover -p {}' to move them", i.policy, i.kind, i.path, e.toString(),
        i.path);
      return Outcome.DONE;
    }
    LOG.debug("Placed {} HFile {} of store {} on {}", i.kind, i.path, i.store, i.policy);
    TieringMetrics.placed(i.kind, i.policy, i.bytes);
    return Outcome.DONE;
  }

  /**
   * Lists the store's family directory once and queues every file written while the NameNode did
   * not answer that still has no policy of its own: its pin was lost with the RegionServer that
   * wrote it.
   */
  private Outcome runCheck(StoreCheck c) {
    Map<String, Byte> ids = new HashMap<>();
    FileStatus[] listing;
    try {
      for (BlockStoragePolicySpi p : c.fs.getAllStoragePolicies()) {
        if (p instanceof BlockStoragePolicy) {
          ids.put(p.getName().toUpperCase(Locale.ROOT), ((BlockStoragePolicy) p).getId());
        }
      }
      listing = c.fs.listStatus(c.familyDir);
    } catch (FileNotFoundException e) {
      return Outcome.DONE; // the region was split or deleted since it opened
    } catch (IOException e) {
      if (notAnswering(e)) {
        return Outcome.NOT_ANSWERING;
      }
      LOG.warn("Placement check of store {} skipped: listing {} failed ({}); run 'strata migrate "
        + "--table {}' to place its files", c.store, c.familyDir, e.toString(), c.table);
      return Outcome.DONE;
    } catch (RuntimeException e) {
      LOG.warn("Placement check of store {} skipped: {}", c.store, e.toString());
      return Outcome.DONE;
    }
    Map<String, Expected> expected = new HashMap<>();
    for (Expected e : c.files) {
      expected.put(e.name, e);
    }
    List<String> queued = new ArrayList<>();
    for (FileStatus st : listing) {
      Expected e = expected.get(st.getPath().getName());
      if (e == null || !(st instanceof HdfsFileStatus) || !ids.containsKey(e.policy)) {
        continue; // not a file the store loaded, not HDFS, or a policy this HDFS lacks (logged)
      }
      if (((HdfsFileStatus) st).getStoragePolicy()
        != HdfsConstants.BLOCK_STORAGE_POLICY_ID_UNSPECIFIED) {
        continue; // pinned since, by the queue of the RegionServer that wrote it
      }
      if (add(new Item(c.fs, st.getPath(), e.policy, e.kind, e.bytes, c.store, c.table))) {
        queued.add(st.getPath().getName() + " -> " + e.policy);
      }
    }
    if (!queued.isEmpty()) {
      LOG.info("Placement check of store {}: {} files written while the NameNode did not answer "
        + "have no storage policy yet (placing them here too, in case the RegionServer that wrote "
        + "them stopped first): {}", c.store, queued.size(), queued);
    }
    return Outcome.DONE;
  }

  /**
   * The file system to make storage-policy calls on: HBase's {@link HFileSystem} logs and swallows
   * a failed {@code setStoragePolicy}, so that a pin the NameNode never saw would look made; its
   * backing file system reports the failure.
   */
  static FileSystem policyFs(FileSystem fs) {
    if (fs instanceof HFileSystem) {
      try {
        return ((HFileSystem) fs).getBackingFs();
      } catch (IOException e) {
        LOG.warn("Cannot reach the file system behind {} ({}); storage-policy failures on it are "
          + "logged by HBase, not retried", fs.getUri(), e.toString());
      }
    }
    return fs;
  }

  /** Whether the NameNode did not answer (rather than answering with a refusal). */
  static boolean notAnswering(IOException e) {
    if (!(e instanceof RemoteException)) {
      return true;
    }
    IOException unwrapped = ((RemoteException) e).unwrapRemoteException(StandbyException.class,
      RetriableException.class);
    return unwrapped instanceof StandbyException || unwrapped instanceof RetriableException;
  }

  /** For logs: the first {@code max} paths and the count of the others. */
  static String names(List<Path> paths, int max) {
    StringBuilder sb = new StringBuilder();
    Iterator<Path> it = paths.iterator();
    for (int n = 0; it.hasNext() && n < max; n++) {
      sb.append(n == 0 ? "" : ", ").append(it.next());
    }
    if (paths.size() > max) {
      sb.append(" and ").append(paths.size() - max).append(" more");
    }
    return sb.toString();
  }
}
