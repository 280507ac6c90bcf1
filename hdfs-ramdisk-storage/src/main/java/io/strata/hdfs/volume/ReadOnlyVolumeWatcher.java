package io.strata.hdfs.volume;

import io.strata.hdfs.HdfsKeys;
import java.io.File;
import java.io.IOException;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.datanode.checker.VolumeCheckResult;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.FsDatasetSpi;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.FsVolumeSpi;
import org.apache.hadoop.util.ServicePlugin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A DataNode plug-in that fails a volume whose file system has gone read-only, which HDFS's own
 * volume check lets through: that check asks {@code access(W_OK)} only (HDFS-13538 proposed an
 * I/O check and was not merged), and an ext4 file system that turned read-only after an error
 * still passes it on newer kernels. The DataNode then keeps such a volume: every block written
 * to it fails, the writers' pipelines route around it, and the NameNode never learns that the
 * storage is gone, so its replicas are not re-replicated until they are read and found missing.
 *
 * <p>Every {@link HdfsKeys#READONLY_CHECK_INTERVAL_MS} the watcher reads the mount table
 * ({@link MountTable}: {@code ro}, {@code emergency_ro}); every
 * {@link HdfsKeys#READONLY_PROBE_INTERVAL_MS} it also creates and deletes an empty file on each
 * persistent volume, with no sync, for kernels whose mount table does not show the state (some
 * answer such a create with an I/O error rather than "read-only"). Only "Read-only file system"
 * and "Input/output error" count, twice in a row: a full volume or an exhausted quota must not
 * be failed (the trap HDFS-13538 fell into). The errors are matched by the C library's text,
 * which the DataNode's locale could translate: Hadoop's daemons run in the C or an English
 * locale. The probes run on a thread of their own, so a hung device delays only them, never the
 * mount table's checks; a probe that has not returned is not started again. The RAM tier is not
 * watched.
 *
 * <p>A volume found read-only is handed to the DataNode's own disk-error path,
 * {@link DataNode#checkDiskErrorAsync}, wrapped so that its check reports it failed. From there
 * upstream does what it does for any failed disk: the DataNode removes the volume and its
 * replicas, reports the volume failure to the NameNode, which marks the storage failed and
 * re-replicates; with more failed volumes than {@code dfs.datanode.failed.volumes.tolerated} the
 * DataNode stops, as upstream. Each volume is failed once; a volume that comes back (a restart,
 * or a re-add by {@code dfsadmin -reconfig}) is watched again.
 *
 * <p>Off unless named: {@code dfs.datanode.plugins = io.strata.hdfs.volume.ReadOnlyVolumeWatcher}
 * (read at start). One daemon thread; a check that throws is logged and the next one runs.
 */
public final class ReadOnlyVolumeWatcher implements ServicePlugin {
  private static final Logger LOG = LoggerFactory.getLogger(ReadOnlyVolumeWatcher.class);
  /** The text the JDK gives for {@code EROFS}. */
  static final String EROFS = "Read-only file system";
  /** The text the JDK gives for {@code EIO}. */
  static final String EIO = "Input/output error";
  /** Probes failing with {@link #EROFS} in a row before a volume is failed on the probe alone. */
  static final int PROBE_REFUSALS_TO_FAIL = 2;

  /** Why a volume's directory cannot be written, or null; a seam for tests of the failing path. */
  interface ReadOnlySign {
    String readOnlyReason(FsVolumeSpi volume, Path dir);
  }

  /** Volumes failed and not yet removed, by identity: a re-added volume is a new object. */
  private final Set<FsVolumeSpi> failed =
    Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));
  private final ConcurrentHashMap<String, Integer> refusals = new ConcurrentHashMap<>();
  private final ReadOnlySign extraSign;
  private volatile DataNode dn;
  private ScheduledExecutorService poller;
  private ExecutorService prober;
  private volatile Future<?> probing;
  private long probingSinceNanos;
  private boolean probeHangWarned;
  private long probeMs;
  private long nextProbeNanos;
  private volatile boolean tableWarned;

  public ReadOnlyVolumeWatcher() {
    this(null);
  }

  /** With a further sign of read-only, asked after the mount table (tests). */
  ReadOnlyVolumeWatcher(ReadOnlySign extraSign) {
    this.extraSign = extraSign;
  }

  @Override
  public void start(Object service) {
    if (!(service instanceof DataNode)) {
      LOG.warn("{} is a DataNode plug-in, not one of {}: off", getClass().getSimpleName(),
        service == null ? null : service.getClass().getName());
      return;
    }
    dn = (DataNode) service;
    long checkMs = HdfsKeys.readOnlyCheckIntervalMs(dn.getConf());
    probeMs = HdfsKeys.readOnlyProbeIntervalMs(dn.getConf());
    nextProbeNanos = System.nanoTime();
    poller = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "strata-readonly-volume-watcher");
      t.setDaemon(true);
      return t;
    });
    prober = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "strata-readonly-volume-probe");
      t.setDaemon(true);
      return t;
    });
    poller.scheduleWithFixedDelay(this::poll, checkMs, checkMs, TimeUnit.MILLISECONDS);
    LOG.info("Read-only volume watcher on: the mount table every {} ms ({}){}; a read-only "
      + "persistent volume is failed through the DataNode's disk-error path",
      checkMs, HdfsKeys.READONLY_CHECK_INTERVAL_MS, probeMs == 0
        ? ", no create probe (" + HdfsKeys.READONLY_PROBE_INTERVAL_MS + "=0)"
        : ", a create probe every " + probeMs + " ms (" + HdfsKeys.READONLY_PROBE_INTERVAL_MS + ")");
  }

  @Override
  public void stop() {
    if (poller != null) {
      poller.shutdownNow();
    }
    if (prober != null) {
      prober.shutdownNow();
    }
  }

  @Override
  public void close() {
    stop();
  }

  /** One pass over the volumes; never throws, so the schedule goes on. */
  void poll() {
    try {
      check();
    } catch (Throwable t) {
      LOG.warn("Read-only volume watcher: a check of this DataNode's volumes failed; the next "
        + "one runs as scheduled", t);
    }
  }

  private void check() {
    FsDatasetSpi<?> dataset = dn.getFSDataset();
    if (dataset == null) {
      return;
    }
    List<FsVolumeSpi> volumes = new ArrayList<>();
    // The references are closed before any volume is failed: removing a volume waits for its
    // references to be released.
    try (FsDatasetSpi.FsVolumeReferences refs = dataset.getFsVolumeReferences()) {
      for (FsVolumeSpi v : refs) {
        volumes.add(v);
      }
    } catch (IOException e) {
      LOG.warn("Read-only volume watcher: could not release the volume references", e);
    }
    Set<String> present = new HashSet<>();
    for (FsVolumeSpi v : volumes) {
      present.add(v.getStorageID());
    }
    synchronized (failed) {
      failed.removeIf(f -> volumes.stream().noneMatch(v -> v == f));
    }
    refusals.keySet().retainAll(present);
    MountTable table = mountTable();
    boolean probeDue = probeMs > 0 && System.nanoTime() - nextProbeNanos >= 0;
    if (probeDue) {
      nextProbeNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(probeMs);
    }
    List<FsVolumeSpi> toProbe = new ArrayList<>();
    for (FsVolumeSpi v : volumes) {
      if (v.isTransientStorage() || v.getStorageType().isRAM() || failed.contains(v)) {
        continue;
      }
      Path dir = dirOf(v);
      if (dir == null) {
        continue;
      }
      String why = null;
      if (table != null) {
        MountTable.Mount m = table.mountOf(dir);
        why = m == null || m.readOnlyReason() == null ? null
          : m.readOnlyReason() + ", " + m.source() + " on " + m.mountPoint();
      }
      if (why == null && extraSign != null) {
        why = extraSign.readOnlyReason(v, dir);
      }
      if (why != null) {
        fail(v, dir, why);
      } else if (probeMs > 0 && (probeDue || refusals.containsKey(v.getStorageID()))) {
        toProbe.add(v);
      }
    }
    if (!toProbe.isEmpty()) {
      probeOnItsThread(toProbe);
    }
  }

  /**
   * Hands the probes to their thread, unless the last ones have not returned: a create on a
   * hung device blocks, and the mount table's checks must go on meanwhile.
   */
  private void probeOnItsThread(List<FsVolumeSpi> toProbe) {
    Future<?> last = probing;
    if (last != null && !last.isDone()) {
      long s = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - probingSinceNanos);
      if (!probeHangWarned && s >= 60) {
        probeHangWarned = true;
        LOG.warn("Read-only volume watcher: a create probe of this DataNode's volumes has not "
          + "returned for {} s (a hung or frozen device?); no new probe until it does, the "
          + "mount table is still read every check", s);
      }
      return;
    }
    probeHangWarned = false;
    probingSinceNanos = System.nanoTime();
    probing = prober.submit(() -> {
      for (FsVolumeSpi v : toProbe) {
        try {
          probeOne(v);
        } catch (RuntimeException e) {
          LOG.warn("Read-only volume watcher: the probe of {} failed", dirOf(v), e);
        }
      }
    });
  }

  private void probeOne(FsVolumeSpi v) {
    Path dir = dirOf(v);
    String why = probe(dir);
    String id = v.getStorageID();
    if (why == null) {
      refusals.remove(id);
    } else if (refusals.merge(id, 1, Integer::sum) >= PROBE_REFUSALS_TO_FAIL) {
      refusals.remove(id);
      fail(v, dir, why + " (" + PROBE_REFUSALS_TO_FAIL + " probes in a row)");
    } else {
      LOG.warn("Volume {} of this DataNode refused a file: {}; probing it again in the next "
        + "check before failing it", dir, why);
    }
  }

  private MountTable mountTable() {
    try {
      MountTable t = MountTable.read();
      tableWarned = false;
      return t;
    } catch (IOException | RuntimeException e) {
      if (!tableWarned) {
        tableWarned = true;
        LOG.warn("Read-only volume watcher: cannot read {} ({}); only the create probe ({}) can "
          + "find a read-only volume until it can", MountTable.PROC_MOUNTINFO, e,
          HdfsKeys.READONLY_PROBE_INTERVAL_MS);
      }
      return null;
    }
  }

  private static Path dirOf(FsVolumeSpi v) {
    URI base = v.getBaseURI();
    if (base == null) {
      return null;
    }
    Path p = new File(base).toPath();
    try {
      return p.toRealPath();
    } catch (IOException e) {
      return p.toAbsolutePath().normalize();
    }
  }

  /**
   * Creates and deletes an empty file in the volume's directory, without a sync; why the
   * directory cannot be written when the create failed with {@link #EROFS}, else null.
   */
  static String probe(Path dir) {
    Path f = null;
    try {
      f = Files.createTempFile(dir, ".strata-readonly-probe-", ".tmp");
      return null;
    } catch (IOException e) {
      String reason = e instanceof FileSystemException
        ? ((FileSystemException) e).getReason() : null;
      return isReadOnly(e) || isIoError(e) ? "creating a file in it failed: " + reason : null;
    } finally {
      if (f != null) {
        try {
          Files.deleteIfExists(f);
        } catch (IOException e) {
          LOG.warn("Could not delete the read-only probe file {}", f, e);
        }
      }
    }
  }

  /** Whether an I/O error is "read-only file system", and not, say, a full volume or quota. */
  static boolean isReadOnly(IOException e) {
    return e instanceof FileSystemException && EROFS.equals(((FileSystemException) e).getReason());
  }

  /** Whether an I/O error is the device's "input/output error". */
  static boolean isIoError(IOException e) {
    return e instanceof FileSystemException && EIO.equals(((FileSystemException) e).getReason());
  }

  private void fail(FsVolumeSpi v, Path dir, String why) {
    if (!failed.add(v)) {
      return;
    }
    LOG.error("Volume {} ({} storage {}) of this DataNode is read-only: {}. HDFS's own volume "
      + "check does not see it (access(W_OK) only). Failing it as a disk error: the DataNode "
      + "drops the volume and its replicas and serves from its other volumes, and the NameNode "
      + "marks the storage failed and re-replicates. To get it back: repair the file system "
      + "(e2fsck), then restart the DataNode or re-add the directory (dfsadmin -reconfig)",
      dir, v.getStorageType(), v.getStorageID(), why);
    try {
      dn.checkDiskErrorAsync(failing(v));
    } catch (RuntimeException e) {
      // Not handed over (the DataNode shutting down): the next check tries again.
      failed.remove(v);
      LOG.warn("Read-only volume watcher: could not hand volume {} to the DataNode's disk-error "
        + "path; trying again at the next check", dir, e);
    }
  }

  /**
   * The volume, with a check that reports it failed. The DataNode's checker records the volume
   * the reference points to, which is the real one, and hands it to upstream's handling of
   * failed volumes; every other call goes to the real volume.
   */
  static FsVolumeSpi failing(FsVolumeSpi real) {
    InvocationHandler h = (proxy, m, args) -> {
      switch (m.getName()) {
        case "check":
          return VolumeCheckResult.FAILED;
        case "equals":
          return proxy == args[0];
        case "hashCode":
          return System.identityHashCode(proxy);
        case "toString":
          return real.toString();
        default:
          try {
            return m.invoke(real, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
      }
    };
    return (FsVolumeSpi) Proxy.newProxyInstance(FsVolumeSpi.class.getClassLoader(),
      new Class<?>[] { FsVolumeSpi.class }, h);
  }
}
