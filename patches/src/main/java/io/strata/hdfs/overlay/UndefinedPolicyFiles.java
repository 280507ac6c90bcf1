package io.strata.hdfs.overlay;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.util.HashSet;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.BlockStoragePolicy;
import org.apache.hadoop.hdfs.protocol.HdfsConstants;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;

/**
 * {@code strata undefined-policies [--hdfs URI] [--policy NAME]... [PATH]}: lists the directories
 * and files under PATH (default /) whose storage policy id the NameNode does not define, e.g.
 * after a configured policy was removed from {@code strata.storage.policies}; with
 * {@code --policy NAME}, also those carrying that (still defined) policy, before removing it. A listing carries each inode's policy
 * id as stored (inherited from its directory when it has none), which the NameNode does not
 * resolve, so this sees the ids the NameNode's fallback hides. A directory is listed where the id
 * is set on it (its parent's differs); each file is listed. Exit status 0 when there is none, 1
 * when some are listed, 2 on a usage error.
 *
 * <p>To give them a built-in policy: {@code hdfs storagepolicies -setStoragePolicy -path DIR
 * -policy NAME} on each listed directory (and file whose directory is not listed), then the
 * satisfier ({@code -satisfyStoragePolicy}) or {@code hdfs mover -p PATH}.
 */
public final class UndefinedPolicyFiles {

  private final DistributedFileSystem fs;
  private final Set<Byte> defined = new HashSet<>();
  private long files;
  private long dirs;
  private long scanned;

  /**
   * @param retiring names of defined policies to list as if they were not (before removing them
   *   from the configuration); an unknown name is an IllegalArgumentException
   */
  public UndefinedPolicyFiles(DistributedFileSystem fs, Set<String> retiring) throws IOException {
    this.fs = fs;
    defined.add(HdfsConstants.BLOCK_STORAGE_POLICY_ID_UNSPECIFIED);
    Set<String> unknown = new HashSet<>(retiring);
    for (BlockStoragePolicy p : fs.getStoragePolicies()) {
      if (!unknown.remove(p.getName())) {
        defined.add(p.getId());
      }
    }
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException("--policy " + unknown + ": not a storage policy of "
        + fs.getUri());
    }
  }

  /** What a scan finds: a directory where an undefined (or retiring) id is set, or a file. */
  public interface Found {
    void found(FileStatus status, byte id) throws IOException;
  }

  /** Walks {@code root}, printing each directory and file whose policy id is undefined. */
  public void scan(Path root, PrintStream out) throws IOException {
    scan(root, (st, id) -> out.printf("%-5s id %-2d %s%n", st.isDirectory() ? "dir" : "file", id,
      Path.getPathWithoutSchemeAndAuthority(st.getPath())));
  }

  /**
   * Walks {@code root}, handing each directory where an undefined (or retiring) id is set (its
   * parent's differs) and each file that carries one (set on it or inherited) to {@code found}.
   */
  public void scan(Path root, Found found) throws IOException {
    FileStatus st = fs.getFileStatus(root);
    byte id = ((HdfsFileStatus) st).getStoragePolicy();
    report(st, id, (byte) -1, found);
    if (st.isDirectory()) {
      walk(st.getPath(), id, found);
    }
  }

  private void walk(Path dir, byte dirId, Found found) throws IOException {
    RemoteIterator<FileStatus> it = fs.listStatusIterator(dir);
    while (it.hasNext()) {
      FileStatus st = it.next();
      byte id = ((HdfsFileStatus) st).getStoragePolicy();
      report(st, id, dirId, found);
      if (st.isDirectory()) {
        walk(st.getPath(), id, found);
      }
    }
  }

  private void report(FileStatus st, byte id, byte parentId, Found found) throws IOException {
    scanned++;
    if (defined.contains(id)) {
      return;
    }
    if (st.isDirectory()) {
      if (id != parentId) {
        dirs++;
        found.found(st, id);
      }
    } else {
      files++;
      found.found(st, id);
    }
  }

  /** Entries (files and directories) looked at by the scans so far. */
  public long scanned() {
    return scanned;
  }

  /** Files found with an undefined id. */
  public long files() {
    return files;
  }

  /** Directories where an undefined id is set. */
  public long directories() {
    return dirs;
  }

  /**
   * Lists the directories and files under {@code path} whose policy id the NameNode does not
   * define, or that carry one of the {@code retiring} policies; returns the exit code: 0 none,
   * 1 some listed, 2 bad input (not HDFS, an unknown policy name).
   *
   * @param hdfs the NameNode, or null for fs.defaultFS
   */
  public static int list(Configuration conf, URI hdfs, Set<String> retiring, String path,
    PrintStream out, PrintStream err) throws IOException {
    FileSystem fs = hdfs != null ? FileSystem.get(hdfs, conf) : FileSystem.get(conf);
    if (!(fs instanceof DistributedFileSystem)) {
      err.println("strata undefined-policies: " + fs.getUri() + " is not HDFS; give --hdfs "
        + "hdfs://HOST:PORT");
      return 2;
    }
    UndefinedPolicyFiles scan;
    try {
      scan = new UndefinedPolicyFiles((DistributedFileSystem) fs, retiring);
    } catch (IllegalArgumentException e) {
      err.println("strata undefined-policies: " + e.getMessage());
      return 2;
    }
    scan.scan(new Path(path), out);
    out.printf("%d file(s) and %d directory(ies) with an undefined%s storage policy id among %d "
      + "under %s; defined ids: %s%n", scan.files, scan.dirs,
      retiring.isEmpty() ? "" : " or retiring " + retiring, scan.scanned, path, scan.defined);
    return scan.files + scan.dirs > 0 ? 1 : 0;
  }
}
