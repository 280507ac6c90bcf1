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
 * RAM-backed storage (tmpfs, ramfs; or persistent memory on a DAX mount on a real cluster). HDFS
 * treats its NVDIMM storage type as non-transient and never writes those replicas to disk (unlike
 * {@code RAM_DISK}'s lazy persist), so on tmpfs or ramfs they are lost when the host reboots;
 * only NVDIMM/PMEM on a DAX mount keeps them. This class checks a directory before volumes are
 * put on it and tells which of these its mount is ({@link #durability()}).
 */
public final class RamDiskDirectory {
  private final File dir;
  private final Mount mount;

  /** What a reboot does to the files of a mount. */
  public enum Durability {
    /** tmpfs or ramfs: gone after a reboot or power loss. */
    VOLATILE,
    /** a file system mounted with DAX: persistent memory (NVDIMM/PMEM), kept across reboots. */
    PERSISTENT_MEMORY,
    /** another file system: on a block device, kept, at that device's speed. */
    BLOCK_DEVICE,
    /** /proc/mounts could not be read. */
    UNKNOWN
  }

  /** A mount from /proc/mounts: its mount point, file system type and options. */
  public static final class Mount {
    private final String mountPoint;
    private final String type;
    private final List<String> options;

    Mount(String mountPoint, String type, List<String> options) {
      this.mountPoint = mountPoint;
      this.type = type;
      this.options = options;
    }

    public String mountPoint() {
      return mountPoint;
    }

    public String type() {
      return type;
    }

    public List<String> options() {
      return options;
    }

    /**
     * tmpfs and ramfs are volatile; a mount with the {@code dax} option ({@code dax},
     * {@code dax=always}, {@code dax=inode}; not {@code dax=never}) is persistent memory.
     */
    public Durability durability() {
      if ("tmpfs".equals(type) || "ramfs".equals(type)) {
        return Durability.VOLATILE;
      }
      if ("unknown".equals(type)) {
        return Durability.UNKNOWN;
      }
      for (String o : options) {
        if (o.equals("dax") || o.equals("dax=always") || o.equals("dax=inode")) {
          return Durability.PERSISTENT_MEMORY;
        }
      }
      return Durability.BLOCK_DEVICE;
    }
  }

  private RamDiskDirectory(File dir, Mount mount) {
    this.dir = dir;
    this.mount = mount;
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
    return new RamDiskDirectory(dir, mountOf(dir.toPath()));
  }

  public File dir() {
    return dir;
  }

  /** The type of the file system the directory is on ({@code tmpfs}, {@code ext4}, ...). */
  public String fileSystemType() {
    return mount.type();
  }

  /** The mount the directory is on. */
  public Mount mount() {
    return mount;
  }

  /** What a reboot does to the directory's files. */
  public Durability durability() {
    return mount.durability();
  }

  public boolean isRamBacked() {
    return mount.durability() == Durability.VOLATILE;
  }

  /** The {@code dfs.datanode.data.dir} entry for a volume in {@code volumeDir}. */
  public static String dataDirEntry(File volumeDir) {
    return "[NVDIMM]" + volumeDir.getAbsolutePath();
  }

  /** The mount of the longest mount point containing {@code path}, from /proc/mounts. */
  static Mount mountOf(Path path) {
    Path mounts = Paths.get("/proc/mounts");
    Mount unknown = new Mount("/", "unknown", List.of());
    if (!Files.isReadable(mounts)) {
      return unknown;
    }
    try {
      return mountOf(path.toRealPath(), Files.readAllLines(mounts, StandardCharsets.UTF_8));
    } catch (IOException e) {
      return unknown;
    }
  }

  /** The mount of the longest mount point containing {@code real} among /proc/mounts lines. */
  static Mount mountOf(Path real, List<String> procMounts) {
    Mount best = new Mount("/", "unknown", List.of());
    String bestPoint = null;
    for (String line : procMounts) {
      String[] f = line.split(" ");
      if (f.length < 4) {
        continue;
      }
      String mountPoint = f[1].replace("\\040", " ");
      if (real.startsWith(mountPoint)
        && (bestPoint == null || mountPoint.length() > bestPoint.length())) {
        bestPoint = mountPoint;
        best = new Mount(mountPoint, f[2], List.of(f[3].split(",")));
      }
    }
    return best;
  }
}
