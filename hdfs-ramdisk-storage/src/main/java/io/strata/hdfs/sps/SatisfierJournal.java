package io.strata.hdfs.sps;

import io.strata.hdfs.HdfsKeys;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;

/**
 * The files a Storage Policy Satisfier holds, kept in HDFS ({@link HdfsKeys#SPS_JOURNAL_DIR}) so
 * that they outlive the satisfier's process and host. The NameNode hands each requested file out
 * once and keeps its "being satisfied" mark until a satisfier removes it; while the mark is
 * there, asking again is ignored. A satisfier killed while it held files took them with it: only
 * this journal still names them.
 *
 * <p>One empty directory per inode id: a {@code mkdirs} is one NameNode call, synced to its edit
 * log before it returns, and needs no lease (a file would, and a killed writer's lease lasts).
 * Only the holder of {@code /system/mover.id} writes it; anyone may read it. Thread-safe.
 */
public final class SatisfierJournal {
  private final DistributedFileSystem dfs;
  private final Path dir;

  public SatisfierJournal(DistributedFileSystem dfs, String dir) {
    this.dfs = dfs;
    this.dir = new Path(dir);
  }

  /** The directory it keeps. */
  public Path dir() {
    return dir;
  }

  /** Records that the satisfier holds {@code inodeId}; durable when it returns. */
  void take(long inodeId) throws IOException {
    if (!dfs.mkdirs(entry(inodeId))) {
      throw new IOException("Cannot record inode " + inodeId + " in the satisfier's journal "
        + dir + " (" + HdfsKeys.SPS_JOURNAL_DIR + ")");
    }
  }

  /** Records that the satisfier is done with {@code inodeId} (its mark is gone). */
  void release(long inodeId) throws IOException {
    dfs.delete(entry(inodeId), false);
  }

  /** Whether a satisfier holds {@code inodeId} (or will re-adopt it when it starts). */
  public boolean holds(long inodeId) throws IOException {
    return dfs.exists(entry(inodeId));
  }

  /** The inode ids held; entries that are not ids are skipped. */
  List<Long> held() throws IOException {
    List<Long> ids = new ArrayList<>();
    FileStatus[] entries;
    try {
      entries = dfs.listStatus(dir);
    } catch (FileNotFoundException e) {
      return ids;
    }
    for (FileStatus st : entries) {
      try {
        ids.add(Long.parseLong(st.getPath().getName()));
      } catch (NumberFormatException e) {
        // Not written by a satisfier; left alone.
      }
    }
    return ids;
  }

  private Path entry(long inodeId) {
    return new Path(dir, Long.toString(inodeId));
  }
}
