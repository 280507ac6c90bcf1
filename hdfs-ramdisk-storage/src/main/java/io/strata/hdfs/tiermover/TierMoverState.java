package io.strata.hdfs.tiermover;

import java.io.IOException;
import java.io.Writer;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the tier mover must not forget across restarts: the last NameNode transaction it has
 * fully taken in, and the files it accepted but has not seen on their tier yet. Saved by write,
 * fsync and atomic rename, so a crash leaves either the old or the new state, never a torn one.
 * Format, one record a line: {@code txid N}, {@code pending EVENT_TIME_MS URL_ENCODED_PATH}.
 */
final class TierMoverState {
  static final long NO_TXID = -1;

  private final long txid;
  private final Map<String, Long> pending;

  TierMoverState(long txid, Map<String, Long> pending) {
    this.txid = txid;
    this.pending = pending;
  }

  /** The last transaction taken in, or {@link #NO_TXID} for a first start. */
  long txid() {
    return txid;
  }

  /** Path to the rename time (NameNode clock, ms) of every accepted, unfinished file. */
  Map<String, Long> pending() {
    return pending;
  }

  /** Reads {@code file}; a missing file is a first start. A malformed one is an error. */
  static TierMoverState load(Path file) throws IOException {
    if (!Files.exists(file)) {
      return new TierMoverState(NO_TXID, new LinkedHashMap<>());
    }
    long txid = NO_TXID;
    Map<String, Long> pending = new LinkedHashMap<>();
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String[] f = line.split(" ", 3);
      try {
        if (f[0].equals("txid") && f.length == 2) {
          txid = Long.parseLong(f[1]);
        } else if (f[0].equals("pending") && f.length == 3) {
          pending.put(URLDecoder.decode(f[2], StandardCharsets.UTF_8), Long.parseLong(f[1]));
        } else {
          throw new IllegalArgumentException("unknown record");
        }
      } catch (IllegalArgumentException e) {
        throw new IOException("tier mover state " + file + " line " + (i + 1) + " is malformed ("
          + e.getMessage() + "): '" + line + "'. Fix or remove it; without it the mover starts at "
          + "the NameNode's current transaction and does not revisit earlier renames", e);
      }
    }
    return new TierMoverState(txid, pending);
  }

  /** Replaces {@code file} with this state atomically. */
  void save(Path file) throws IOException {
    Path dir = file.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    Path tmp = dir.resolve(file.getFileName() + ".tmp");
    try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE,
      StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
      Writer w = java.nio.channels.Channels.newWriter(ch, StandardCharsets.UTF_8)) {
      w.write("# Strata tier mover state\ntxid " + txid + "\n");
      for (Map.Entry<String, Long> e : pending.entrySet()) {
        w.write("pending " + e.getValue() + " "
          + URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "\n");
      }
      w.flush();
      ch.force(true);
    }
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }
}
