package io.strata.bench.faults;

import io.strata.bench.common.BenchJson;
import io.strata.hbase.placement.FileKind;
import io.strata.hbase.placement.PlacedFile;
import io.strata.hbase.placement.PlacementReport;
import io.strata.hbase.placement.PlacementScanner;
import io.strata.hdfs.mover.PlacementCheck;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hdfs.DistributedFileSystem;

/**
 * The block-layer volume faults' runs ({@code volume-full}, {@code volume-io-errors},
 * {@code volume-stall}) on DataNode 1's SSD loop volume, each returning what it saw, the fault's
 * {@code observed} parts; {@link VolumeFaults} holds their settings and the pieces that need no
 * cluster. Not thread-safe: the campaign's thread runs them.
 */
final class VolumeFaultRuns {
  private final ClusterControl ctl;
  private final PrintStream out;

  VolumeFaultRuns(ClusterControl ctl, PrintStream out) {
    this.ctl = ctl;
    this.out = out;
  }

  /**
   * {@code volume-full}: DataNode 1's SSD loop volume filled with a file of its own
   * ({@code fallocate}, at the root of the file system, outside the DataNode's current/) until
   * {@link VolumeFaults#FULL_LEFT_BYTES} are left, held {@link VolumeFaults#HOLD_S} s under the
   * load with the table flushed meanwhile, then removed. HDFS must place new blocks elsewhere (the
   * NameNode sees the volume full; the policies' fallbacks take over) and lose nothing. Records
   * the bytes free before, full and after (the file system's and the NameNode's view) and where
   * the blocks written while it was full went.
   */
  ChaosResult.Observed volumeFull(Connection conn, DistributedFileSystem dfs,
    Configuration conf) throws Exception {
    VolumeFaults.Volume v = ctl.mediaVolume("volume-full");
    File mnt = new File(v.mount());
    File filler = new File(mnt, VolumeFaults.FILLER);
    String addr = ctl.daemonField("datanode-1", "address");
    long freeBefore = mnt.getUsableSpace();
    long nnBefore = ssdRemainingSeen(dfs, addr);
    long fillerBytes;
    long freeFull;
    double sawFullS;
    long nnFull;
    long freeEndOfHold;
    Map<String, Integer> whileFull;
    long holdMs = TimeUnit.SECONDS.toMillis(VolumeFaults.HOLD_S);
    java.util.concurrent.atomic.AtomicInteger flushes = new java.util.concurrent.atomic
      .AtomicInteger();
    long fromMs = System.currentTimeMillis();
    Thread flusher = null;
    try {
      long size = mnt.getUsableSpace() - VolumeFaults.FULL_LEFT_BYTES;
      if (size > 0) {
        VolumeFaults.must(120, "fallocate", "-l", Long.toString(size), filler.getPath());
      }
      fillerBytes = Math.max(0, size);
      freeFull = mnt.getUsableSpace();
      // The NameNode learns the free space from heartbeats (3 s).
      long seenFull = -1;
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      long t0 = System.nanoTime();
      while (System.nanoTime() < until) {
        long left = ssdRemainingSeen(dfs, addr);
        if (left >= 0 && left < (128L << 20)) {
          seenFull = left;
          break;
        }
        Thread.sleep(1000);
      }
      sawFullS = seenFull >= 0 ? (System.nanoTime() - t0) / 1e9 : -1;
      nnFull = ssdRemainingSeen(dfs, addr);
      flusher = flusher(conn, holdMs, flushes, "volume-full");
      Thread.sleep(holdMs);
      freeEndOfHold = mnt.getUsableSpace();
      whileFull = ctl.blocksSince(fromMs);
    } finally {
      java.nio.file.Files.deleteIfExists(filler.toPath());
    }
    flusher.join(TimeUnit.SECONDS.toMillis(120));
    Thread.sleep(8000);
    long freeAfter = mnt.getUsableSpace();
    long nnAfter = ssdRemainingSeen(dfs, addr);
    // HDFS leaves a replica placed on a fallback type where it is (the NameNode never moves it
    // back once the preferred type has room again; measured: 9 of 17 flushed files stayed
    // {SSD=2, DISK=1}): the undo asks the satisfier to move each such store file.
    ChaosResult.Undo undo = satisfyOffPolicy(dfs, conf, "volume-full");
    List<String> events = VolumeFaults.volumeFailureEvents(TierFaults.logSince(
      new File(ctl.daemonLog("datanode-1")), 0));
    out.printf(Locale.ROOT, "volume-full: %s filled (%d bytes); free before %d, full %d, after "
      + "%d; the NameNode saw %d SSD bytes left while full; blocks written while full: %s%n",
      v.mount(), fillerBytes, freeBefore, freeFull, freeAfter, nnFull,
      BenchJson.tree(whileFull));
    return ChaosResult.Observed.of(new ChaosResult.Volume(v.mount(), v.device()),
      new ChaosResult.VolumeFull(freeBefore, nnBefore, fillerBytes, freeFull, sawFullS, nnFull,
        freeEndOfHold, whileFull, freeAfter, nnAfter, events.size()), undo,
      new ChaosResult.DataNodeSide(flushes.get(), null, sawFullS >= 0, null));
  }

