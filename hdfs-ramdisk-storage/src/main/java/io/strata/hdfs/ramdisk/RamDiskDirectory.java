package io.strata.hdfs.ramdisk;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Locale;

/**
 * A directory that backs Strata's RAM-class tier: DataNode volumes tagged {@code [NVDIMM]}, on
 * RAM-backed storage (tmpfs, ramfs; or a real NVDIMM/NVMe on a real cluster). HDFS's NVDIMM
 * storage type is persistent and replicated, unlike {@code RAM_DISK}, which is single-replica and
 * lazily persisted. This class checks a directory before volumes are put on it.
 */
public final class RamDiskDirectory {
  private final File dir;
  private final String fsType;

  private RamDiskDirectory(File dir, String fsType) {
    this.dir = dir;
    this.fsType = fsType;
  }

  /**
   * Creates {@code dir} if needed and checks that its file system can hold {@code requiredBytes}.
   *
   * @throws IOException with the directory, the free and the required space when it cannot
   */
  public static RamDiskDirectory prepare(File dir, long requiredBytes) throws IOException {
    boolean created = !dir.isDirectory();
    if (created && !dir.mkdirs()) {
      throw new IOException("Cannot create the RAM tier directory " + dir);
    }
    long usable = dir.getUsableSpace();
    if (usable < requiredBytes) {
      if (created) {
        Files.deleteIfExists(dir.toPath());
      }
      throw new IOException(String.format(Locale.ROOT,
        "The RAM tier directory %s has %d MiB free but %d MiB are needed; free memory in its "
          + "file system, give a smaller RAM tier size, or another directory",
        dir, usable >> 20, requiredBytes >> 20));
    }
    return new RamDiskDirectory(dir, fileSystemType(dir.toPath()));
  }

  public File dir() {
    return dir;
  }

  /** The type of the file system the directory is on ({@code tmpfs}, {@code ext4}, ...). */
  public String fileSystemType() {
    return fsType;
  }

  public boolean isRamBacked() {
    return "tmpfs".equals(fsType) || "ramfs".equals(fsType);
  }

  /** The {@code dfs.datanode.data.dir} entry for a volume in {@code volumeDir}. */
  public static String dataDirEntry(File volumeDir) {
    return "[NVDIMM]" + volumeDir.getAbsolutePath();
  }

  /** The file system type of the longest mount point containing {@code path}, from /proc/mounts. */
  static String fileSystemType(Path path) {
    Path mounts = Paths.get("/proc/mounts");
    if (!Files.isReadable(mounts)) {
      return "unknown";
    }
    try {
      Path real = path.toRealPath();
      List<String> lines = Files.readAllLines(mounts, StandardCharsets.UTF_8);
      String best = null;
      String bestType = "unknown";
      for (String line : lines) {
        String[] f = line.split(" ");
        if (f.length < 3) {
          continue;
        }
        String mountPoint = f[1].replace("\\040", " ");
        if (real.startsWith(mountPoint) && (best == null || mountPoint.length() > best.length())) {
          best = mountPoint;
          bestType = f[2];
        }
      }
      return bestType;
    } catch (IOException e) {
      return "unknown";
    }
  }
}
