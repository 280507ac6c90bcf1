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
import org.apache.hadoop.hbase.regionserver.StripeStoreEngine;

/**
 * HBase's stripe store engine ({@code StripeStoreEngine}) with Strata's placement
 * ({@link StorePlacement}, as {@link TieredStoreEngine} places a default family's files): every
 * file a flush writes (one per stripe) gets the flush policy pinned before its first block;
 * compaction outputs Strata's small or large compaction policy by input size (upstream's
 * per-family policy wins, as for a default family); archived and bulk-loaded files their
 * policies. Enable it per family (or table) with {@code hbase.hstore.engine.class} set to this
 * class and the stripe keys as for upstream's engine.
 */
public class TieredStripeStoreEngine extends StripeStoreEngine implements PlacingStoreEngine {
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