  /**
   * {@code volume-io-errors}: DataNode 1's SSD loop volume gets an ext4 error
   * ({@code /sys/fs/ext4/DEV/trigger_fs_error}; mounted {@code errors=remount-ro}, the file
   * system turns read-only), under the load with the table flushed meanwhile. The DataNode's
   * writes there fail; Strata's read-only volume watcher finds the volume read-only (HDFS's own
   * check does not) and fails it, and the DataNode (with
   * {@code dfs.datanode.failed.volumes.tolerated} 1, the cluster's) drops it and serves on; the
   * NameNode re-replicates the replicas it held. Then the repair: the DataNode stopped, the file
   * system unmounted, checked ({@code e2fsck -fy}), mounted again, the DataNode started.
   */
  ChaosResult.Observed volumeIoErrors(Connection conn, DistributedFileSystem dfs,
    Configuration conf) throws Exception {
    VolumeFaults.Volume v = ctl.mediaVolume("volume-io-errors");
    String addr = ctl.daemonField("datanode-1", "address");
    File log = new File(ctl.daemonLog("datanode-1"));
    long logFrom = log.length();
    String opts = VolumeFaults.mountOptions(v.mount());
    Boolean remounted = null;
    if (!opts.contains("errors=remount-ro")) {
      // A cluster mounted before the option was added: set it on the live mount.
      VolumeFaults.must(30, "mount", "-o", "remount,errors=remount-ro", v.mount());
      remounted = true;
    }
    long lowBefore = dfs.getLowRedundancyBlocksCount();
    long holdMs = TimeUnit.SECONDS.toMillis(VolumeFaults.HOLD_S);
    java.util.concurrent.atomic.AtomicInteger flushes = new java.util.concurrent.atomic
      .AtomicInteger();
    java.nio.file.Files.writeString(java.nio.file.Path.of("/sys/fs/ext4", v.deviceName(),
      "trigger_fs_error"), "1\n", StandardCharsets.UTF_8);
    long t0 = System.nanoTime();
    String after = VolumeFaults.mountOptions(v.mount());

    Thread flusher = flusher(conn, holdMs, flushes, "volume-io-errors");
    // Detected: the NameNode no longer holds a healthy SSD storage of DataNode 1.
    double detectedS = -1;
    long maxLow = 0;
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (System.nanoTime() < until) {
      maxLow = Math.max(maxLow, dfs.getLowRedundancyBlocksCount());
      if (ssdRemainingSeen(dfs, addr) < 0 && !storagesOf(dfs, addr).isEmpty()) {
        detectedS = (System.nanoTime() - t0) / 1e9;
        break;
      }
      Thread.sleep(1000);
    }
    boolean aliveAfter = Boolean.parseBoolean(ctl.daemonField("datanode-1", "alive"));
    // Re-replication: low-redundancy blocks back to 0.
    double rereplicatedS = -1;
    until = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
    while (System.nanoTime() < until) {
      long low = dfs.getLowRedundancyBlocksCount();
      maxLow = Math.max(maxLow, low);
      if (low == 0 && System.nanoTime() - t0 > TimeUnit.SECONDS.toNanos(10)) {
        rereplicatedS = (System.nanoTime() - t0) / 1e9;
        break;
      }
      Thread.sleep(2000);
    }
    flusher.join(TimeUnit.SECONDS.toMillis(120));
    List<String> events = VolumeFaults.volumeFailureEvents(TierFaults.logSince(log, logFrom));
    List<String> logLines = new ArrayList<>(events.subList(0, Math.min(events.size(), 12)));
    // The repair: the DataNode down, the file system checked and mounted again, the DataNode up.
    ctl.cluster("stop", "datanode-1");
    VolumeFaults.must(60, "umount", v.mount());
    VolumeFaults.Result fsck = VolumeFaults.run(600, "e2fsck", "-fy", v.device());
    // e2fsck: 0 clean, 1 errors corrected; more is not a usable file system.
    if (fsck.code() > 1) {
      throw new IOException("e2fsck -fy " + v.device() + " exited " + fsck.code() + ": "
        + fsck.output());
    }
    VolumeFaults.must(60, "mount", "-t", "ext4", "-o", "noatime,errors=remount-ro", v.device(),
      v.mount());
    String repaired = VolumeFaults.mountOptions(v.mount());
    ctl.cluster("start", "datanode-1");
    double backS = -1;
    long r0 = System.nanoTime();
    until = r0 + TimeUnit.SECONDS.toNanos(120);
    while (System.nanoTime() < until) {
      if (ssdRemainingSeen(dfs, addr) >= 0) {
        backS = (System.nanoTime() - r0) / 1e9;
        break;
      }
      Thread.sleep(1000);
    }
    // Blocks the pipelines placed on a fallback type while the volume failed stay there.
    ChaosResult.Undo undo = satisfyOffPolicy(dfs, conf, "volume-io-errors");
    out.printf(Locale.ROOT, "volume-io-errors: %s read-only after the error: %s; the NameNode saw "
      + "the failed volume after %.1f s (DataNode alive: %s); low-redundancy blocks at most %d, "
      + "0 again after %.1f s; e2fsck exit %d; SSD volume back %.1f s after the restart%n",
      v.mount(), VolumeFaults.readOnly(after), detectedS, aliveAfter, maxLow, rereplicatedS,
      fsck.code(), backS);
    return ChaosResult.Observed.of(new ChaosResult.Volume(v.mount(), v.device()),
      new ChaosResult.VolumeIoErrors(opts, remounted, lowBefore, after,
        VolumeFaults.readOnly(after), detectedS, aliveAfter, maxLow, rereplicatedS, fsck.code(),
        repaired, backS), undo, new ChaosResult.DataNodeSide(flushes.get(), null,
        detectedS >= 0 && rereplicatedS >= 0 && backS >= 0, logLines));
  }

