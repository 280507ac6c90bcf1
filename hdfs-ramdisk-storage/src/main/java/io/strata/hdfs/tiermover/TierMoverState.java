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
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the tier mover must not forget across restarts: the last NameNode transaction it has
 * fully taken in, the renamed paths it accepted but has not seen on their tier yet, and for a
 * renamed directory being listed, the last file handed out. Saved by writing a temporary file
 * beside it, fsync, an atomic rename and an fsync of the directory (so the rename itself survives
 * a power loss); a crash leaves either the old or the new state, never a torn one, and a partial
 * temporary file left by a crash is removed on load. Format, one record a line: {@code txid N},
 * {@code pending EVENT_TIME_MS URL_ENCODED_PATH} (a file, or a path not looked at yet), {@code dir
 * EVENT_TIME_MS URL_ENCODED_CURSOR URL_ENCODED_PATH} (a directory whose files are being listed;
 * the cursor is the last file handed out, {@code -} for none). Immutable; not thread-safe to save
 * to the same file from two threads.
 */
final class TierMoverState {
  private static final Logger LOG = LoggerFactory.getLogger(TierMoverState.class);
  static final long NO_TXID = -1;
  /** What an operator does about a state file that cannot be read. */
  static final String WAY_BACK = "Fix or remove it; without it the mover starts at the "
    + "NameNode's current transaction and does not revisit earlier renames: run 'strata mover -p "
    + "<dir>' on the directories renamed meanwhile (HBase's archive and oldWALs) to place them";
  private static final String NO_CURSOR = "-";

  /** One accepted, unfinished path. {@code cursor} is null unless {@code directory}. */
  static final class Pending {
    private final String path;
    private final long renamedAt;
    private final boolean directory;
    private final String cursor;

    Pending(String path, long renamedAt, boolean directory, String cursor) {
      this.path = path;
      this.renamedAt = renamedAt;
      this.directory = directory;
      this.cursor = cursor;
    }

    public String path() {
      return path;
    }

    public long renamedAt() {
      return renamedAt;
    }

    public boolean directory() {
      return directory;
    }

    public String cursor() {
      return cursor;
    }

    @Override
    public boolean equals(Object other) {
      if (this == other) {
        return true;
      }
      if (!(other instanceof Pending)) {
        return false;
      }
      Pending o = (Pending) other;
      return Objects.equals(path, o.path)
        && renamedAt == o.renamedAt
        && directory == o.directory
        && Objects.equals(cursor, o.cursor);
    }

    @Override
    public int hashCode() {
      return Objects.hash(path, renamedAt, directory, cursor);
    }

    @Override
    public String toString() {
      return "Pending[path=" + path + ", renamedAt=" + renamedAt + ", directory=" + directory +
        ", cursor=" + cursor + "]";
    }
  }

  private final long txid;
  private final List<Pending> pending;

  TierMoverState(long txid, List<Pending> pending) {
    this.txid = txid;
    this.pending = pending;
  }

  /** The last transaction taken in, or {@link #NO_TXID} for a first start. */
  long txid() {
    return txid;
  }

  /** Every accepted, unfinished path, with its rename time (NameNode clock, ms). */
  List<Pending> pending() {
    return pending;
  }

  static Path temporaryFile(Path file) {
    return file.toAbsolutePath().resolveSibling(file.getFileName() + ".tmp");
  }

  /**
   * Reads {@code file}; a missing file is a first start. A malformed one is an error. A temporary
   * file beside it is what a crash in the middle of a save left (the save had not replaced the
   * state yet): it is ignored and removed.
   */
  static TierMoverState load(Path file) throws IOException {
    Path tmp = temporaryFile(file);
    if (Files.exists(tmp)) {
      LOG.info("Tier mover: ignoring and removing {}, left by a save that did not finish; the "
        + "state is {}", tmp, file);
      Files.delete(tmp);
    }
    if (!Files.exists(file)) {
      return new TierMoverState(NO_TXID, new ArrayList<>());
    }
    long txid = NO_TXID;
    List<Pending> pending = new ArrayList<>();
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (java.nio.charset.CharacterCodingException e) {
      throw new IOException("tier mover state " + file + " is not text (" + e + "). " + WAY_BACK,
        e);
    }
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String[] f = line.split(" ", 4);
      try {
        if (f[0].equals("txid") && f.length == 2) {
          txid = Long.parseLong(f[1]);
        } else if (f[0].equals("pending") && f.length == 3) {
          pending.add(new Pending(decode(f[2]), Long.parseLong(f[1]), false, null));
        } else if (f[0].equals("dir") && f.length == 4) {
          String cursor = f[2].equals(NO_CURSOR) ? null : decode(f[2]);
          pending.add(new Pending(decode(f[3]), Long.parseLong(f[1]), true, cursor));
        } else {
          throw new IllegalArgumentException("unknown record");
        }
      } catch (IllegalArgumentException e) {
        throw new IOException("tier mover state " + file + " line " + (i + 1) + " is malformed ("
          + e.getMessage() + "): '" + line + "'. " + WAY_BACK, e);
      }
    }
    return new TierMoverState(txid, pending);
  }

  private static String decode(String s) {
    return URLDecoder.decode(s, StandardCharsets.UTF_8);
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  /** Replaces {@code file} with this state durably; returns the bytes written. */
  long save(Path file) throws IOException {
    Path dir = file.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    Path tmp = temporaryFile(file);
    long bytes;
    try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE,
      StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
      Writer w = java.nio.channels.Channels.newWriter(ch, StandardCharsets.UTF_8)) {
      w.write("# Strata tier mover state\ntxid " + txid + "\n");
      for (Pending p : pending) {
        if (p.directory()) {
          w.write("dir " + p.renamedAt() + " " + (p.cursor() == null ? NO_CURSOR
            : encode(p.cursor())) + " " + encode(p.path()) + "\n");
        } else {
          w.write("pending " + p.renamedAt() + " " + encode(p.path()) + "\n");
        }
      }
      w.flush();
      ch.force(true);
      bytes = ch.size();
    }
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    // The rename is an update of the directory: without this, a power loss can bring back the
    // old state (or none, after the first save, and the mover would start at the NameNode's
    // current transaction, skipping renames).
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    }
    return bytes;
  }
}
