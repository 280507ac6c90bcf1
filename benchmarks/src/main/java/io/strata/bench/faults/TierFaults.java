package io.strata.bench.faults;

import io.strata.hdfs.faults.VolumeStallSwitch;
import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The storage-tier faults of {@link FaultCampaign} and what they read back: a DataNode volume
 * stalled through its {@link VolumeStallSwitch} flag file ({@code slow-volume}); the RAM tier
 * ({@code ram-tier-full}) is filled by {@link FaultCampaign} through HDFS. Each fault has its
 * undo, which the campaign runs in a {@code finally}. The parsing is pure and tested.
 */
final class TierFaults {
  /** The delay per operation on the stalled volume. */
  static final long STALL_MS = 4000;
  /** How long the volume stays stalled, and the RAM tier full. */
  static final int HOLD_S = 40;
  /** The size of each file that fills the RAM tier (one block each). */
  static final int FILL_FILE_MB = 32;
  /** At most this many fill files (a RAM tier of up to 8 GiB per DataNode). */
  static final int FILL_MAX_FILES = 256;
  private static final Pattern BLOCK_FILE = Pattern.compile("blk_-?\\d+");

  private TierFaults() {
  }

  /**
   * Writes one fill file of {@code bytes} (one block) with {@code replication} replicas under the
   * policy of its directory; null when written, else why HDFS refused it (for instance no
   * DataNode took its block: every RAM volume fuller than the NameNode's last heartbeat said).
   * Not a try-with-resources: HDFS's output stream throws the same exception from a write and
   * from its close, and adding an exception to itself as suppressed throws instead.
   */
  static String writeFill(org.apache.hadoop.hdfs.DistributedFileSystem dfs,
    org.apache.hadoop.fs.Path f, long bytes, short replication) throws IOException {
    byte[] chunk = new byte[1 << 20];
    java.util.Arrays.fill(chunk, (byte) 0x5a);
    org.apache.hadoop.fs.FSDataOutputStream o = dfs.create(f, true, 1 << 16, replication, bytes);
    IOException refused = null;
    try {
      for (long left = bytes; left > 0; left -= chunk.length) {
        o.write(chunk, 0, (int) Math.min(chunk.length, left));
      }
    } catch (IOException e) {
      refused = e;
    }
    try {
      o.close();
    } catch (IOException e) {
      if (refused == null) {
        refused = e;
      } else if (e != refused) {
        refused.addSuppressed(e);
      }
    }
    if (refused == null) {
      return null;
    }
    // A RemoteException's message carries the NameNode's stack trace: its first line says why.
    String why = String.valueOf(refused.getMessage());
    int eol = why.indexOf('\n');
    return "HDFS refused fill file " + f + ": " + refused.getClass().getSimpleName() + ": "
      + (eol < 0 ? why : why.substring(0, eol));
  }

  /** The SSD volumes of DataNode {@code dn}: {@code ssd}, then {@code ssd2}... that exist. */
  static List<File> ssdVolumes(File clusterDir, int dn) {
    File dnDir = new File(clusterDir, "data/datanode-" + dn);
    List<File> v = new ArrayList<>();
    v.add(new File(dnDir, "ssd"));
    for (int k = 2; new File(dnDir, "ssd" + k).isDirectory(); k++) {
      v.add(new File(dnDir, "ssd" + k));
    }
    return v;
  }

  /** Stalls the volume: its flag file, which the DataNode reads within a second. */
  static void stall(File volume, long ms) throws IOException {
    File tmp = new File(volume, VolumeStallSwitch.FLAG_FILE + ".tmp");
    Files.writeString(tmp.toPath(), ms + "\n", StandardCharsets.UTF_8);
    Files.move(tmp.toPath(), new File(volume, VolumeStallSwitch.FLAG_FILE).toPath(),
      java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }

  /** The stall's undo: the flag file removed (no error when it is not there). */
  static void unstall(File volume) throws IOException {
    Files.deleteIfExists(new File(volume, VolumeStallSwitch.FLAG_FILE).toPath());
  }

  /** Block files (not their .meta) under a volume last written from {@code fromMs} on. */
  static int blocksWrittenSince(File volume, long fromMs) throws IOException {
    Path current = new File(volume, "current").toPath();
    if (!Files.isDirectory(current)) {
      return 0;
    }
    try (Stream<Path> s = Files.walk(current)) {
      return (int) s.filter(p -> BLOCK_FILE.matcher(p.getFileName().toString()).matches())
        .filter(p -> p.toFile().lastModified() >= fromMs).count();
    }
  }

  /**
   * What Strata's latency-aware volume chooser and the stall switch logged, from a DataNode's
   * log lines: the lines that say a volume was found slow, gets blocks again, that all volumes
   * of a type are slow, or that the switch stalled or released a volume.
   */
  static List<String> volumeEvents(List<String> logLines) {
    List<String> events = new ArrayList<>();
    for (String l : logLines) {
      if (l.contains(") is slow: ") || l.contains("gets new blocks again")
        || l.contains("Placing new") || l.contains("stalled, ") || l.contains("no longer stalled")) {
        events.add(l.trim());
      }
    }
    return events;
  }

  /** The lines of a log written after byte {@code from} (whole lines only). */
  static List<String> logSince(File log, long from) throws IOException {
    try (RandomAccessFile f = new RandomAccessFile(log, "r")) {
      long len = f.length();
      if (len <= from) {
        return List.of();
      }
      byte[] b = new byte[(int) Math.min(len - from, 64L << 20)];
      f.seek(from);
      f.readFully(b);
      return List.of(new String(b, StandardCharsets.UTF_8).split("\n"));
    }
  }

  /**
   * When a WAL file was created, from its name (upstream's {@code PREFIX.TIMESTAMP}, with
   * {@code .meta} after it for the meta region's); -1 when the name has no such timestamp.
   */
  static long walCreatedMs(String name) {
    String n = name.endsWith(".meta") ? name.substring(0, name.length() - 5) : name;
    Matcher m = Pattern.compile("\\.(\\d{13})$").matcher(n);
    return m.find() ? Long.parseLong(m.group(1)) : -1;
  }
}
