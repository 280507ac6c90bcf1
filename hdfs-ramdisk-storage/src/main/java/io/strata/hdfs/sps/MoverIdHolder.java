package io.strata.hdfs.sps;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;
import org.apache.hadoop.hdfs.server.common.HdfsServerConstants;

/**
 * Whether any Storage Policy Satisfier serves a namespace, seen from a client: HDFS's external
 * satisfier (and the Mover, which excludes it) creates {@code /system/mover.id}, writes its host
 * name, keeps the file open while it runs and deletes it when it stops. No such file, or a closed
 * one, means no satisfier runs, and requests wait at the NameNode. An open one means a holder: a
 * satisfier, a Mover, or a process that died less than the NameNode's lease hard limit ago
 * (20 minutes by default), which only the absence of progress tells apart. Thread-safe.
 */
public final class MoverIdHolder implements SatisfierHealth {
  private final DistributedFileSystem dfs;
  /** The holder's host name read from the file with this inode id (a new holder, a new file). */
  private volatile long holderFileId = -1;
  private volatile String holderHost;

  public MoverIdHolder(DistributedFileSystem dfs) {
    this.dfs = dfs;
  }

  @Override
  public SatisfierStatus status() throws IOException {
    boolean closed;
    try {
      closed = dfs.isFileClosed(HdfsServerConstants.MOVER_ID_PATH);
    } catch (FileNotFoundException e) {
      return SatisfierStatus.seenFromOutside(false, "no " + HdfsServerConstants.MOVER_ID_PATH
        + " on " + dfs.getUri());
    }
    if (closed) {
      return SatisfierStatus.seenFromOutside(false, HdfsServerConstants.MOVER_ID_PATH + " on "
        + dfs.getUri() + " has no holder");
    }
    return SatisfierStatus.seenFromOutside(true, "held by " + holderHost() + " ("
      + HdfsServerConstants.MOVER_ID_PATH + ")");
  }

  private String holderHost() {
    // The holder writes its host name and flushes it; a reader sees the flushed bytes. Read once
    // per holder: the file's only block stays under construction while the holder lives, and a
    // DataNode of its pipeline that died leaves a replica that cannot be read, which a read at
    // every look would stumble on (a warning with a stack trace each time).
    try {
      HdfsFileStatus st =
        dfs.getClient().getFileInfo(HdfsServerConstants.MOVER_ID_PATH.toUri().getPath());
      if (st == null) {
        return "an unknown host";
      }
      long id = st.getFileId();
      if (id == holderFileId && holderHost != null) {
        return holderHost;
      }
      try (FSDataInputStream in = dfs.open(HdfsServerConstants.MOVER_ID_PATH)) {
        byte[] b = new byte[256];
        int n = in.read(b);
        holderHost = n > 0 ? new String(b, 0, n, StandardCharsets.UTF_8).trim() : "an unnamed host";
        holderFileId = id;
        return holderHost;
      }
    } catch (IOException e) {
      return "an unknown host";
    }
  }

  /**
   * The command line that starts a satisfier, for messages: the NameNode must run with
   * {@code dfs.storage.policy.satisfier.mode=external}.
   */
  public static String howToStart() {
    return "start one with 'hdfs --daemon start sps' (the NameNode needs "
      + "dfs.storage.policy.satisfier.mode=external)";
  }
}
