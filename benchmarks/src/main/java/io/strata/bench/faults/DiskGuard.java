package io.strata.bench.faults;

import java.io.File;
import java.util.Locale;

/**
 * Stops a campaign before a fault when the file system holding the cluster's directory has
 * less free space than asked for: a cluster whose disk fills fails in ways that are not the
 * fault's (and fills the machine). {@code minFreeBytes} 0: no check.
 */
final class DiskGuard {
  private final File dir;
  private final long minFreeBytes;

  DiskGuard(File dir, long minFreeBytes) {
    this.dir = dir;
    this.minFreeBytes = minFreeBytes;
  }

  /** Why the campaign must stop now, or null when it may go on. */
  String check() {
    return stopReason(dir, dir.getUsableSpace(), minFreeBytes);
  }

  /**
   * Why a campaign must stop with {@code freeBytes} free where {@code dir} is, or null when it
   * may go on: at least {@code minFreeBytes} free, or no check asked for. A directory whose
   * free space cannot be read ({@code freeBytes} 0: it does not exist) stops it too.
   */
  static String stopReason(File dir, long freeBytes, long minFreeBytes) {
    if (minFreeBytes <= 0 || freeBytes >= minFreeBytes) {
      return null;
    }
    return String.format(Locale.ROOT, "the file system holding the cluster's directory %s has "
      + "%d bytes (%.1f GB) free, below --min-free-gb %s", dir, freeBytes,
      freeBytes / (double) (1L << 30), gb(minFreeBytes));
  }

  private static String gb(long bytes) {
    return bytes % (1L << 30) == 0 ? Long.toString(bytes >> 30)
      : String.format(Locale.ROOT, "%.2f", bytes / (double) (1L << 30));
  }
}
