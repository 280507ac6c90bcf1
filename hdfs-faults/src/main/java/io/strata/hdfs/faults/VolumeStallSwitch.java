package io.strata.hdfs.faults;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Field;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.datanode.FaultInjectorFileIoEvents;
import org.apache.hadoop.hdfs.server.datanode.FileIoProvider;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.FsDatasetSpi;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.FsVolumeSpi;
import org.apache.hadoop.util.ServicePlugin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A switch, for fault campaigns, that stalls one volume of a running DataNode process: while a
 * file {@value #FLAG_FILE} holding a number of milliseconds exists in a volume's directory (next
 * to its {@code current/}), every file and metadata operation the DataNode starts on that volume
 * (block and checksum writes, reads, flushes, syncs, renames, deletes) first sleeps that long;
 * remove the file and the volume is fast again within a second. It is a DataNode plugin, off
 * unless named: {@code dfs.datanode.plugins = io.strata.hdfs.faults.VolumeStallSwitch} (read
 * at start; {@code bin/strata-cluster} names it for its DataNodes).
 *
 * <p>It also carries the in-process media emulation, off unless configured: a fixed delay per
 * operation for each storage type ({@link FaultKeys#MEDIA_DELAY_US_PREFIX}, read at start), added
 * to any stall. {@code bin/strata-cluster} sets it only where block-layer emulation is refused.
 *
 * <p>The delay goes where the in-process test helper {@code SlowVolumes} puts it: the DataNode's
 * {@link FileIoProvider} fault-injection hook, replaced by reflection (the hook it replaces is
 * still called). The flag files are read once a second, by one daemon thread.
 */
public final class VolumeStallSwitch implements ServicePlugin {
  private static final Logger LOG = LoggerFactory.getLogger(VolumeStallSwitch.class);
  /** The file whose presence in a volume's directory stalls the volume. */
  public static final String FLAG_FILE = "strata-stall-ms";
  /** Longest delay taken from a flag file: a minute per operation. */
  static final long MAX_DELAY_MS = 60_000;

  private final Map<String, Long> delayNanos = new ConcurrentHashMap<>();
  /** The media emulation's delay per storage type; empty when off. Written once, at start. */
  private volatile Map<StorageType, Long> mediaNanos = Collections.emptyMap();
  private ScheduledExecutorService poller;
  private FileIoProvider io;
  private FaultInjectorFileIoEvents original;

  /**
   * The delay a flag file's text asks for, in milliseconds: a whole number from 0 to
   * {@value #MAX_DELAY_MS}, blanks around it ignored; -1 when it is anything else.
   */
  public static long parseDelayMs(String text) {
    String t = text == null ? "" : text.trim();
    if (t.isEmpty() || t.length() > 9 || !t.chars().allMatch(Character::isDigit)) {
      return -1;
    }
    long ms = Long.parseLong(t);
    return ms <= MAX_DELAY_MS ? ms : -1;
  }

  @Override
  public void start(Object service) {
    if (!(service instanceof DataNode)) {
      LOG.warn("{} is a DataNode plugin, not one of {}: off", getClass().getSimpleName(),
        service == null ? null : service.getClass().getName());
      return;
    }
    DataNode dn = (DataNode) service;
    Map<StorageType, Long> media = new EnumMap<>(StorageType.class);
    for (StorageType t : StorageType.values()) {
      long us = FaultKeys.mediaDelayUs(dn.getConf(), t);
      if (us > 0) {
        media.put(t, TimeUnit.MICROSECONDS.toNanos(us));
      }
    }
    mediaNanos = media.isEmpty() ? Collections.emptyMap() : media;
    if (!media.isEmpty()) {
      LOG.info("In-process media emulation on ({}*): every file and metadata operation on a "
        + "volume waits {} before it starts", FaultKeys.MEDIA_DELAY_US_PREFIX, describe(media));
    }
    io = dn.getFileIoProvider();
    Field f = hookField();
    synchronized (io) {
      original = get(f, io);
      set(f, io, new Hook(original));
    }
    poller = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "strata-volume-stall-switch");
      t.setDaemon(true);
      return t;
    });
    poller.scheduleWithFixedDelay(() -> poll(dn), 1, 1, TimeUnit.SECONDS);
    LOG.info("Volume stall switch on: a file {} with milliseconds in a volume's directory "
      + "stalls every operation on that volume by that much", FLAG_FILE);
  }

  private void poll(DataNode dn) {
    try {
      FsDatasetSpi<?> dataset = dn.getFSDataset();
      if (dataset == null) {
        return;
      }
      try (FsDatasetSpi.FsVolumeReferences refs = dataset.getFsVolumeReferences()) {
        for (FsVolumeSpi v : refs) {
          URI base = v.getBaseURI();
          File flag = base == null ? null : new File(new File(base), FLAG_FILE);
          long ms = -1;
          if (flag != null && flag.isFile()) {
            ms = parseDelayMs(Files.readString(flag.toPath(), StandardCharsets.UTF_8));
            if (ms < 0) {
              LOG.warn("{}: not a whole number of milliseconds from 0 to {}: ignored", flag,
                MAX_DELAY_MS);
            }
          }
          Long was = ms > 0 ? delayNanos.put(v.getStorageID(), TimeUnit.MILLISECONDS.toNanos(ms))
            : delayNanos.remove(v.getStorageID());
          long wasMs = was == null ? 0 : TimeUnit.NANOSECONDS.toMillis(was);
          if (Math.max(ms, 0) != wasMs) {
            LOG.warn("Volume {} (storage {}, {}): {}", base, v.getStorageID(), v.getStorageType(),
              ms > 0 ? "stalled, " + ms + " ms per operation (" + flag + ")"
                : "no longer stalled");
          }
        }
      }
    } catch (IOException | RuntimeException e) {
      LOG.warn("Volume stall switch: reading the flag files failed", e);
    }
  }

  @Override
  public void stop() {
    if (poller != null) {
      poller.shutdownNow();
    }
    delayNanos.clear();
    if (io != null) {
      Field f = hookField();
      synchronized (io) {
        if (get(f, io) instanceof Hook) {
          set(f, io, original);
        }
      }
    }
  }

  @Override
  public void close() {
    stop();
  }

  private final class Hook extends FaultInjectorFileIoEvents {
    private final FaultInjectorFileIoEvents next;

    Hook(FaultInjectorFileIoEvents next) {
      super(null);
      this.next = next;
    }

    @Override
    public void beforeMetadataOp(FsVolumeSpi volume, FileIoProvider.OPERATION op) {
      if (next != null) {
        next.beforeMetadataOp(volume, op);
      }
      delay(volume);
    }

    @Override
    public void beforeFileIo(FsVolumeSpi volume, FileIoProvider.OPERATION op, long len) {
      if (next != null) {
        next.beforeFileIo(volume, op, len);
      }
      delay(volume);
    }

    private void delay(FsVolumeSpi volume) {
      Map<StorageType, Long> media = mediaNanos;
      if (volume == null || (delayNanos.isEmpty() && media.isEmpty())) {
        return;
      }
      Long stall = delayNanos.get(volume.getStorageID());
      Long medium = media.isEmpty() ? null : media.get(volume.getStorageType());
      long nanos = (stall == null ? 0 : stall) + (medium == null ? 0 : medium);
      if (nanos > 0) {
        sleepUntil(System.nanoTime() + nanos);
      }
    }
  }

  /** Spinning for the last stretch of a delay: a sleep wakes up late. */
  private static final long SPIN_NANOS = TimeUnit.MICROSECONDS.toNanos(200);

  /**
   * Sleeps until {@link #SPIN_NANOS} before the deadline, then spins: a sleeping thread wakes up
   * late (about a millisecond on a busy machine), which would turn an SSD-like delay of tens of
   * microseconds into an HDD-like one.
   */
  static void sleepUntil(long deadlineNanos) {
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

  /** "SSD +80 us, DISK +6700 us". */
  static String describe(Map<StorageType, Long> media) {
    StringBuilder sb = new StringBuilder();
    media.forEach((t, n) -> sb.append(sb.length() == 0 ? "" : ", ").append(t).append(" +")
      .append(TimeUnit.NANOSECONDS.toMicros(n)).append(" us"));
    return sb.toString();
  }

  private static Field hookField() {
    return faultHookField(VolumeStallSwitch.class.getName());
  }

  /**
   * {@link FileIoProvider}'s fault-injection hook field, made accessible: where a DataNode's
   * per-volume file operations can be slowed (here and in the in-process test helper).
   *
   * @param user who needs it, named in the error when this Hadoop has no such field
   */
  public static Field faultHookField(String user) {
    try {
      Field f = FileIoProvider.class.getDeclaredField("faultInjectorEventHook");
      f.setAccessible(true);
      return f;
    } catch (ReflectiveOperationException | RuntimeException e) {
      throw new IllegalStateException("FileIoProvider has no accessible faultInjectorEventHook "
        + "field: this Hadoop version is not supported by " + user, e);
    }
  }

  private static FaultInjectorFileIoEvents get(Field f, FileIoProvider io) {
    try {
      return (FaultInjectorFileIoEvents) f.get(io);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void set(Field f, FileIoProvider io, FaultInjectorFileIoEvents hook) {
    try {
      f.set(io, hook);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(e);
    }
  }
}
