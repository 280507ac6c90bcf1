package io.strata.hdfs.sps;

import io.strata.hdfs.HdfsKeys;
import java.io.IOException;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;
import org.apache.hadoop.hdfs.server.common.HdfsServerConstants;
import org.apache.hadoop.security.AccessControlException;

/**
 * Asks the Storage Policy Satisfier to move a file's blocks, first clearing a stale "being
 * satisfied" mark. The NameNode marks a requested file with the xattr
 * {@value HdfsServerConstants#XATTR_SATISFY_STORAGE_POLICY} and ignores any request for a file
 * that has it, until a satisfier removes it once done. A satisfier that died holding the file
 * (killed, or its removal of the mark failed) leaves the mark with nobody to remove it, and the
 * file could never be placed again short of a NameNode restart.
 *
 * <p>A mark is stale when no satisfier holds the file: it is not in the satisfier's journal
 * ({@link SatisfierJournal}). Such a mark is also on a file still waiting in the NameNode's
 * queue; clearing it and asking again queues the file a second time, which is harmless (the
 * second pass finds the file in place). The mark is in the {@code user} namespace: removing it
 * needs write access to the file, as setting a storage policy does. Thread-safe.
 */
public final class SatisfierMarks {
  /** The NameNode's "being satisfied" mark. */
  public static final String MARK = HdfsServerConstants.XATTR_SATISFY_STORAGE_POLICY;

  private final DistributedFileSystem dfs;
  private final SatisfierJournal journal;

  public SatisfierMarks(DistributedFileSystem dfs, String journalDir) {
    this.dfs = dfs;
    this.journal = new SatisfierJournal(dfs, journalDir);
  }

  public SatisfierMarks(DistributedFileSystem dfs, Configuration conf) {
    this(dfs, HdfsKeys.spsJournalDir(conf));
  }

  /** What {@link #request} did. */
  public enum Outcome {
    /** The file had no mark: asked. */
    REQUESTED,
    /** A satisfier holds the file: nothing asked, it finishes the file. */
    HELD,
    /** A mark nobody held was cleared, then the file asked for again. */
    CLEARED_STALE_MARK
  }

  /** Whether {@code file} carries the mark. */
  public boolean marked(Path file) throws IOException {
    Map<String, byte[]> xattrs = dfs.getXAttrs(file);
    return xattrs != null && xattrs.containsKey(MARK);
  }

  /**
   * Asks for {@code file}'s blocks to be moved to its policy; a stale mark is cleared first.
   *
   * @throws AccessControlException when a stale mark cannot be cleared for lack of write access
   *                                to the file (the message says what to do)
   */
  public Outcome request(Path file) throws IOException {
    if (!marked(file)) {
      dfs.satisfyStoragePolicy(file);
      return Outcome.REQUESTED;
    }
    HdfsFileStatus st = dfs.getClient().getFileInfo(file.toUri().getPath());
    if (st == null) {
      throw new java.io.FileNotFoundException(file.toString());
    }
    if (journal.holds(st.getFileId())) {
      return Outcome.HELD;
    }
    try {
      dfs.removeXAttr(file, MARK);
    } catch (AccessControlException e) {
      throw new AccessControlException(file + " has a stale Storage Policy Satisfier mark ("
        + MARK + ", no satisfier holds it per " + journal.dir() + "), which the NameNode lets "
        + "only a user with write access to the file clear; run as the file's owner or the HDFS "
        + "superuser (" + e.getMessage() + ")");
    } catch (IOException e) {
      // Cleared meanwhile (a satisfier finished it): asking again is what is wanted anyway.
      if (marked(file)) {
        throw e;
      }
    }
    dfs.satisfyStoragePolicy(file);
    return Outcome.CLEARED_STALE_MARK;
  }

  /** The journal the satisfier keeps. */
  public SatisfierJournal journal() {
    return journal;
  }
}
