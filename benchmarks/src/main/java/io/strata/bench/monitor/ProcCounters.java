package io.strata.bench.monitor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * The machine's cumulative counters as Linux exposes them under {@code /proc}: CPU jiffies by
 * state from {@code /proc/stat}, bytes read and written by whole block devices from
 * {@code /proc/diskstats}, bytes received and sent per network interface from
 * {@code /proc/net/dev}. Rates are the difference of two readings ({@link #rates}). Immutable.
 *
 * @param cpuUser jiffies in user and nice
 * @param cpuSystem jiffies in system, irq and softirq
 * @param cpuIowait jiffies waiting for I/O
 * @param cpuTotal jiffies in every state
 * @param diskReadBytes read by whole disks (partitions and stacked devices are not counted
 *     twice: loop, ram, zram, dm and md devices and partitions are left out)
 * @param diskWriteBytes written by those disks
 * @param netRxBytes received over interfaces other than loopback
 * @param netTxBytes sent over those
 * @param loopbackBytes sent over loopback (an embedded cluster's RPC, DataNode and ZooKeeper
 *     traffic)
 */
public record ProcCounters(long cpuUser, long cpuSystem, long cpuIowait, long cpuTotal,
  long diskReadBytes, long diskWriteBytes, long netRxBytes, long netTxBytes, long loopbackBytes) {

  private static final List<String> NOT_DISKS = List.of("loop", "ram", "zram", "dm-", "md", "sr",
    "fd", "nbd");

  /** One reading under {@code root} (normally {@code /}). */
  public static ProcCounters read(Path root) throws IOException {
    long[] cpu = cpu(Files.readAllLines(root.resolve("proc/stat")));
    long[] disk = disks(Files.readAllLines(root.resolve("proc/diskstats")),
      wholeDisks(root.resolve("sys/block")));
    long[] net = net(Files.readAllLines(root.resolve("proc/net/dev")));
    return new ProcCounters(cpu[0], cpu[1], cpu[2], cpu[3], disk[0], disk[1], net[0], net[1],
      net[2]);
  }

  /** user+nice, system+irq+softirq, iowait, total jiffies from the {@code cpu} line. */
  static long[] cpu(List<String> stat) throws IOException {
    for (String line : stat) {
      if (line.startsWith("cpu ")) {
        String[] f = line.trim().split("\\s+");
        long[] v = new long[f.length - 1];
        long total = 0;
        for (int i = 1; i < f.length; i++) {
          v[i - 1] = Long.parseLong(f[i]);
          // guest and guest_nice (fields 9 and 10) are already counted in user and nice.
          total += i <= 8 ? v[i - 1] : 0;
        }
        return new long[] { v[0] + v[1], v[2] + at(v, 5) + at(v, 6), at(v, 4), total };
      }
    }
    throw new IOException("/proc/stat has no aggregate 'cpu' line");
  }

  private static long at(long[] v, int i) {
    return i < v.length ? v[i] : 0;
  }

  /** The names under {@code /sys/block} that are disks of their own. */
  static Set<String> wholeDisks(Path sysBlock) throws IOException {
    Set<String> names = new TreeSet<>();
    if (!Files.isDirectory(sysBlock)) {
      return names;
    }
    try (Stream<Path> s = Files.list(sysBlock)) {
      s.map(p -> p.getFileName().toString())
        .filter(n -> NOT_DISKS.stream().noneMatch(n::startsWith)).forEach(names::add);
    }
    return names;
  }

  /** Bytes read and written (sectors of 512 bytes, whatever the device's own sector size). */
  static long[] disks(List<String> diskstats, Set<String> disks) {
    long read = 0;
    long written = 0;
    for (String line : diskstats) {
      String[] f = line.trim().split("\\s+");
      if (f.length >= 10 && disks.contains(f[2])) {
        read += Long.parseLong(f[5]) * 512;
        written += Long.parseLong(f[9]) * 512;
      }
    }
    return new long[] { read, written };
  }

  /** Received and sent bytes over non-loopback interfaces, and bytes sent over loopback. */
  static long[] net(List<String> dev) {
    long rx = 0;
    long tx = 0;
    long lo = 0;
    for (String line : dev) {
      int colon = line.indexOf(':');
      if (colon < 0) {
        continue;
      }
      String name = line.substring(0, colon).trim();
      String[] f = line.substring(colon + 1).trim().split("\\s+");
      if (f.length < 9) {
        continue;
      }
      if (name.equals("lo")) {
        lo += Long.parseLong(f[8]);
      } else {
        rx += Long.parseLong(f[0]);
        tx += Long.parseLong(f[8]);
      }
    }
    return new long[] { rx, tx, lo };
  }

  /**
   * Per-second rates from {@code before} to this reading over {@code seconds}: CPU shares in
   * percent of all CPUs, bytes in MB/s (10^6), in the order of {@link Monitor#MACHINE_SERIES}.
   */
  double[] rates(ProcCounters before, double seconds) {
    double jiffies = Math.max(1, cpuTotal - before.cpuTotal);
    return new double[] { 100.0 * (cpuUser - before.cpuUser) / jiffies,
      100.0 * (cpuSystem - before.cpuSystem) / jiffies,
      100.0 * (cpuIowait - before.cpuIowait) / jiffies,
      mbps(diskReadBytes - before.diskReadBytes, seconds),
      mbps(diskWriteBytes - before.diskWriteBytes, seconds),
      mbps(netRxBytes - before.netRxBytes, seconds),
      mbps(netTxBytes - before.netTxBytes, seconds),
      mbps(loopbackBytes - before.loopbackBytes, seconds) };
  }

  private static double mbps(long bytes, double seconds) {
    return bytes / 1e6 / seconds;
  }
}
