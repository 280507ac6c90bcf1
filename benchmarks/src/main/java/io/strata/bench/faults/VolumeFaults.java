package io.strata.bench.faults;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The block-layer volume faults of {@link FaultCampaign} ({@code volume-full},
 * {@code volume-io-errors}, {@code volume-stall}): they act on the loop volumes of a cluster
 * started with {@code strata cluster up --media blkio}, as {@code bin/strata-media.sh} recorded
 * them in {@code DIR/media/volumes}. The parsing is pure and tested; the rest runs commands.
 */
final class VolumeFaults {
  /** The faults that need loop volumes ({@code --media blkio}). */
  static final List<String> FAULTS = List.of("volume-full", "volume-io-errors", "volume-stall");
  /** How long the volume stays full or stalled. */
  static final int HOLD_S = 30;
  /** Free space left on the filled volume: far below one block. */
  static final long FULL_LEFT_BYTES = 4L << 20;
  /** The stalled device's throttle: bytes and requests per second, both directions. */
  static final long STALL_BPS = 4096;
  static final long STALL_IOPS = 1;
  /** The filler file, at the root of the volume's file system, outside the DataNode's current/. */
  static final String FILLER = "strata-chaos-filler";
  static final String BLKIO = "/sys/fs/cgroup/blkio";
  static final String[] THROTTLE_FILES = { "blkio.throttle.read_bps_device",
    "blkio.throttle.write_bps_device", "blkio.throttle.read_iops_device",
    "blkio.throttle.write_iops_device" };

  private VolumeFaults() {
  }

  /** One line of {@code DIR/media/volumes}. */
  record Volume(String mount, String backing, String device, String majMin, String kind) {
    /** The loop device's name, as under /sys/fs/ext4 ({@code loop3}). */
    String deviceName() {
      return device.substring(device.lastIndexOf('/') + 1);
    }
  }

  /** The volumes a state file records (the shared root's line left out). */
  static List<Volume> parse(List<String> lines) {
    List<Volume> v = new ArrayList<>();
    for (String l : lines) {
      String[] f = l.trim().split("\\s+");
      if (f.length == 5 && !f[4].equals("shared-root")) {
        v.add(new Volume(f[0], f[1], f[2], f[3], f[4]));
      }
    }
    return v;
  }

  /** DataNode {@code dn}'s volume {@code name} ({@code ssd}, {@code disk}, {@code archive}). */
  static Volume find(List<Volume> volumes, int dn, String name) {
    for (Volume v : volumes) {
      if (v.mount().endsWith("/datanode-" + dn + "-" + name)) {
        return v;
      }
    }
    return null;
  }

  /**
   * Why the volume faults cannot run on this cluster, or null when they can: it must run with
   * {@code --media blkio} (status's {@code emulation}) and have recorded its loop volumes.
   */
  static String skipReason(String emulation, File stateFile, int dn, String name)
    throws IOException {
    if (!"blkio".equals(emulation)) {
      return "the cluster's emulation is '" + emulation + "', not blkio: a block-layer volume "
        + "fault needs loop volumes (strata cluster up --media blkio)";
    }
    if (!stateFile.isFile()) {
      return "no " + stateFile + ": the cluster recorded no loop volumes";
    }
    if (find(parse(Files.readAllLines(stateFile.toPath())), dn, name) == null) {
      return stateFile + " records no volume datanode-" + dn + "-" + name;
    }
    return null;
  }

  /** A thread's state letter from its /proc/PID/task/TID/stat line ('?' when unreadable). */
  static char state(String statLine) {
    int close = statLine.lastIndexOf(')');
    if (close < 0 || close + 2 >= statLine.length()) {
      return '?';
    }
    return statLine.charAt(close + 2);
  }

  /** The threads of process {@code pid} in uninterruptible sleep (state D), by name. */
  static List<String> threadsInD(long pid) {
    List<String> names = new ArrayList<>();
    File[] tasks = new File("/proc/" + pid + "/task").listFiles();
    if (tasks == null) {
      return names;
    }
    for (File t : tasks) {
      try {
        if (state(Files.readString(new File(t, "stat").toPath())) == 'D') {
          names.add(Files.readString(new File(t, "comm").toPath()).trim());
        }
      } catch (IOException gone) {
        // the thread ended between the listing and the read
      }
    }
    return names;
  }

  /** The throttle values of {@code majMin} in the root blkio cgroup, file name to value. */
  static Map<String, Long> throttleOf(String majMin) throws IOException {
    Map<String, Long> m = new LinkedHashMap<>();
    for (String f : THROTTLE_FILES) {
      m.put(f, throttleValue(Files.readAllLines(new File(BLKIO, f).toPath()), majMin));
    }
    return m;
  }

  /** The value of {@code majMin}'s line in a throttle file's lines (0: no line, no limit). */
  static long throttleValue(List<String> lines, String majMin) {
    for (String l : lines) {
      String[] f = l.trim().split("\\s+");
      if (f.length == 2 && f[0].equals(majMin)) {
        return Long.parseLong(f[1]);
      }
    }
    return 0;
  }

  /** Sets each throttle file's line of {@code majMin} (0 removes it). */
  static void throttle(String majMin, Map<String, Long> values) throws IOException {
    for (Map.Entry<String, Long> e : values.entrySet()) {
      Files.writeString(new File(BLKIO, e.getKey()).toPath(), majMin + " " + e.getValue() + "\n",
        StandardCharsets.UTF_8);
    }
  }

  /** The mount options of {@code mount} ({@code findmnt}); empty when it is not mounted. */
  static String mountOptions(String mount) throws Exception {
    Result r = run(30, "findmnt", "-n", "-o", "OPTIONS", "--mountpoint", mount);
    return r.code() == 0 ? r.output().trim() : "";
  }

  /**
   * Whether mount options say read-only: {@code ro}, or {@code emergency_ro}, which newer
   * kernels show for an ext4 file system that turned read-only after an error (still "rw").
   */
  static boolean readOnly(String options) {
    for (String o : options.split(",")) {
      if (o.equals("ro") || o.equals("emergency_ro")) {
        return true;
      }
    }
    return false;
  }

  record Result(int code, String output) {
  }

  /** Runs a command; its exit code and output (stdout and stderr). */
  static Result run(int timeoutS, String... cmd) throws Exception {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(timeoutS, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException(String.join(" ", cmd) + ": no exit within " + timeoutS + " s");
    }
    return new Result(p.exitValue(), output);
  }

  /** Runs a command that must succeed; its output. */
  static String must(int timeoutS, String... cmd) throws Exception {
    Result r = run(timeoutS, cmd);
    if (r.code() != 0) {
      throw new IOException(String.join(" ", cmd) + " exited " + r.code() + ": " + r.output());
    }
    return r.output();
  }

  /** The DataNode log lines about failed or removed volumes. */
  static List<String> volumeFailureEvents(List<String> logLines) {
    List<String> events = new ArrayList<>();
    for (String l : logLines) {
      String s = l.toLowerCase(java.util.Locale.ROOT);
      if (s.contains("volume") && (s.contains("fail") || s.contains("remov"))
        && !s.contains("volumefailuresummary")) {
        events.add(l.length() > 400 ? l.substring(0, 400) + " ..." : l.trim());
      }
    }
    return events;
  }
}
