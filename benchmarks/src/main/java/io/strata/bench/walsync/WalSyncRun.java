package io.strata.bench.walsync;

import io.strata.bench.common.RunLabels;
import io.strata.hbase.tiering.WalDurability;
import io.strata.local.TieredDfsCluster;
import io.strata.metrics.Latencies;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.BlockStoragePolicy;

/**
 * One run of {@code strata bench wal-sync} on a started cluster: per policy and per sync mode
 * ({@code hflush}, HBase's default, and {@code hsync}, {@code Durability.FSYNC_WAL} or
 * {@code hbase.wal.hsync}), a writer appends WAL-sized entries to a 3-replica file under a
 * directory with that policy and syncs after each, the latency of append+sync recorded. The
 * cells run in rounds, the policies' order rotated from one round to the next, so every policy
 * sees the same background. Each file's replicas are read back from the NameNode, so the result
 * says where the bytes really were, not where the policy asked for them.
 */
final class WalSyncRun {
  private final TieredDfsCluster cluster;
  private final DistributedFileSystem fs;
  private final WalSyncBench.Settings s;
  private final PrintStream out;

  WalSyncRun(TieredDfsCluster cluster, WalSyncBench.Settings s, PrintStream out)
    throws IOException {
    this.cluster = cluster;
    this.fs = cluster.fileSystem();
    this.s = s;
    this.out = out;
  }

  WalSyncResult measure(String command) throws IOException {
    // Decided as the run starts: the tree may change while it runs.
    String commit = RunLabels.launcherCommit();
    Map<String, Map<String, Latencies>> micros = new LinkedHashMap<>();
    Map<String, Map<String, List<Long>>> roundP50 = new LinkedHashMap<>();
    for (String p : s.policies()) {
      Path dir = dir(p);
      fs.mkdirs(dir);
      fs.setStoragePolicy(dir, p);
      for (String m : WalSyncBench.MODES) {
        micros.computeIfAbsent(p, k -> new LinkedHashMap<>()).put(m, new Latencies());
        roundP50.computeIfAbsent(p, k -> new LinkedHashMap<>()).put(m, new ArrayList<>());
      }
    }
    byte[] entry = new byte[s.entryBytes()];
    ThreadLocalRandom.current().nextBytes(entry);
    // Warm the pipelines and the JIT once per policy before anything is recorded.
    for (String p : s.policies()) {
      write(new Path(dir(p), "warmup"), entry, Math.min(200, s.entries()), "hflush", null);
    }
    for (int round = 0; round < s.rounds(); round++) {
      List<String> order = new ArrayList<>(s.policies());
      Collections.rotate(order, -round);
      for (String p : order) {
        for (String m : WalSyncBench.MODES) {
          Latencies l = new Latencies();
          write(new Path(dir(p), m + "-" + round), entry, s.entries(), m, l);
          micros.get(p).get(m).add(l);
          roundP50.get(p).get(m).add(l.percentile(50));
          out.printf(Locale.ROOT, "round %d %-10s %-6s p50 %6d us  p99 %6d us  p99.9 %6d us%n",
            round + 1, p, m, l.percentile(50), l.percentile(99), l.percentile(99.9));
        }
      }
    }
    Map<String, Map<String, WalSyncResult.Cell>> cells = new LinkedHashMap<>();
    for (String p : s.policies()) {
      for (String m : WalSyncBench.MODES) {
        Latencies l = micros.get(p).get(m);
        Map<String, Long> replicas = replicas(fs, dir(p), m + "-");
        cells.computeIfAbsent(p, k -> new LinkedHashMap<>()).put(m, new WalSyncResult.Cell(
          l.count(), l.percentile(50), l.percentile(99), l.percentile(99.9), l.max(),
          roundP50.get(p).get(m), replicas, asPolicy(p, replicas)));
      }
    }
    // The same verdict a RegionServer reaches at start, on the policies as this NameNode has them.
    Collection<BlockStoragePolicy> offered = fs.getAllStoragePolicies();
    Map<String, String> durability = new LinkedHashMap<>();
    for (String p : s.policies()) {
      durability.put(p, durability(WalDurability.judge(p, offered, 3, false)));
    }
    return new WalSyncResult(commit, command, Instant.now().toString(),
      RunLabels.NO_RPC, RunLabels.NO_EMULATION, s.entries(),
      s.entryBytes(), s.rounds(), ramFs(cluster.config().ramDir()), durability, cells);
  }

  private static Path dir(String policy) {
    return new Path("/wal-sync/" + policy);
  }

  /** Appends {@code n} entries to a new 3-replica file, each followed by the mode's sync. */
  private void write(Path file, byte[] entry, int n, String mode, Latencies micros)
    throws IOException {
    try (FSDataOutputStream os = fs.create(file, (short) 3)) {
      for (int i = 0; i < n; i++) {
        long t0 = System.nanoTime();
        os.write(entry);
        if ("hsync".equals(mode)) {
          os.hsync();
        } else {
          os.hflush();
        }
        long us = TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - t0);
        if (micros != null) {
          micros.record(Math.max(1, us));
        }
      }
    }
  }

  /** Replicas of the files under {@code dir} whose names start with {@code prefix}, by type. */
  static Map<String, Long> replicas(DistributedFileSystem fs, Path dir, String prefix)
    throws IOException {
    Map<String, Long> byType = new TreeMap<>();
    RemoteIterator<LocatedFileStatus> it = fs.listFiles(dir, false);
    while (it.hasNext()) {
      LocatedFileStatus st = it.next();
      if (!st.getPath().getName().startsWith(prefix)) {
        continue;
      }
      for (BlockLocation b : st.getBlockLocations()) {
        for (StorageType t : b.getStorageTypes()) {
          byType.merge(t.name(), 1L, Long::sum);
        }
      }
    }
    return byType;
  }

  /**
   * Whether the replicas are where the policy puts them: a full tier makes HDFS fall back (to
   * DISK for the RAM policies), and a latency measured there is not the policy's.
   */
  static boolean asPolicy(String policy, Map<String, Long> replicas) {
    long total = replicas.values().stream().mapToLong(Long::longValue).sum();
    long ram = replicas.getOrDefault("NVDIMM", 0L);
    switch (policy) {
      case "ALL_NVDIMM":
        return total > 0 && ram == total;
      case "RAM_SSD":
        return total > 0 && 3 * ram == total && replicas.getOrDefault("SSD", 0L) == 2 * ram;
      case "ALL_SSD":
        return total > 0 && replicas.getOrDefault("SSD", 0L) == total;
      case "HOT":
        return total > 0 && replicas.getOrDefault("DISK", 0L) == total;
      default:
        throw new IllegalArgumentException(policy);
    }
  }

  /** What a policy keeps after the hosts holding a WAL's replicas reboot (tmpfs RAM tier). */
  static String durability(WalDurability.Verdict v) {
    return (v.durable() ? "survives a reboot of the hosts holding the WAL: "
      : "lost on a reboot of the hosts holding the WAL (RAM tier on tmpfs; only with "
        + "strata.unsafe.wal.volatile.accept): ") + v.describe();
  }

  private static String ramFs(File dir) {
    try {
      return Files.getFileStore(dir.toPath()).type();
    } catch (IOException e) {
      return "unknown (" + e.getMessage() + ")";
    }
  }
}
