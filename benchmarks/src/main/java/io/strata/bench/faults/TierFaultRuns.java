package io.strata.bench.faults;

import io.strata.bench.common.BenchJson;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
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
 * The storage-tier faults' runs ({@code slow-volume}, {@code ram-tier-full}), each returning what
 * it saw, the fault's {@code observed} parts; {@link TierFaults} holds their settings and the pieces
 * that need no cluster. Not thread-safe: the campaign's thread runs them.
 */
final class TierFaultRuns {
  private final ClusterControl ctl;
  private final PrintStream out;

  TierFaultRuns(ClusterControl ctl, PrintStream out) {
    this.ctl = ctl;
    this.out = out;
  }

  /**
   * {@code slow-volume}: the first SSD volume of DataNode 1 stalled at {@link TierFaults#STALL_MS}
   * per operation for {@link TierFaults#HOLD_S}, through the DataNode's
   * {@code VolumeStallSwitch} flag file; then released. Records the blocks written to it and to
   * its SSD peers on that DataNode before and during the stall, and what the latency-aware
   * volume chooser logged. The load's writes go to the WAL (on the RAM tier) until a flush:
   * the table is flushed just before the stall and every {@link FaultCampaign#STALL_FLUSH_S} s
   * meanwhile, on a thread of its own (a flush through the stalled volume takes as long as it
   * takes), so that HFile blocks (ALL_SSD) are written while the volume is stalled.
   */
  ChaosResult.Observed slowVolume(Connection conn) throws Exception {
    List<File> ssd = TierFaults.ssdVolumes(ctl.clusterDir(), 1);
    File slow = ssd.get(0);
    File log = new File(ctl.daemonLog("datanode-1"));
    long logFrom = log.length();
    // A flush first: the chooser probes a volume only while it is offered blocks (and for a
    // minute after), so it watches the SSD volumes when the stall begins, as it would on a
    // cluster that flushes all the time.
    try (Admin admin = conn.getAdmin()) {
      admin.flush(TableName.valueOf("strata_chaos"));
    }
    long startMs = System.currentTimeMillis();
    long holdMs = TimeUnit.SECONDS.toMillis(TierFaults.HOLD_S);
    int stalledBefore = TierFaults.blocksWrittenSince(slow, startMs - holdMs);
    int peersBefore = 0;
    for (File f : ssd.subList(1, ssd.size())) {
      peersBefore += TierFaults.blocksWrittenSince(f, startMs - holdMs);
    }
    java.util.concurrent.atomic.AtomicInteger flushes = new java.util.concurrent.atomic
      .AtomicInteger();
    java.util.concurrent.atomic.AtomicLong longestFlushMs = new java.util.concurrent.atomic
      .AtomicLong();
    Thread flusher = new Thread(() -> {
      long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(holdMs - 5000);
      try (Admin admin = conn.getAdmin()) {
        while (System.nanoTime() < end) {
          Thread.sleep(TimeUnit.SECONDS.toMillis(FaultCampaign.STALL_FLUSH_S));
          long t0 = System.nanoTime();
          admin.flush(TableName.valueOf("strata_chaos"));
          flushes.incrementAndGet();
          longestFlushMs.accumulateAndGet((System.nanoTime() - t0) / 1_000_000, Math::max);
        }
      } catch (IOException e) {
        out.printf(Locale.ROOT, "slow-volume: a flush failed: %s%n", e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "slow-volume-flusher");
    flusher.setDaemon(true);
    int stalledDuring;
    int peers = 0;
    int flushesDuring;
    try {
      TierFaults.stall(slow, TierFaults.STALL_MS);
      flusher.start();
      Thread.sleep(holdMs);
      stalledDuring = TierFaults.blocksWrittenSince(slow, startMs);
      for (File f : ssd.subList(1, ssd.size())) {
        peers += TierFaults.blocksWrittenSince(f, startMs);
      }
      flushesDuring = flushes.get();
    } finally {
      TierFaults.unstall(slow);
    }
    flusher.join(TimeUnit.SECONDS.toMillis(120));
    // The switch reads its flag files once a second; its log line says the volume is released.
    Thread.sleep(2000);
    List<String> events = TierFaults.volumeEvents(TierFaults.logSince(log, logFrom));
    boolean excluded = events.stream().anyMatch(e -> e.contains(") is slow: "));
    out.printf(Locale.ROOT, "slow-volume: %s stalled %d ms per operation for %d s; chooser "
      + "excluded it: %s; blocks before/during: stalled %d/%d, peers %d/%d%n", slow,
      TierFaults.STALL_MS, TierFaults.HOLD_S, excluded, stalledBefore, stalledDuring,
      peersBefore, peers);
    return ChaosResult.Observed.of(new ChaosResult.SlowVolume(slow.getPath(),
      TierFaults.STALL_MS, TierFaults.HOLD_S, ssd.size() - 1, stalledBefore, peersBefore,
      stalledDuring, peers, flushesDuring, longestFlushMs.get()),
      new ChaosResult.DataNodeSide(flushes.get(), excluded, null, new ArrayList<>(events)));
  }

  /**
   * {@code ram-tier-full}: the RAM tier filled through HDFS while the load runs: files of
   * {@link TierFaults#FILL_FILE_MB} MB with storage policy ALL_NVDIMM (3 replicas, one on each
   * DataNode's NVDIMM volume) written until the NameNode places one elsewhere (the tier is full
   * as HDFS sees it) or the NVDIMM space it sees left is below two WAL blocks; held for
   * {@link TierFaults#HOLD_S}, then deleted. Every RegionServer's WAL is rolled while it is full
   * and again after it is freed; records the storage types of the new WALs' blocks each time,
   * and the NVDIMM space the NameNode saw left.
   */
  ChaosResult.RamTierFull ramTierFull(Connection conn, DistributedFileSystem dfs,
    Configuration conf) throws Exception {
    Path fillDir = new Path("/strata-chaos-fill");
    long walBlock = conf.getLong("hbase.regionserver.hlog.blocksize", 64L << 20);
    long fillBytes = (long) TierFaults.FILL_FILE_MB << 20;
    long remainingBefore = nvdimmRemaining(dfs) >> 20;
    int files = 0;
    long onRam = 0;
    String stoppedBecause = "the limit of " + TierFaults.FILL_MAX_FILES + " files";
    long tookS;
    long remainingFull;
    String rollWhileFull;
    Map<String, Integer> whileFull;
    long holdMs = TimeUnit.SECONDS.toMillis(TierFaults.HOLD_S);
    long start = System.nanoTime();
    long fillMs = System.currentTimeMillis();
    try {
      dfs.mkdirs(fillDir);
      dfs.setStoragePolicy(fillDir, "ALL_NVDIMM");
      for (int i = 0; i < TierFaults.FILL_MAX_FILES; i++) {
        Path f = new Path(fillDir, "fill-" + i);
        String refused = TierFaults.writeFill(dfs, f, fillBytes, (short) 3);
        if (refused != null) {
          // The DataNodes saw their RAM volumes full before the NameNode did: full too.
          stoppedBecause = "a fill file no DataNode took (the tier is full as the DataNodes see "
            + "it): " + refused;
          out.printf(Locale.ROOT, "ram-tier-full: %s%n", stoppedBecause);
          break;
        }
        files++;
        boolean allOnRam = true;
        for (org.apache.hadoop.fs.BlockLocation bl : dfs.getFileBlockLocations(f, 0,
          fillBytes)) {
          for (org.apache.hadoop.fs.StorageType t : bl.getStorageTypes()) {
            if (t == org.apache.hadoop.fs.StorageType.NVDIMM) {
              onRam += fillBytes;
            } else {
              allOnRam = false;
            }
          }
        }
        if (!allOnRam) {
          stoppedBecause = "a fill file placed off NVDIMM (the tier is full)";
          break;
        }
        // Heartbeats (3 s) tell the NameNode what is left; look again once it may know.
        if (nvdimmRemaining(dfs) < 2 * walBlock) {
          Thread.sleep(4000);
          if (nvdimmRemaining(dfs) < 2 * walBlock) {
            stoppedBecause = "NVDIMM left below two WAL blocks on every DataNode";
            break;
          }
        }
      }
      tookS = (System.currentTimeMillis() - fillMs) / 1000;
      Thread.sleep(4000);
      remainingFull = nvdimmRemaining(dfs) >> 20;
      rollWhileFull = rollWals(conn);
      Thread.sleep(5000);
      whileFull = walStorage(dfs, conf, fillMs);
      Thread.sleep(Math.max(0, holdMs - (System.nanoTime() - start) / 1_000_000));
    } finally {
      dfs.delete(fillDir, true);
    }
    long freedMs = System.currentTimeMillis();
    // The DataNodes delete the replicas when the NameNode tells them (heartbeats).
    Thread.sleep(8000);
    long remainingFreed = nvdimmRemaining(dfs) >> 20;
    String rollAfterFree = rollWals(conn);
    Thread.sleep(5000);
    Map<String, Integer> afterFree = walStorage(dfs, conf, freedMs);
    ChaosResult.RamTierFull r = new ChaosResult.RamTierFull(remainingBefore, files,
      onRam >> 20, stoppedBecause, tookS, remainingFull, rollWhileFull, whileFull,
      remainingFreed, rollAfterFree, afterFree);
    out.printf(Locale.ROOT, "ram-tier-full: %d MB on NVDIMM in %d files (%s); NVDIMM left as "
      + "the NameNode saw it: %d MB before, %d MB full, %d MB freed; WAL blocks while full %s, "
      + "after %s%n", r.fillOnNvdimmMb(), r.fillFiles(), r.fillStoppedAt(),
      r.nvdimmRemainingSeenBeforeMb(), r.nvdimmRemainingSeenFullMb(),
      r.nvdimmRemainingSeenFreedMb(), BenchJson.tree(whileFull), BenchJson.tree(afterFree));
    return r;
  }

  /** The most NVDIMM space any live DataNode reports left to the NameNode, in bytes. */
  private static long nvdimmRemaining(DistributedFileSystem dfs) throws IOException {
    long most = 0;
    for (org.apache.hadoop.hdfs.server.protocol.DatanodeStorageReport d : dfs.getClient()
      .getDatanodeStorageReport(org.apache.hadoop.hdfs.protocol.HdfsConstants.DatanodeReportType
        .LIVE)) {
      for (org.apache.hadoop.hdfs.server.protocol.StorageReport r : d.getStorageReports()) {
        if (r.getStorage().getStorageType() == org.apache.hadoop.fs.StorageType.NVDIMM) {
          most = Math.max(most, r.getRemaining());
        }
      }
    }
    return most;
  }

  /** Rolls every RegionServer's WAL: "ok", or why not. */
  private String rollWals(Connection conn) {
    try (Admin admin = conn.getAdmin()) {
      for (org.apache.hadoop.hbase.ServerName sn : admin.getRegionServers()) {
        admin.rollWALWriter(sn);
      }
      return "ok";
    } catch (IOException | RuntimeException e) {
      return e.toString();
    }
  }

  /**
   * Storage types of the blocks of the WALs created from {@code sinceMs} on, counted, and the
   * number of those WALs ({@code wal_files}).
   */
  private static Map<String, Integer> walStorage(DistributedFileSystem dfs, Configuration conf,
    long sinceMs) throws IOException {
    Map<String, Integer> counts = new LinkedHashMap<>();
    Path walRoot = new Path(conf.get("hbase.wal.dir", conf.get(HConstants.HBASE_DIR)),
      HConstants.HREGION_LOGDIR_NAME);
    int files = 0;
    org.apache.hadoop.fs.RemoteIterator<org.apache.hadoop.fs.LocatedFileStatus> it =
      dfs.listFiles(walRoot, true);
    while (it.hasNext()) {
      Path p = it.next().getPath();
      if (TierFaults.walCreatedMs(p.getName()) < sinceMs) {
        continue;
      }
      files++;
      org.apache.hadoop.hdfs.protocol.LocatedBlocks lbs = dfs.getClient()
        .getLocatedBlocks(p.toUri().getPath(), 0, Long.MAX_VALUE);
      List<org.apache.hadoop.hdfs.protocol.LocatedBlock> blocks = new ArrayList<>(
        lbs.getLocatedBlocks());
      if (lbs.getLastLocatedBlock() != null && blocks.stream().noneMatch(
        b -> b.getBlock().getBlockId() == lbs.getLastLocatedBlock().getBlock().getBlockId())) {
        blocks.add(lbs.getLastLocatedBlock());
      }
      for (org.apache.hadoop.hdfs.protocol.LocatedBlock b : blocks) {
        for (org.apache.hadoop.fs.StorageType t : b.getStorageTypes()) {
          counts.merge(t.name(), 1, Integer::sum);
        }
      }
    }
    counts.put("wal_files", files);
    return counts;
  }
}
