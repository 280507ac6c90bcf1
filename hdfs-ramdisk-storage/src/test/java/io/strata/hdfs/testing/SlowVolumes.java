package io.strata.hdfs.testing;

import io.strata.hdfs.faults.VolumeStallSwitch;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.datanode.FaultInjectorFileIoEvents;
import org.apache.hadoop.hdfs.server.datanode.FileIoProvider;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.FsVolumeSpi;

/**
 * Makes chosen volumes of an in-process DataNode (MiniDFSCluster) slow, for tests and
 * benchmarks. It replaces the fault-injection hook that the DataNode's {@link FileIoProvider}
 * calls before every file and metadata operation on a volume — block writes, reads, flushes,
 * syncs, renames, deletes — with one that sleeps for the chosen volumes. So everything the
 * DataNode does on such a volume is slowed, including what its own I/O profiling measures.
 *
 * <p>A slowdown is a delay per operation (operations overlap, like requests queued on a device
 * with that latency) plus an optional bandwidth: bytes of reads and writes take
 * {@code len / bytesPerSecond} on a per-volume timeline, so concurrent transfers share it, as on
 * one disk. Several volumes can also share one bandwidth ({@link #shareBandwidth}), as disks behind
 * one controller do: a transfer on such a volume is booked on its own timeline and on the shared
 * one, and ends when both have passed it, so the slower of the two sets the pace. Delays are
 * slept, their last 200 µs spun, so that sub-millisecond delays stay close to what was asked on a
 * busy machine. {@link #uninstall()} puts the DataNode's original hook back.
 *
 * <p>It also counts the bytes the DataNode writes to each volume (block and checksum writes and
 * local copies between volumes), slowed or not: what a device would have had to take in.
 *
 * <p>Thread-safe: the DataNode's threads call the hook concurrently while a test or benchmark
 * changes the slowdowns.
 */
public final class SlowVolumes implements AutoCloseable {
  private static final Field HOOK_FIELD = hookField();
  /** The last part of a delay is spun rather than slept. */
  static final long SPIN_NANOS = 200_000;

  private final FileIoProvider io;
  private final FaultInjectorFileIoEvents original;
  private final Map<String, Slowdown> slowdowns = new ConcurrentHashMap<>();
  /** Storage ID to the bandwidth it shares with other volumes. */
  private final Map<String, Bandwidth> shared = new ConcurrentHashMap<>();
  private final Map<String, AtomicLong> delayedOps = new ConcurrentHashMap<>();
  private final Map<String, AtomicLong> bytesWritten = new ConcurrentHashMap<>();
  private volatile IoObserver observer;

  /**
   * Hears every file and metadata operation the DataNode starts on any volume, on the thread
   * that does it, before the operation's delay: e.g. to time when an operation reached its first
   * I/O.
   */
  @FunctionalInterface
  public interface IoObserver {
    void beforeIo(FsVolumeSpi volume);
  }

  private SlowVolumes(FileIoProvider io, FaultInjectorFileIoEvents original) {
    this.io = io;
    this.original = original;
  }

  /**
   * Hooks into the DataNode's I/O (no volume is slow yet).
   *
   * @throws IllegalStateException if a {@code SlowVolumes} is installed on it already
   */
  public static SlowVolumes install(DataNode dn) {
    FileIoProvider io = dn.getFileIoProvider();
    synchronized (io) {
      FaultInjectorFileIoEvents current = hook(io);
      if (current instanceof Hook) {
        throw new IllegalStateException("SlowVolumes already installed on " + dn);
      }
      SlowVolumes handle = new SlowVolumes(io, current);
      setHook(io, handle.new Hook());
      return handle;
    }
  }

  /** Delays every operation on the volume by {@code perOp}. */
  public SlowVolumes slow(FsVolumeSpi volume, Duration perOp) {
    return slow(volume.getStorageID(), perOp, 0);
  }

  /** Delays every operation on the volume with this storage ID by {@code perOp}. */
  public SlowVolumes slow(String storageId, Duration perOp) {
    return slow(storageId, perOp, 0);
  }

  /**
   * Delays every operation on the volume by {@code perOp} and caps its read and write bandwidth
   * at {@code bytesPerSecond} (0: no cap).
   */
  public SlowVolumes slow(FsVolumeSpi volume, Duration perOp, long bytesPerSecond) {
    return slow(volume.getStorageID(), perOp, bytesPerSecond);
  }

  /** As {@link #slow(FsVolumeSpi, Duration, long)}, by storage ID. */
  public SlowVolumes slow(String storageId, Duration perOp, long bytesPerSecond) {
    if (perOp.isNegative() || bytesPerSecond < 0) {
      throw new IllegalArgumentException("negative delay or bandwidth: " + perOp + ", "
        + bytesPerSecond);
    }
    slowdowns.put(storageId, new Slowdown(perOp.toNanos(), bytesPerSecond));
    return this;
  }

  /**
   * Makes the volumes with these storage IDs share one read and write bandwidth of
   * {@code bytesPerSecond}, on top of each one's own slowdown (if any): e.g. disks behind one
   * controller. A volume shares at most one bandwidth; naming it again moves it to the new one.
   */
  public SlowVolumes shareBandwidth(Collection<String> storageIds, long bytesPerSecond) {
    if (bytesPerSecond <= 0) {
      throw new IllegalArgumentException("shared bandwidth must be positive: " + bytesPerSecond);
    }
    Bandwidth link = new Bandwidth(bytesPerSecond);
    storageIds.forEach(id -> shared.put(id, link));
    return this;
  }

  /** Ends every shared bandwidth (each volume's own slowdown stays). */
  public SlowVolumes clearSharedBandwidth() {
    shared.clear();
    return this;
  }

