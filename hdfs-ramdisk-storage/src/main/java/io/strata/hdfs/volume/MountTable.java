package io.strata.hdfs.volume;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * The mount table of this process ({@code /proc/self/mountinfo}), read to tell whether the file
 * system holding a directory has gone read-only. Reading it costs no disk I/O.
 *
 * <p>Read-only shows in one of two places. A file system remounted read-only has {@code ro} in
 * its mount options. An ext4 file system that hit an error with {@code errors=remount-ro} on a
 * Linux kernel from 6.15 on keeps {@code rw} there and shows {@code emergency_ro} in its
 * superblock options only; it still passes {@code access(W_OK)}, which is all HDFS's own volume
 * check asks (HDFS-13538), while every create or write fails with "Read-only file system".
 * Immutable: safe from any thread.
 */
public final class MountTable {
  /** This process's mount table on Linux. */
  public static final Path PROC_MOUNTINFO = Paths.get("/proc/self/mountinfo");

  /** One mount: where, and its per-mount and superblock options. */
  public static final class Mount {
    private final String mountPoint;
    private final String fsType;
    private final String source;
    private final List<String> mountOptions;
    private final List<String> superOptions;

    Mount(String mountPoint, String fsType, String source, List<String> mountOptions,
      List<String> superOptions) {
      this.mountPoint = mountPoint;
      this.fsType = fsType;
      this.source = source;
      this.mountOptions = mountOptions;
      this.superOptions = superOptions;
    }

    public String mountPoint() {
      return mountPoint;
    }

    public String fsType() {
      return fsType;
    }

    public String source() {
      return source;
    }

    /**
     * Why this mount cannot be written, or null when nothing in the table says so: {@code ro}
     * among the mount options, or {@code ro} / {@code emergency_ro} among the superblock's.
     */
    public String readOnlyReason() {
      if (mountOptions.contains("ro")) {
        return "mounted read-only (mount option ro)";
      }
      if (superOptions.contains("emergency_ro")) {
        return "the " + fsType + " file system turned read-only after an error (superblock "
          + "option emergency_ro)";
      }
      if (superOptions.contains("ro")) {
        return "the " + fsType + " file system is read-only (superblock option ro)";
      }
      return null;
    }

    @Override
    public String toString() {
      return source + " on " + mountPoint + " (" + fsType + ", " + String.join(",", mountOptions)
        + "; " + String.join(",", superOptions) + ")";
    }
  }

  private final List<Mount> mounts;

  private MountTable(List<Mount> mounts) {
    this.mounts = Collections.unmodifiableList(mounts);
  }

  /** This process's mount table, read now. */
  public static MountTable read() throws IOException {
    return parse(Files.readAllLines(PROC_MOUNTINFO, StandardCharsets.UTF_8));
  }

  /**
   * A table from mountinfo lines ({@code id parent major:minor root mount-point options
   * [optional fields...] - fs-type source super-options}, {@code proc(5)}); a line not in that
   * shape is skipped, since a kernel may add fields, never remove them.
   */
  public static MountTable parse(List<String> lines) {
    List<Mount> out = new ArrayList<>();
    for (String line : lines) {
      String[] f = line.trim().split(" ");
      int dash = Arrays.asList(f).indexOf("-");
      if (dash < 6 || f.length < dash + 3) {
        continue;
      }
      List<String> superOpts = f.length > dash + 3 ? options(f[dash + 3])
        : Collections.emptyList();
      out.add(new Mount(unescape(f[4]), unescape(f[dash + 1]), unescape(f[dash + 2]),
        options(f[5]), superOpts));
    }
    return new MountTable(out);
  }

  public List<Mount> mounts() {
    return mounts;
  }

  /**
   * The mount a directory is on: of the mounts whose mount point is the directory or one of its
   * parents, the one with the longest mount point, the last such line when two are equal (a
   * later mount on the same point hides the earlier); null when none (not an absolute path).
   *
   * @param dir an absolute, normalised path with symbolic links resolved
   */
  public Mount mountOf(Path dir) {
    String d = dir.toString();
    Mount best = null;
    for (Mount m : mounts) {
      String mp = m.mountPoint;
      boolean under = d.equals(mp) || d.startsWith(mp.endsWith("/") ? mp : mp + "/");
      if (under && (best == null || mp.length() >= best.mountPoint.length())) {
        best = m;
      }
    }
    return best;
  }

  private static List<String> options(String field) {
    return Arrays.asList(field.split(","));
  }

  /**
   * A path as mountinfo writes it, decoded: a space, tab, newline or backslash is written as a
   * backslash and 3 octal digits.
   */
  static String unescape(String s) {
    if (s.indexOf('\\') < 0) {
      return s;
    }
    StringBuilder b = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '\\' && isOctal(s, i + 1)) {
        b.append((char) Integer.parseInt(s.substring(i + 1, i + 4), 8));
        i += 3;
      } else {
        b.append(c);
      }
    }
    return b.toString();
  }

  private static boolean isOctal(String s, int from) {
    if (from + 3 > s.length()) {
      return false;
    }
    for (int i = from; i < from + 3; i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '7') {
        return false;
      }
    }
    return true;
  }
}
