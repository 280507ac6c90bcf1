package io.strata.hbase.placement;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hbase.io.hfile.CacheConfig;
import org.apache.hadoop.hbase.io.hfile.HFile;
import org.apache.hadoop.hbase.regionserver.HStoreFile;
import org.apache.hadoop.hbase.regionserver.TimeRangeTracker;
import org.apache.hadoop.hdfs.DFSClient;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.client.HdfsDataInputStream;
import org.apache.hadoop.hdfs.protocol.DirectoryListing;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;
import org.apache.hadoop.hdfs.protocol.HdfsLocatedFileStatus;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlocks;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds a {@link PlacementReport} for an HBase root directory on HDFS. Lists the tree with block
 * locations in the same NameNode calls ({@code getListing} with locations), so each replica's
 * storage type is what the NameNode knows now, including the block under construction of an open
 * WAL. Store files are opened once to read their file info (see {@link StoreFileOrigin}). Each
 * file is given the policy the placement rules choose for it and the rule that chose it (see
 * {@link PlacementRules}), each table's descriptor read once from the root's {@code .tabledesc}.
 */
public final class PlacementScanner {
  private static final Logger LOG = LoggerFactory.getLogger(PlacementScanner.class);

  private final DistributedFileSystem dfs;
  private final Configuration conf;

  public PlacementScanner(DistributedFileSystem dfs, Configuration conf) {
    this.dfs = dfs;
    this.conf = conf;
  }

  public PlacementReport scan(Path root) throws IOException {
    return scan(root, "");
  }

  /**
   * Like {@link #scan(Path)}, but lists only the given subtrees of the root (paths relative to
   * it, e.g. {@code data/default/t}); a missing subtree is skipped.
   */
  public PlacementReport scan(Path root, String... subtrees) throws IOException {
    Path qualifiedRoot = dfs.makeQualified(root);
    String rootPath = Path.getPathWithoutSchemeAndAuthority(qualifiedRoot).toString();
    if (!dfs.exists(qualifiedRoot)) {
      throw new FileNotFoundException("HBase root directory " + qualifiedRoot + " does not exist");
    }
    PlacementReport report = new PlacementReport(qualifiedRoot.toString());
    PlacementRules rules = new PlacementRules(dfs, qualifiedRoot, conf);
    DFSClient client = dfs.getClient();
    Deque<String> dirs = new ArrayDeque<>();
    for (String subtree : subtrees) {
      dirs.push(subtree.isEmpty() ? rootPath : new Path(rootPath, subtree).toString());
    }
    while (!dirs.isEmpty()) {
      String dir = dirs.pop();
      byte[] startAfter = HdfsFileStatus.EMPTY_NAME;
      DirectoryListing listing;
      do {
        listing = client.listPaths(dir, startAfter, true);
        if (listing == null) {
          break; // removed while we walked: HBase moves files around all the time
        }
        for (HdfsFileStatus status : listing.getPartialListing()) {
          String full = status.getFullName(dir);
          if (status.isDirectory()) {
            dirs.push(full);
          } else {
            PlacedFile file = place(rootPath, full, (HdfsLocatedFileStatus) status, rules);
            if (file != null) {
              report.add(file);
            }
          }
        }
        startAfter = listing.getLastName();
      } while (listing.hasMore());
    }
    report.setFamilyPolicies(rules.families());
    report.setFamilyEngines(rules.engines());
    return report;
  }

