package io.strata.bench.faults;

import io.strata.hdfs.mover.PlacementCheck;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;

/**
 * The files of {@code kill-satisfier-mid-move}: a set of files written on DISK (HOT) whose
 * policy is then changed to COLD and handed to the satisfier, so that the satisfier is moving
 * their replicas to ARCHIVE when it is killed. Tells how far the move went (replicas on ARCHIVE
 * out of all), waits for every file to be in place after the restart, with each block at its full
 * replication, and reads every file back against the checksum taken when it was written: a move
 * cut short must neither lose nor corrupt a replica, nor leave a file half moved.
 * Not thread-safe: the campaign's one thread uses it.
 */
final class SatisfierMidMove {
  /** Where the files go; deleted before and after. */
  static final Path DIR = new Path("/strata-chaos/satisfier-mid-move");
  private static final int FILES = 24;
  private static final long FILE_BYTES = 16L << 20;
  private static final long BLOCK_BYTES = 4L << 20;

  private final DistributedFileSystem dfs;
  private final PrintStream out;
  private final List<Path> files = new ArrayList<>();
  private final List<Long> crcs = new ArrayList<>();
  private short replication;

  SatisfierMidMove(DistributedFileSystem dfs, PrintStream out) {
    this.dfs = dfs;
    this.out = out;
  }

  /** Writes the files on HOT (every replica on DISK); returns the bytes written. */
  long write() throws IOException {
    dfs.delete(DIR, true);
    dfs.mkdirs(DIR);
    dfs.setStoragePolicy(DIR, "HOT");
    replication = dfs.getDefaultReplication(DIR);
    Random rnd = new Random(20261128);
    byte[] buf = new byte[1 << 20];
    for (int i = 0; i < FILES; i++) {
      Path p = new Path(DIR, String.format(Locale.ROOT, "f%02d", i));
      CRC32 crc = new CRC32();
      try (FSDataOutputStream o = dfs.create(p, true, 1 << 16, replication, BLOCK_BYTES)) {
        for (long done = 0; done < FILE_BYTES; done += buf.length) {
          rnd.nextBytes(buf);
          crc.update(buf);
          o.write(buf);
        }
      }
      files.add(p);
      crcs.add(crc.getValue());
    }
    return FILES * FILE_BYTES;
  }

  /** COLD on the directory, and each file handed to the satisfier. */
  void ask() throws IOException {
    dfs.setStoragePolicy(DIR, "COLD");
    for (Path p : files) {
      dfs.satisfyStoragePolicy(p);
    }
  }

  /** Replicas on ARCHIVE and all replicas, over every block of the files. */
  long[] archived() throws IOException {
    long onArchive = 0;
    long all = 0;
    for (Path p : files) {
      for (LocatedBlock b : dfs.getClient().getLocatedBlocks(p.toString(), 0, Long.MAX_VALUE)
        .getLocatedBlocks()) {
        for (StorageType t : b.getStorageTypes()) {
          all++;
          if (t == StorageType.ARCHIVE) {
            onArchive++;
          }
        }
      }
    }
    return new long[] { onArchive, all };
  }

  /**
   * Waits until the move has begun and not ended: some replicas on ARCHIVE, not all. Returns the
   * share moved then, or -1 when the satisfier moved nothing within {@code timeoutS} or
   * everything before a look saw it half done.
   */
  double awaitMidMove(int timeoutS) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutS);
    while (System.nanoTime() < deadline) {
      long[] a = archived();
      if (a[0] > 0 && a[0] < a[1]) {
        return (double) a[0] / a[1];
      }
      if (a[1] > 0 && a[0] == a[1]) {
        out.printf(Locale.ROOT, "kill-satisfier-mid-move: the satisfier moved all %d replicas "
          + "before a look found the move half done%n", a[1]);
        return -1;
      }
      Thread.sleep(100);
    }
    return -1;
  }

  /**
   * Seconds until every file is where COLD wants it and every block has its full replication,
   * or -1 when that is not so within {@code timeoutS}.
   */
  double awaitInPlace(int timeoutS) throws IOException, InterruptedException {
    long start = System.nanoTime();
    long deadline = start + TimeUnit.SECONDS.toNanos(timeoutS);
    while (System.nanoTime() < deadline) {
      if (PlacementCheck.unsatisfied(dfs, files).isEmpty() && fullyReplicated()) {
        return (System.nanoTime() - start) / 1e9;
      }
      Thread.sleep(1000);
    }
    return -1;
  }

  private boolean fullyReplicated() throws IOException {
    for (Path p : files) {
      for (LocatedBlock b : dfs.getClient().getLocatedBlocks(p.toString(), 0, Long.MAX_VALUE)
        .getLocatedBlocks()) {
        if (b.getLocations().length != replication) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * The files still marked as being satisfied ({@code system.hdfs.sps}) after {@code timeoutS}:
   * a file is unmarked once the NameNode takes a new request for it, and refuses one ("already
   * called for satisfying storage policy") while the mark of an earlier one stands. A mark that
   * no satisfier clears strands the file: nothing can ask for its placement again.
   */
  List<String> marksLeft(int timeoutS) throws IOException, InterruptedException {
    List<Path> left = new ArrayList<>(files);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutS);
    List<String> reasons = new ArrayList<>();
    while (true) {
      reasons.clear();
      for (java.util.Iterator<Path> it = left.iterator(); it.hasNext();) {
        Path p = it.next();
        try {
          dfs.satisfyStoragePolicy(p);
          it.remove();
        } catch (IOException e) {
          reasons.add(p.getName() + ": " + e.getMessage());
        }
      }
      if (left.isEmpty() || System.nanoTime() > deadline) {
        return reasons;
      }
      Thread.sleep(2000);
    }
  }

  /** The files whose content differs from what was written (empty: all intact). */
  List<String> corrupted() throws IOException {
    List<String> bad = new ArrayList<>();
    byte[] buf = new byte[1 << 20];
    for (int i = 0; i < files.size(); i++) {
      CRC32 crc = new CRC32();
      long n = 0;
      try (FSDataInputStream in = dfs.open(files.get(i))) {
        for (int r; (r = in.read(buf)) > 0; n += r) {
          crc.update(buf, 0, r);
        }
      } catch (IOException e) {
        bad.add(files.get(i).getName() + ": " + e);
        continue;
      }
      if (n != FILE_BYTES || crc.getValue() != crcs.get(i)) {
        bad.add(String.format(Locale.ROOT, "%s: %d bytes, crc %x, written %d bytes, crc %x",
          files.get(i).getName(), n, crc.getValue(), FILE_BYTES, crcs.get(i)));
      }
    }
    return bad;
  }

  /** Deletes the files (their space is not the campaign's to keep). */
  void delete() {
    try {
      dfs.delete(DIR, true);
    } catch (IOException e) {
      out.printf(Locale.ROOT, "kill-satisfier-mid-move: could not delete %s: %s%n", DIR, e);
    }
  }
}
