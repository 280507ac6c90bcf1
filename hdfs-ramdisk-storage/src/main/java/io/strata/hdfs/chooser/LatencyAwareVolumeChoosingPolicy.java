package io.strata.hdfs.chooser;

import io.strata.compat.VersionCheck;
import io.strata.hdfs.HdfsKeys;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.FsVolumeSpi;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.RoundRobinVolumeChoosingPolicy;
import org.apache.hadoop.util.DiskChecker.DiskOutOfSpaceException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A DataNode volume choosing policy that stops giving new blocks to a volume whose write latency
 * is far above that of the other volumes of its storage type, within seconds of the slowdown and
 * with as few as two volumes (upstream's slow-disk exclusion needs five disks and half-hour
 * reports). Enable it with {@code dfs.datanode.fsdataset.volume.choosing.policy =
 * io.strata.hdfs.chooser.LatencyAwareVolumeChoosingPolicy}.
 *
 * <p>Latency comes from probes ({@link LatencyProbe}: a small file written, synced and deleted
 * through the DataNode's I/O path) that run every {@link HdfsKeys#CHOOSER_PROBE_INTERVAL_MS} on
 * every volume offered, slow ones included, so that a recovered volume comes back by itself.
 * The DataNode's own per-volume I/O metrics ({@code FsVolumeSpi.getMetrics()}) are not used:
 * they need file I/O profiling on, average whatever happened since the last metrics snapshot (a
 * sink's period or a JMX read), count whole milliseconds, and say nothing about a volume that
 * gets no blocks or an operation that has not returned. Which volumes are slow is decided by
 * {@link SlowVolumeRule} with {@link HdfsKeys#CHOOSER_SLOW_RATIO} and
 * {@link HdfsKeys#CHOOSER_SLOW_MIN_MS}.
 *
 * <p>Among the others, blocks go round-robin per storage type with upstream's free-space check
 * (this class is a {@link RoundRobinVolumeChoosingPolicy} fed the volumes that are not slow). When
 * none of those has room for the block, or all are slow, it goes round-robin over all of them:
 * a slow write beats a failed one. Exclusions, returns and fallbacks are logged.
 */
public class LatencyAwareVolumeChoosingPolicy<V extends FsVolumeSpi>
  extends RoundRobinVolumeChoosingPolicy<V> {
  private static final Logger LOG =
    LoggerFactory.getLogger(LatencyAwareVolumeChoosingPolicy.class);
  private static final long FALLBACK_LOG_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

  private volatile Configuration conf;
  private volatile SlowVolumeRule rule;
  private volatile VolumeLatencyTracker tracker;
  private final ConcurrentHashMap<StorageType, Long> lastFallbackLog = new ConcurrentHashMap<>();

  @Override
  public void setConf(Configuration conf) {
    // The DataNode calls this once, as it creates its dataset: an unsupported Hadoop stops it here.
    VersionCheck.hadoopPlugin("LatencyAwareVolumeChoosingPolicy (DataNode volume chooser)",
      HdfsKeys.versionCheck(conf));
    ChooserSettings settings = ChooserSettings.from(conf);
    super.setConf(conf);
    this.conf = conf;
    this.rule = new SlowVolumeRule(settings.slowRatio(), settings.slowMinMs());
    this.tracker = new VolumeLatencyTracker(settings);
    LOG.info("Latency-aware volume choosing policy: {}", settings);
  }

  @Override
  public Configuration getConf() {
    return conf;
  }

  @Override
  public V chooseVolume(List<V> volumes, long replicaSize, String storageId) throws IOException {
    if (tracker == null) {
      throw new IllegalStateException(getClass().getSimpleName() + " used before setConf");
    }
    if (volumes.size() < 2) {
      return super.chooseVolume(volumes, replicaSize, storageId);
    }
    List<V> usable = withoutSlow(volumes);
    if (usable.isEmpty()) {
      logFallback(volumes.get(0).getStorageType(), String.format(Locale.ROOT,
        "all %d %s volumes are slow", volumes.size(), volumes.get(0).getStorageType()));
      return super.chooseVolume(volumes, replicaSize, storageId);
    }
    if (usable.size() == volumes.size()) {
      return super.chooseVolume(volumes, replicaSize, storageId);
    }
    try {
      return super.chooseVolume(usable, replicaSize, storageId);
    } catch (DiskOutOfSpaceException e) {
      logFallback(volumes.get(0).getStorageType(), String.format(Locale.ROOT,
        "no %s volume that is not slow has room for %d bytes (%s)",
        volumes.get(0).getStorageType(), replicaSize, e.getMessage()));
      return super.chooseVolume(volumes, replicaSize, storageId);
    }
  }

  /** The volumes that are not slow now, in their order; logs every change of a volume's state. */
  private List<V> withoutSlow(List<V> volumes) {
    long now = System.nanoTime();
    int n = volumes.size();
    VolumeLatencyTracker.Tracked[] tracked = new VolumeLatencyTracker.Tracked[n];
    double[] own = new double[n];
    double[] peer = new double[n];
    boolean[] wasSlow = new boolean[n];
    for (int i = 0; i < n; i++) {
      tracked[i] = tracker.offered(volumes.get(i), now);
      own[i] = tracked[i] == null ? Double.NaN : tracked[i].estimate.currentMs(now);
      peer[i] = tracked[i] == null ? Double.NaN : tracked[i].estimate.peerMs(now);
      wasSlow[i] = tracked[i] != null && tracked[i].slow.get();
    }
    SlowVolumeRule.Verdict[] verdicts = rule.judge(own, peer, wasSlow);
    List<V> usable = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      V volume = volumes.get(i);
      SlowVolumeRule.Verdict v = verdicts[i];
      if (tracked[i] != null && v.slow() != wasSlow[i]
        && tracked[i].slow.compareAndSet(wasSlow[i], v.slow())) {
        logTransition(volume, tracked[i], v, now);
      }
      if (!v.slow()) {
        usable.add(volume);
      }
    }
    return usable;
  }

  private static void logTransition(FsVolumeSpi volume, VolumeLatencyTracker.Tracked t,
    SlowVolumeRule.Verdict v, long now) {
    StorageType type = volume.getStorageType();
    if (v.slow()) {
      t.slowSinceNanos = now;
      LOG.warn(String.format(Locale.ROOT, "Volume %s (storage %s, %s) is slow: write probe "
        + "latency %s%.1f ms against a median of %.1f ms on its %d other %s volumes (limit %.1f "
        + "ms). It gets no new blocks until its latency drops below %.1f ms; probes go on. Check "
        + "the device (iostat -x, dmesg, SMART).", describe(volume), volume.getStorageID(), type,
        t.estimate.overrunning(now) ? "at least " : "", v.latencyMs(), v.peerMedianMs(), v.peers(), type,
        v.limitMs(), SlowVolumeRule.RECOVERY_FRACTION * v.limitMs()));
    } else {
      LOG.info(String.format(Locale.ROOT, "Volume %s (storage %s, %s) gets new blocks again: "
        + "write probe latency %.1f ms against a median of %.1f ms on its %d other %s volumes, "
        + "after %.0f s left out.", describe(volume), volume.getStorageID(), type,
        v.latencyMs(), v.peerMedianMs(), v.peers(), type, (now - t.slowSinceNanos) / 1e9));
    }
  }

  private static Object describe(FsVolumeSpi volume) {
    Object dir = LatencyProbe.directory(volume);
    return dir != null ? dir : volume.getBaseURI();
  }

  private void logFallback(StorageType type, String why) {
    long now = System.nanoTime();
    Long last = lastFallbackLog.get(type);
    if (last == null || now - last > FALLBACK_LOG_INTERVAL_NANOS) {
      lastFallbackLog.put(type, now);
      LOG.warn("Placing new {} blocks on all {} volumes, slow ones included: {} (logged at most "
        + "once a minute)", type, type, why);
    }
  }
}
