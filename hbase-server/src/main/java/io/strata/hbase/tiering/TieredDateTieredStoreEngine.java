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
import org.apache.hadoop.hbase.regionserver.DateTieredStoreEngine;
import org.apache.hadoop.hbase.regionserver.DefaultStoreEngine;

/**
 * HBase's date-tiered store engine ({@code DateTieredStoreEngine}) with Strata's placement
 * ({@link StorePlacement}, as {@link TieredStoreEngine} places a default family's files):
 * flushed files get the flush policy pinned before their first block; archived and bulk-loaded
 * files their policies. Compaction outputs: when the family enables upstream's date-tiered
 * storage-policy windows ({@code hbase.hstore.compaction.date.tiered.storage.policy.enable},
 * HBASE-24289), upstream's compactor names each window's hot, warm or cold policy for its output
 * and that policy is kept; otherwise Strata's small or large compaction policy by input size.
 * Enable it per family (or table) with {@code hbase.hstore.engine.class} set to this class and
 * the date-tiered compaction keys as for upstream's engine.
 *
 * <p>Its compaction policy is {@link TieredDateTieredCompactionPolicy} (upstream's, with a major
 * compaction's oldest output placed by its data's age rather than always on the cold window's
 * policy) unless the family names one in {@code hbase.hstore.defaultengine.compactionpolicy.class}.
 */
public class TieredDateTieredStoreEngine extends DateTieredStoreEngine
  implements PlacingStoreEngine {
  /** The placement of this store's files; shared with Strata's other engines. */
  private final StorePlacement placement = new StorePlacement(this, super::createWriter);

  @Override
  protected void createCompactionPolicy(Configuration conf, HStore store) throws IOException {
    if (conf.get(DefaultStoreEngine.DEFAULT_COMPACTION_POLICY_CLASS_KEY) != null) {
      super.createCompactionPolicy(conf, store); // the family's own choice
      return;
    }
    compactionPolicy = new TieredDateTieredCompactionPolicy(conf, store);
  }

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
