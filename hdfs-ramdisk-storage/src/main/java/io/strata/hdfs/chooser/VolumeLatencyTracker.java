package io.strata.hdfs.chooser;

import java.io.File;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.FsVolumeReference;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.FsVolumeSpi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The recent write latency of the volumes a DataNode offers for new blocks. Each volume gets its
 * own daemon thread once it is first offered, which runs a {@link LatencyProbe} every interval,
 * so a hung volume blocks only its own thread (and its estimate grows with the hang once the
 * probe overruns the interval). The thread holds a reference to the volume during a probe, so a
 * volume being removed is never touched after it closes; a closed or vanished volume is
 * forgotten. Probing stops after a minute (or ten intervals, if longer) in which the volume was
 * not offered, and resumes with the next offer.
 */
final class VolumeLatencyTracker {
  private static final Logger LOG = LoggerFactory.getLogger(VolumeLatencyTracker.class);
  private static final long MIN_IDLE_NANOS = TimeUnit.SECONDS.toNanos(60);

  /** A probed volume, its latency estimate and whether the chooser leaves it out. */
  static final class Tracked {
    final FsVolumeSpi volume;
    final LatencyEstimate estimate;
    /** Whether the chooser currently gives it no new blocks; set only by the chooser. */
    final AtomicBoolean slow = new AtomicBoolean();
    volatile long slowSinceNanos;
    private final AtomicBoolean probing = new AtomicBoolean();
    private volatile long lastOfferedNanos;
    private boolean failing;

    Tracked(FsVolumeSpi volume, ChooserSettings settings) {
      this.volume = volume;
      this.estimate = new LatencyEstimate(settings.ewmaWeight(),
        TimeUnit.MILLISECONDS.toNanos(settings.probeIntervalMs()));
    }
  }

  private final ChooserSettings settings;
  private final byte[] payload;
  private final long idleNanos;
  private final Map<String, Tracked> volumes = new ConcurrentHashMap<>();

  VolumeLatencyTracker(ChooserSettings settings) {
    this.settings = settings;
    this.payload = new byte[settings.probeBytes()];
    Arrays.fill(payload, (byte) 0x5a);
    this.idleNanos = Math.max(MIN_IDLE_NANOS,
      TimeUnit.MILLISECONDS.toNanos(10 * settings.probeIntervalMs()));
  }

  /**
   * Notes that {@code volume} is offered for a new block and makes sure it is probed; returns
   * its state, or {@code null} for a volume that cannot be probed (not a local directory).
   */
  Tracked offered(FsVolumeSpi volume, long nowNanos) {
    String id = volume.getStorageID();
    Tracked t = volumes.get(id);
    if (t == null || t.volume != volume) {
      if (LatencyProbe.directory(volume) == null) {
        return null;
      }
      Tracked fresh = new Tracked(volume, settings);
      t = volumes.compute(id, (k, old) -> old != null && old.volume == volume ? old : fresh);
    }
    t.lastOfferedNanos = nowNanos;
    if (t.probing.compareAndSet(false, true)) {
      Tracked probed = t;
      Thread thread = new Thread(() -> probeLoop(probed), "StrataLatencyProbe-" + id);
      thread.setDaemon(true);
      thread.start();
    }
    return t;
  }

  private void probeLoop(Tracked t) {
    String id = t.volume.getStorageID();
    try {
      while (volumes.get(id) == t && System.nanoTime() - t.lastOfferedNanos < idleNanos) {
        FsVolumeReference ref;
        try {
          ref = t.volume.obtainReference();
        } catch (ClosedChannelException e) {
          forget(t, "it was closed (removed from the DataNode)");
          return;
        }
        try {
          File dir = LatencyProbe.directory(t.volume);
          if (dir == null || !dir.isDirectory()) {
            forget(t, "its directory " + dir + " is gone");
            return;
          }
          probeOnce(t, dir);
        } finally {
          closeQuietly(ref);
        }
        Thread.sleep(settings.probeIntervalMs());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      LOG.error("Latency probing of volume {} ({}) stopped; it resumes with the next block "
        + "offered to it", t.volume.getBaseURI(), id, e);
    } finally {
      t.probing.set(false);
    }
  }

  private void probeOnce(Tracked t, File dir) {
    t.estimate.probeStarted(System.nanoTime());
    try {
      LatencyProbe.run(t.volume, dir, payload);
      if (t.failing) {
        t.failing = false;
        LOG.info("Latency probe of volume {} ({}) works again", dir, t.volume.getStorageID());
      }
    } catch (IOException e) {
      if (!t.failing) {
        t.failing = true;
        LOG.warn("Latency probe of volume {} ({}) failed (its time still counts as the volume's "
          + "latency; the DataNode checks the disk): {}", dir, t.volume.getStorageID(),
          e.toString());
      }
    } finally {
      t.estimate.probeFinished(System.nanoTime());
    }
  }

  private void forget(Tracked t, String why) {
    if (volumes.remove(t.volume.getStorageID(), t)) {
      LOG.info("Stopped probing volume {} ({}): {}", t.volume.getBaseURI(),
        t.volume.getStorageID(), why);
    }
  }

  private static void closeQuietly(FsVolumeReference ref) {
    try {
      ref.close();
    } catch (IOException e) {
      LOG.debug("Releasing a volume reference failed", e);
    }
  }
}