  /**
   * {@code volume-stall}: the blkio throttle of DataNode 1's SSD loop device dropped to
   * {@link VolumeFaults#STALL_IOPS} request and {@link VolumeFaults#STALL_BPS} bytes a second for
   * {@link VolumeFaults#HOLD_S} s under the load, with the table flushed meanwhile; then the
   * profile's throttle restored. The DataNode's I/O threads block in the kernel (state D,
   * sampled from /proc/PID/task/TID/stat); pipeline recovery and the latency-aware volume chooser
   * must keep writes going.
   */
  ChaosResult.Observed volumeStall(Connection conn) throws Exception {
    VolumeFaults.Volume v = ctl.mediaVolume("volume-stall");
    long pid = Long.parseLong(ctl.daemonField("datanode-1", "pid"));
    File log = new File(ctl.daemonLog("datanode-1"));
    long logFrom = log.length();
    Map<String, Long> profile = VolumeFaults.throttleOf(v.majMin());
    Map<String, Long> stall = new LinkedHashMap<>();
    for (String f : VolumeFaults.THROTTLE_FILES) {
      stall.put(f, f.contains("iops") ? VolumeFaults.STALL_IOPS : VolumeFaults.STALL_BPS);
    }
    long holdMs = TimeUnit.SECONDS.toMillis(VolumeFaults.HOLD_S);
    java.util.concurrent.atomic.AtomicInteger flushes = new java.util.concurrent.atomic
      .AtomicInteger();
    try (Admin admin = conn.getAdmin()) {
      admin.flush(TableName.valueOf("strata_chaos"));
    }
    long fromMs = System.currentTimeMillis();
    int maxD = 0;
    int samples = 0;
    int samplesWithD = 0;
    java.util.Set<String> namesInD = new java.util.TreeSet<>();
    Thread flusher = null;
    Map<String, Integer> whileStalled;
    try {
      VolumeFaults.throttle(v.majMin(), stall);
      flusher = flusher(conn, holdMs, flushes, "volume-stall");
      long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(holdMs);
      while (System.nanoTime() < end) {
        List<String> d = VolumeFaults.threadsInD(pid);
        samples++;
        samplesWithD += d.isEmpty() ? 0 : 1;
        maxD = Math.max(maxD, d.size());
        namesInD.addAll(d);
        Thread.sleep(250);
      }
      whileStalled = ctl.blocksSince(fromMs);
    } finally {
      VolumeFaults.throttle(v.majMin(), profile);
    }
    Map<String, Long> restored = VolumeFaults.throttleOf(v.majMin());
    // Threads still blocked drain once the device is fast again.
    long drain = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    int dAfter = VolumeFaults.threadsInD(pid).size();
    while (dAfter > 0 && System.nanoTime() < drain) {
      Thread.sleep(500);
      dAfter = VolumeFaults.threadsInD(pid).size();
    }
    flusher.join(TimeUnit.SECONDS.toMillis(120));
    List<String> events = TierFaults.volumeEvents(TierFaults.logSince(log, logFrom));
    out.printf(Locale.ROOT, "volume-stall: %s throttled to %d IOPS / %d B/s for %d s; DataNode "
      + "threads in D: at most %d at once (%d of %d samples), %s; after the restore %d; blocks "
      + "written meanwhile %s%n", v.device(), VolumeFaults.STALL_IOPS, VolumeFaults.STALL_BPS,
      VolumeFaults.HOLD_S, maxD, samplesWithD, samples, namesInD, dAfter,
      BenchJson.tree(whileStalled));
    // What a stall shows is its effect on the load (the ledger, writes resumed); the D-state
    // threads are an observation, not a condition: its effect is taken as seen.
    return ChaosResult.Observed.of(
      new ChaosResult.Volume(v.mount(), v.device() + " (" + v.majMin() + ")"),
      new ChaosResult.VolumeStall(profile, whileStalled, restored, pid, samples, samplesWithD,
        maxD, new ArrayList<>(namesInD), dAfter),
      new ChaosResult.DataNodeSide(flushes.get(),
        events.stream().anyMatch(e -> e.contains(") is slow: ")), true,
        new ArrayList<>(events.subList(0, Math.min(events.size(), 12)))));
  }