  /** Sets the one observer of every volume's operations (null: none). */
  public SlowVolumes observe(IoObserver o) {
    this.observer = o;
    return this;
  }

  /** Makes the volume fast again. */
  public SlowVolumes clear(FsVolumeSpi volume) {
    return clear(volume.getStorageID());
  }

  /** Makes the volume with this storage ID fast again. */
  public SlowVolumes clear(String storageId) {
    slowdowns.remove(storageId);
    return this;
  }

  /** Makes every volume fast again, shared bandwidths included (the hook stays installed). */
  public SlowVolumes clearAll() {
    slowdowns.clear();
    shared.clear();
    return this;
  }

  /** How many operations on the volume with this storage ID were delayed so far. */
  public long delayedOps(String storageId) {
    AtomicLong n = delayedOps.get(storageId);
    return n == null ? 0 : n.get();
  }

  /**
   * Bytes written to the volume with this storage ID since {@link #install}: {@code WRITE}s to
   * its block and meta files and {@code NATIVE_COPY}s onto it (a block moved between volumes).
   */
  public long bytesWritten(String storageId) {
    AtomicLong n = bytesWritten.get(storageId);
    return n == null ? 0 : n.get();
  }

  /** Puts the DataNode's original hook back; operations in a delay finish it. */
  public void uninstall() {
    synchronized (io) {
      slowdowns.clear();
      shared.clear();
      if (hook(io) instanceof Hook) {
        setHook(io, original);
      }
    }
  }

  @Override
  public void close() {
    uninstall();
  }

  private static final class Slowdown {
    final long perOpNanos;
    /** The volume's own bandwidth, or null when it has none. */
    final Bandwidth bandwidth;

    Slowdown(long perOpNanos, long bytesPerSecond) {
      this.perOpNanos = perOpNanos;
      this.bandwidth = bytesPerSecond > 0 ? new Bandwidth(bytesPerSecond) : null;
    }
  }

  /** A bandwidth timeline: transfers booked on it run one after another at its rate. */
  static final class Bandwidth {
    final long bytesPerSecond;
    /** End of the transfers booked so far. */
    private long busyUntilNanos = Long.MIN_VALUE;

    Bandwidth(long bytesPerSecond) {
      this.bytesPerSecond = bytesPerSecond;
    }

    /** Books {@code len} bytes on the timeline; returns when the transfer ends. */
    synchronized long book(long now, long len) {
      long start = Math.max(now, busyUntilNanos);
      busyUntilNanos = start + (long) (len * 1e9 / bytesPerSecond);
      return busyUntilNanos;
    }
  }

  /**
   * When an operation of {@code len} bytes started at {@code now} ends: after the volume's
   * per-operation delay, and after its bytes have passed both the volume's own bandwidth and the
   * bandwidth it shares (either may be null).
   */
  static long end(long now, long len, long perOpNanos, Bandwidth own, Bandwidth sharedLink) {
    long until = now + perOpNanos;
    if (len > 0) {
      if (own != null) {
        until = Math.max(until, own.book(now, len));
      }
      if (sharedLink != null) {
        until = Math.max(until, sharedLink.book(now, len));
      }
    }
    return until;
  }

  private final class Hook extends FaultInjectorFileIoEvents {
    Hook() {
      super(null);
    }

    @Override
    public void beforeMetadataOp(FsVolumeSpi volume, FileIoProvider.OPERATION op) {
      original.beforeMetadataOp(volume, op);
      delay(volume, 0);
    }

    @Override
    public void beforeFileIo(FsVolumeSpi volume, FileIoProvider.OPERATION op, long len) {
      original.beforeFileIo(volume, op, len);
      if (volume != null && len > 0
        && (op == FileIoProvider.OPERATION.WRITE || op == FileIoProvider.OPERATION.NATIVE_COPY)) {
        bytesWritten.computeIfAbsent(volume.getStorageID(), k -> new AtomicLong()).addAndGet(len);
      }
      delay(volume, len);
    }

    private void delay(FsVolumeSpi volume, long len) {
      IoObserver o = observer;
      if (o != null) {
        o.beforeIo(volume);
      }
      if (volume == null) {
        return;
      }
      Slowdown s = slowdowns.get(volume.getStorageID());
      Bandwidth link = shared.get(volume.getStorageID());
      if (s == null && (link == null || len <= 0)) {
        return;
      }
      delayedOps.computeIfAbsent(volume.getStorageID(), k -> new AtomicLong()).incrementAndGet();
      long now = System.nanoTime();
      sleepUntil(end(now, len, s == null ? 0 : s.perOpNanos, s == null ? null : s.bandwidth,
        link));
    }
  }

  /**
   * Sleeps until {@value #SPIN_NANOS} ns before the deadline, then spins: a sleeping thread wakes
   * up late (about 1 ms for an 80 µs sleep on a busy two-core machine), which would turn an
   * SSD-like delay into an HDD-like one.
   */
  private static void sleepUntil(long deadlineNanos) {
    long left;
    while ((left = deadlineNanos - System.nanoTime()) > SPIN_NANOS) {
      try {
        TimeUnit.NANOSECONDS.sleep(left - SPIN_NANOS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    while (deadlineNanos - System.nanoTime() > 0) {
      Thread.onSpinWait();
    }
  }

  private static Field hookField() {
    return VolumeStallSwitch.faultHookField("SlowVolumes");
  }

  private static FaultInjectorFileIoEvents hook(FileIoProvider io) {
    try {
      return (FaultInjectorFileIoEvents) HOOK_FIELD.get(io);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void setHook(FileIoProvider io, FaultInjectorFileIoEvents hook) {
    try {
      HOOK_FIELD.set(io, hook);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(e);
    }
  }
}
