package io.strata.hdfs.ramdisk;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Locale;

/**
 * {@code strata ramdisk}: prepares the directory of a DataNode's RAM-class volume, prints whether
 * its mount is volatile (tmpfs, ramfs) or persistent memory (a DAX mount) by /proc/mounts, and
 * the {@code dfs.datanode.data.dir} entry for it. Refuses when the machine's available memory or the
 * directory's file system cannot hold the requested size. Its options are parsed by the tools
 * module's {@code RamDiskCommand}.
 */
public final class RamDiskTool {
  /** The volume's directory when none is given. */
  public static final String DEFAULT_DIR = "/dev/shm/strata-ramdisk";

  private RamDiskTool() {
  }

  /**
   * Prepares {@code dir} as a RAM tier volume of {@code sizeMb} MiB and prints its durability and
   * data dir entry; returns the exit code: 0 done, 1 not enough memory or space, 2 bad size.
   */
  public static int prepare(long sizeMb, File dir, PrintStream out) {
    if (sizeMb <= 0) {
      System.err.println("strata ramdisk: --size-mb takes a positive number of MiB (see --help)");
      return 2;
    }
    long available = availableMemoryBytes();
    if (available >= 0 && available < (sizeMb << 20)) {
      System.err.printf(Locale.ROOT, "strata ramdisk: %d MiB of memory available, %d MiB asked: "
        + "a RAM tier larger than free memory would swap or be killed%n", available >> 20, sizeMb);
      return 1;
    }
    RamDiskDirectory ram;
    try {
      ram = RamDiskDirectory.prepare(dir, sizeMb << 20);
    } catch (IOException e) {
      System.err.println("strata ramdisk: " + e.getMessage());
      return 1;
    }
    out.println(durabilityLine(dir, ram.mount()));
    out.println("dfs.datanode.data.dir entry: " + RamDiskDirectory.dataDirEntry(dir));
    out.printf(Locale.ROOT, "HDFS sees the file system's whole space: for exactly %d MiB, mount a "
      + "tmpfs of that size there (mount -t tmpfs -o size=%dm tmpfs %s). Replicas that a policy "
      + "puts on NVDIMM (one of RAM_SSD's, all of ALL_NVDIMM's) land on it.%n", sizeMb, sizeMb,
      dir);
    return 0;
  }

  /** What a reboot does to replicas in {@code dir}, from its mount, and what that means. */
  static String durabilityLine(File dir, RamDiskDirectory.Mount m) {
    String mount = String.format(Locale.ROOT, "%s is on %s (%s, %s)", dir, m.mountPoint(), m.type(),
      String.join(",", m.options()));
    switch (m.durability()) {
      case VOLATILE:
        return mount + ": volatile memory, replicas on it are lost when the host reboots. "
          + "Keep live WALs on RAM_SSD (one replica here, two on SSD); ALL_NVDIMM is refused "
          + "unless strata.unsafe.wal.volatile.accept=true";
      case PERSISTENT_MEMORY:
        return mount + ": persistent memory (DAX mount), replicas on it survive a reboot; set "
          + "strata.ram.tier.persistent=true in hbase-site.xml to let live WALs use ALL_NVDIMM";
      case BLOCK_DEVICE:
        return mount + ": a block device's file system, not memory: replicas survive a reboot "
          + "but are written at that device's speed";
      default:
        return mount + ": unknown (no /proc/mounts): take it as volatile";
    }
  }

  /** MemAvailable from /proc/meminfo in bytes, or -1 when unknown. */
  static long availableMemoryBytes() {
    try {
      for (String line : Files.readAllLines(Paths.get("/proc/meminfo"), StandardCharsets.UTF_8)) {
        if (line.startsWith("MemAvailable:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
      }
    } catch (IOException | NumberFormatException e) {
      return -1;
    }
    return -1;
  }
}