  /**
   * Hands every store file off its storage policy to the satisfier
   * ({@code satisfyStoragePolicy}), as an operator would ({@code hdfs storagepolicies
   * -satisfyStoragePolicy}); records how many there were and were handed over.
   */
  private ChaosResult.Undo satisfyOffPolicy(DistributedFileSystem dfs, Configuration conf,
    String fault) throws IOException {
    List<Path> off = PlacementCheck.unsatisfied(dfs, storeFiles(dfs, conf));
    int asked = 0;
    for (Path p : off) {
      try {
        dfs.satisfyStoragePolicy(p);
        asked++;
      } catch (IOException e) {
        // compacted or archived away since the scan, or already queued
        out.printf(Locale.ROOT, "%s: satisfyStoragePolicy %s: %s%n", fault, p, e);
      }
    }
    return new ChaosResult.Undo(off.size(), asked);
  }

  /** The flushed, compacted and archived files under the HBase root (what placement checks). */
  private static List<Path> storeFiles(DistributedFileSystem dfs, Configuration conf)
    throws IOException {
    PlacementReport report = new PlacementScanner(dfs, conf).scan(
      new Path(conf.get(HConstants.HBASE_DIR)));
    List<Path> placed = new ArrayList<>();
    for (PlacedFile f : report.files()) {
      if (f.kind() == FileKind.FLUSHED || f.kind() == FileKind.COMPACTED
        || f.kind() == FileKind.ARCHIVED) {
        placed.add(new Path(f.path()));
      }
    }
    return placed;
  }

  /**
   * The storage reports the NameNode holds for the DataNode at {@code xferAddr} (from its
   * heartbeats); empty when it is not live.
   */
  private static List<org.apache.hadoop.hdfs.server.protocol.StorageReport> storagesOf(
    DistributedFileSystem dfs, String xferAddr) throws IOException {
    for (org.apache.hadoop.hdfs.server.protocol.DatanodeStorageReport d : dfs.getClient()
      .getDatanodeStorageReport(org.apache.hadoop.hdfs.protocol.HdfsConstants.DatanodeReportType
        .LIVE)) {
      if (d.getDatanodeInfo().getXferAddr().equals(xferAddr)) {
        return Arrays.asList(d.getStorageReports());
      }
    }
    return List.of();
  }

  /** The SSD space the NameNode sees left on a DataNode; -1 when it reports no healthy SSD. */
  private static long ssdRemainingSeen(DistributedFileSystem dfs, String xferAddr)
    throws IOException {
    long left = -1;
    for (org.apache.hadoop.hdfs.server.protocol.StorageReport r : storagesOf(dfs, xferAddr)) {
      if (r.getStorage().getStorageType() == org.apache.hadoop.fs.StorageType.SSD
        && !r.isFailed()) {
        left = Math.max(left, 0) + r.getRemaining();
      }
    }
    return left;
  }

  /**
   * Flushes the table every {@link FaultCampaign#STALL_FLUSH_S} s for {@code holdMs} on a thread
   * of its own (a flush through a faulty volume takes as long as it takes), so that HFile blocks
   * are written while the fault lasts; counts the flushes.
   */
  private Thread flusher(Connection conn, long holdMs, java.util.concurrent.atomic.AtomicInteger
    flushes, String fault) {
    Thread t = new Thread(() -> {
      long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(holdMs);
      try (Admin admin = conn.getAdmin()) {
        while (System.nanoTime() < end) {
          Thread.sleep(TimeUnit.SECONDS.toMillis(FaultCampaign.STALL_FLUSH_S));
          admin.flush(TableName.valueOf("strata_chaos"));
          flushes.incrementAndGet();
        }
      } catch (IOException e) {
        out.printf(Locale.ROOT, "%s: a flush failed: %s%n", fault, e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, fault + "-flusher");
    t.setDaemon(true);
    t.start();
    return t;
  }
}