  private PlacedFile place(String rootPath, String fullPath, HdfsLocatedFileStatus status,
    PlacementRules rules) throws IOException {
    String relative = HBaseRootLayout.relativize(new Path(rootPath), new Path(fullPath));
    FileKind kind;
    long[] times = null; // a store file's oldest and newest cell timestamps, if recorded
    switch (HBaseRootLayout.locate(relative)) {
      case WAL:
        kind = FileKind.WAL;
        break;
      case OLDWAL:
        kind = FileKind.OLDWAL;
        break;
      case ARCHIVED_STORE_FILE:
        kind = FileKind.ARCHIVED;
        break;
      case STORE_FILE:
        times = new long[] { Long.MIN_VALUE, Long.MIN_VALUE };
        kind = storeFileKind(fullPath, times);
        if (kind == null) {
          return null;
        }
        break;
      default:
        kind = FileKind.OTHER;
    }
    LocatedBlocks blocks = status.getLocatedBlocks();
    long bytes = status.getLen();
    Map<StorageType, Long> replicas = new EnumMap<>(StorageType.class);
    if (blocks != null) {
      Map<Long, LocatedBlock> unique = new LinkedHashMap<>();
      for (LocatedBlock b : blocks.getLocatedBlocks()) {
        unique.put(b.getBlock().getBlockId(), b);
      }
      LocatedBlock last = blocks.getLastLocatedBlock();
      if (last != null) {
        unique.putIfAbsent(last.getBlock().getBlockId(), last);
      }
      if (blocks.isUnderConstruction()) {
        bytes = visibleLength(fullPath, bytes);
      }
      for (LocatedBlock b : unique.values()) {
        for (StorageType t : b.getStorageTypes()) {
          replicas.merge(t, 1L, Long::sum);
        }
      }
    }
    Long ageMs = null;
    Long oldestAgeMs = null;
    if (times != null && times[1] != Long.MIN_VALUE) {
      long now = System.currentTimeMillis();
      ageMs = now - times[1];
      oldestAgeMs = now - times[0];
    }
    return new PlacedFile(fullPath, kind, bytes, replicas,
      rules.ruleFor(kind, relative, bytes, ageMs, oldestAgeMs), ageMs);
  }

  /**
   * The length a reader sees now. For a file open for write (a live WAL) the NameNode's length
   * leaves out the block being written; the DataNodes know how much of it was flushed. A file
   * left open for write whose last block no live DataNode can measure (a WAL archived without
   * lease recovery, e.g. the meta WAL of a crashed server, after its DataNodes restarted) cannot
   * be opened at all until the NameNode recovers its lease or HBase's cleaner deletes it: it is
   * reported at the NameNode's length rather than failing the whole report.
   */
  private long visibleLength(String fullPath, long namenodeLength) {
    try (HdfsDataInputStream in = (HdfsDataInputStream) dfs.open(new Path(fullPath))) {
      return in.getVisibleLength();
    } catch (FileNotFoundException e) {
      return namenodeLength;
    } catch (IOException e) {
      LOG.warn("File {} is open for write and its last block's length cannot be read from any "
        + "DataNode ({}); reported at the NameNode's length {} (it may lack the last block's newest "
        + "bytes) and placed by its replicas as listed; its lease recovery or HBase's cleaner "
        + "ends this", fullPath,
        e.toString(), namenodeLength);
      return namenodeLength;
    }
  }

  /**
   * Flushed or compacted by the file's own metadata; null if the file vanished meanwhile.
   * {@code times} receives the oldest and newest cell timestamps of its {@code TIMERANGE}, when
   * it has one.
   */
  private FileKind storeFileKind(String fullPath, long[] times) throws IOException {
    Path path = dfs.makeQualified(new Path(fullPath));
    try (HFile.Reader reader = HFile.createReader(dfs, path, CacheConfig.DISABLED, true, conf)) {
      byte[] range = reader.getHFileInfo().get(HStoreFile.TIMERANGE_KEY);
      if (range != null) {
        try {
          TimeRangeTracker t = TimeRangeTracker.parseFrom(range);
          times[0] = t.getMin();
          times[1] = t.getMax();
        } catch (IOException | RuntimeException e) {
          LOG.debug("Store file {} has an unreadable TIMERANGE ({}); its age is not reported",
            fullPath, e.toString());
        }
      }
      return StoreFileOrigin.of(reader.getHFileInfo()).kind();
    } catch (FileNotFoundException e) {
      LOG.debug("Store file {} was moved while the placement report ran; skipped", fullPath);
      return null;
    } catch (IOException e) {
      LOG.warn("Cannot read the file info of store file {} ({}); counted as 'other'", fullPath,
        e.toString());
      return FileKind.OTHER;
    }
  }
}
