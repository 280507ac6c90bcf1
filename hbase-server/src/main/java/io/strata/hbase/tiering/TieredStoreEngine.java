package io.strata.hbase.tiering;

import java.io.IOException;
import java.util.Collection;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.CellComparator;
import org.apache.hadoop.hbase.HConstants;
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
  private boolean requestMoves;

  @Override
  protected void createComponents(Configuration conf, HStore store, CellComparator comparator)
    throws IOException {
    super.createComponents(conf, store, comparator);
    this.store = store;
    this.policies = TierPolicies.from(conf);
    this.requestMoves = conf.getBoolean(TieringKeys.REQUEST_MOVES,
      TieringKeys.REQUEST_MOVES_DEFAULT);
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
    if (params.isCompaction()) {
      // HBase writes the output under storage_policy_<P>/ and pins P on it at commit. A policy
      // HBase chose itself (date-tiered compaction) wins.
      if (params.fileStoragePolicy() == null || params.fileStoragePolicy().isEmpty()) {
        params.fileStoragePolicy(policies.forCompaction(params.totalCompactedFilesSize()));
      }
      return super.createWriter(params);
    }
    // A flush gets no pin at commit upstream: pin the policy on the new file itself, before its
    // first block is allocated, so that it survives the rename out of .tmp.
    StoreFileWriter writer = super.createWriter(params);
    try {
      store.getFileSystem().setStoragePolicy(writer.getPath(), policies.flush());
    } catch (IOException | RuntimeException e) {
      LOG.warn("Could not pin storage policy {} on flushed file {} of {}: {}; it takes its "
        + "family directory's policy", policies.flush(), writer.getPath(), store, e.toString());
    }
    return writer;
  }

  @Override
  public List<HStoreFile> commitStoreFiles(List<Path> files, boolean isCompaction,
    boolean validate) throws IOException {
    List<HStoreFile> committed = super.commitStoreFiles(files, isCompaction, validate);
    for (int i = 0; i < committed.size(); i++) {
      String parent = files.get(i).getParent().getName();
      String policy = parent.startsWith(HConstants.STORAGE_POLICY_PREFIX)
        ? parent.substring(HConstants.STORAGE_POLICY_PREFIX.length())
        : isCompaction ? "NONE" : policies.flush();
      TieringMetrics.placed(isCompaction ? "compacted" : "flushed", policy,
        committed.get(i).getFileInfo().getSize());
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
      if (BlockMover.pinAndMove(fs, archived, policies.archive(), "archived HFile",
        requestMoves)) {
        TieringMetrics.placed("archived", policies.archive(), f.getFileInfo().getSize());
      }
    }
  }
}
