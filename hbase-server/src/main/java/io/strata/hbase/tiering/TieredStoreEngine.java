package io.strata.hbase.tiering;

import java.io.IOException;
import java.util.Collection;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.CellComparator;
import org.apache.hadoop.hbase.regionserver.CreateStoreFileWriterParams;
import org.apache.hadoop.hbase.regionserver.HStore;
import org.apache.hadoop.hbase.regionserver.HStoreFile;
import org.apache.hadoop.hbase.regionserver.StoreFileWriter;
import org.apache.hadoop.hbase.regionserver.DefaultStoreEngine;

/**
 * HBase's default store engine, placing each HFile by how it was made: flushes on the flush
 * policy, compactions on the small or large policy by input size, files HBase archives after
 * a compaction on the archive policy and files a bulk load hands to the store on the bulk-load
 * policy, with their blocks moved there. Enable it with
 * {@code hbase.hstore.engine.class} (site, table or column family); see {@link TieringKeys}, and
 * {@link TierPolicies} for which rule chooses each policy (upstream's explicit per-family
 * {@code STORAGE_POLICY} wins over Strata's defaults).
 *
 * <p>Upstream pins a policy on compaction output only; a flushed file takes its family
 * directory's policy, so this engine pins the flush policy on the file itself, which keeps it
 * through the rename out of {@code .tmp}.
 *
 *
 * <p>The placement itself, its modes (on, off, deferred while the NameNode does not answer) and
 * its thread-safety are {@link StorePlacement}'s, which {@link TieredDateTieredStoreEngine}
 * shares.
 */
public class TieredStoreEngine extends DefaultStoreEngine implements PlacingStoreEngine {
  /** The placement of this store's files; shared with Strata's other engines. */
  private final StorePlacement placement = new StorePlacement(this, super::createWriter);

  @Override
  protected void createComponents(Configuration conf, HStore store, CellComparator comparator)
    throws IOException {
    super.createComponents(conf, store, comparator);
    placement.open(conf, store);
  }

  @Override
  public void initialize(boolean warmup) throws IOException {
    super.initialize(warmup);
    placement.initialized(warmup);
  }

  @Override
  public void writeUnlock() {
    super.writeUnlock();
    placement.writeUnlocked();
  }

  @Override
  public StoreFileWriter createWriter(CreateStoreFileWriterParams params) throws IOException {
    return placement.createWriter(params);
  }

  @Override
  public List<HStoreFile> commitStoreFiles(List<Path> files, boolean isCompaction,
    boolean validate) throws IOException {
    return placement.committed(files, isCompaction,
      super.commitStoreFiles(files, isCompaction, validate));
  }

  @Override
  public void addStoreFiles(Collection<HStoreFile> storeFiles,
    IOExceptionRunnable actionAfterAdding) throws IOException {
    super.addStoreFiles(storeFiles, actionAfterAdding);
    placement.added(storeFiles);
  }

  @Override
  public boolean needsCompaction(List<HStoreFile> filesCompacting) {
    placement.compactionCheck();
    return super.needsCompaction(filesCompacting);
  }

  @Override
  public void removeCompactedFiles(Collection<HStoreFile> compactedFiles) {
    super.removeCompactedFiles(compactedFiles);
    placement.removedCompacted(compactedFiles);
  }
}
