package io.strata.hbase.tiering;

import java.io.IOException;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.CellComparator;
import org.apache.hadoop.hbase.regionserver.CreateStoreFileWriterParams;
import org.apache.hadoop.hbase.regionserver.DefaultStoreEngine;
import org.apache.hadoop.hbase.regionserver.HStore;
import org.apache.hadoop.hbase.regionserver.HStoreFile;
import org.apache.hadoop.hbase.regionserver.StoreFileWriter;
import org.apache.hadoop.hbase.util.HFileArchiveUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * HBase's default store engine, placing each HFile by how it was made: flushes on the flush
 * policy, compactions on the small or large policy by input size, and files HBase archives after
 * a compaction on the archive policy, with their blocks moved there. Enable it with
 * {@code hbase.hstore.engine.class} (site, table or column family); see {@link TieringKeys}.
 *
 * <p>Upstream pins a policy on compaction output only; a flushed file takes its family
 * directory's policy, so this engine pins the flush policy on the file itself, which keeps it
 * through the rename out of {@code .tmp}.
 */
public class TieredStoreEngine extends DefaultStoreEngine {
  private static final Logger LOG = LoggerFactory.getLogger(TieredStoreEngine.class);

  private HStore store;
  private TierPolicies policies;
  /** Policy chosen for each file being written, by its path before the commit's rename. */
  private final Map<Path, String> pending = new ConcurrentHashMap<>();

  @Override
  protected void createComponents(Configuration conf, HStore store, CellComparator comparator)
    throws IOException {
    super.createComponents(conf, store, comparator);
    this.store = store;
    this.policies = TierPolicies.from(conf);
    List<String> problems = policies.problems(TierPolicies.offeredPolicies(store.getFileSystem()));
    if (!problems.isEmpty()) {
      // The master's TieringValidator rejects such tables; reaching here means the RegionServer's
      // own site file differs. Writes go on; HDFS refuses the unknown policy per file.
      LOG.error("Store {} has invalid placement keys: {}", store, String.join("; ", problems));
    }
    LOG.info("Tiered placement for {}: {}", store, policies);
  }

  @Override
  public StoreFileWriter createWriter(CreateStoreFileWriterParams params) throws IOException {
    // A policy chosen by HBase itself (date-tiered compaction) wins.
    if (params.fileStoragePolicy() == null || params.fileStoragePolicy().isEmpty()) {
      params.fileStoragePolicy(params.isCompaction()
        ? policies.forCompaction(params.totalCompactedFilesSize())
        : policies.flush());
    }
    StoreFileWriter writer = super.createWriter(params);
    pending.put(writer.getPath(), params.fileStoragePolicy());
    if (!params.isCompaction()) {
      // Pinned on the file, not only its directory: survives the commit's rename.
      try {
        store.getFileSystem().setStoragePolicy(writer.getPath(), params.fileStoragePolicy());
      } catch (IOException | RuntimeException e) {
        LOG.warn("Could not pin storage policy {} on flushed file {} of {}: {}; it takes its "
          + "family directory's policy", params.fileStoragePolicy(), writer.getPath(), store,
          e.toString());
      }
    }
    return writer;
  }

  @Override
  public List<HStoreFile> commitStoreFiles(List<Path> files, boolean isCompaction,
    boolean validate) throws IOException {
    List<HStoreFile> committed = super.commitStoreFiles(files, isCompaction, validate);
    String kind = isCompaction ? "compacted" : "flushed";
    for (int i = 0; i < files.size(); i++) {
      String policy = pending.remove(files.get(i));
      if (policy != null && i < committed.size()) {
        TieringMetrics.placed(kind, policy, committed.get(i).getReader().length());
      }
    }
    return committed;
  }

  @Override
  public void removeCompactedFiles(Collection<HStoreFile> compactedFiles) {
    super.removeCompactedFiles(compactedFiles);
    // Called after HBase archived the files (only the primary replica archives).
    if (!store.isPrimaryReplicaStore() || compactedFiles.isEmpty()) {
      return;
    }
    Path archiveDir;
    try {
      archiveDir = HFileArchiveUtil.getStoreArchivePath(store.getReadOnlyConfiguration(),
        store.getRegionFileSystem().getRegionInfoForFS(),
        store.getColumnFamilyDescriptor().getName());
    } catch (IOException e) {
      LOG.warn("Cannot resolve the archive directory of {}: {}; {} archived files stay on their "
        + "tier", store, e.toString(), compactedFiles.size());
      return;
    }
    FileSystem fs = store.getFileSystem();
    for (HStoreFile f : compactedFiles) {
      Path archived = new Path(archiveDir, f.getPath().getName());
      try {
        if (!fs.exists(archived)) {
          continue; // deleted rather than archived (e.g. a split's reference file)
        }
      } catch (IOException e) {
        LOG.warn("Cannot check archived file {}: {}", archived, e.toString());
        continue;
      }
      if (BlockMover.pinAndMove(fs, archived, policies.archive(), "archived HFile")) {
        TieringMetrics.placed("archived", policies.archive(), f.getReader() == null ? 0
          : f.getReader().length());
      }
    }
  }
}
