package io.strata.bench.writetail;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.LongAdder;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.RegionObserver;
import org.apache.hadoop.hbase.regionserver.FlushLifeCycleTracker;
import org.apache.hadoop.hbase.regionserver.InternalScanner;
import org.apache.hadoop.hbase.regionserver.Store;
import org.apache.hadoop.hbase.regionserver.StoreFile;
import org.apache.hadoop.hbase.regionserver.compactions.CompactionLifeCycleTracker;
import org.apache.hadoop.hbase.regionserver.compactions.CompactionRequest;

/**
 * Counts what a region's memstore does during the write-tail bench, through the region observer
 * hooks HBase calls on flushes and in-memory compactions. Upstream's region metrics count
 * flushes but nothing of in-memory compaction; the hooks see both, per table.
 *
 * <p>An in-memory compaction run is one pass of the store's {@code MemStoreCompactor} after an
 * in-memory flush (flatten, merge or compact, as the policy decides); a data compaction is a run
 * that rewrites cells through a scanner (EAGER always, ADAPTIVE sometimes, BASIC never).
 */
public final class MemStoreActivityObserver implements RegionCoprocessor, RegionObserver {
  private final LongAdder flushes = new LongAdder();
  private final LongAdder flushNanos = new LongAdder();
  private final LongAdder compactions = new LongAdder();
  private final LongAdder inMemoryCompactions = new LongAdder();
  private final LongAdder inMemoryCompactionsRunning = new LongAdder();
  private final LongAdder inMemoryCompactionNanos = new LongAdder();
  private final LongAdder inMemoryDataCompactions = new LongAdder();
  // Start and end (System.nanoTime) of each region flush, for the bench's latency timeline.
  private final ConcurrentLinkedQueue<long[]> flushIntervals = new ConcurrentLinkedQueue<>();
  // Each pair of pre and post hooks runs on one thread.
  private final ThreadLocal<Long> flushStart = new ThreadLocal<>();
  private final ThreadLocal<Long> inMemoryStart = new ThreadLocal<>();

  /** What a region's memstore has done since the region opened. */
  public record Counts(long flushes, long flushNanos, long compactions, long inMemoryCompactions,
    long inMemoryCompactionNanos, long inMemoryDataCompactions) {
    public static final Counts ZERO = new Counts(0, 0, 0, 0, 0, 0);

    public Counts plus(Counts o) {
      return new Counts(flushes + o.flushes, flushNanos + o.flushNanos,
        compactions + o.compactions, inMemoryCompactions + o.inMemoryCompactions,
        inMemoryCompactionNanos + o.inMemoryCompactionNanos,
        inMemoryDataCompactions + o.inMemoryDataCompactions);
    }

    public Counts minus(Counts o) {
      return new Counts(flushes - o.flushes, flushNanos - o.flushNanos,
        compactions - o.compactions, inMemoryCompactions - o.inMemoryCompactions,
        inMemoryCompactionNanos - o.inMemoryCompactionNanos,
        inMemoryDataCompactions - o.inMemoryDataCompactions);
    }
  }

  @Override
  public Optional<RegionObserver> getRegionObserver() {
    return Optional.of(this);
  }

  public Counts counts() {
    return new Counts(flushes.sum(), flushNanos.sum(), compactions.sum(),
      inMemoryCompactions.sum(), inMemoryCompactionNanos.sum(), inMemoryDataCompactions.sum());
  }

  /**
   * Every flush of the region that has ended, as {@code [start, end]} {@link System#nanoTime()}
   * readings (this JVM's: the RegionServer runs in the bench's JVM).
   */
  public List<long[]> flushIntervals() {
    return new ArrayList<>(flushIntervals);
  }

  /** Whether an in-memory compaction is running on one of the region's stores. */
  public boolean inMemoryCompactionRunning() {
    return inMemoryCompactionsRunning.sum() > 0;
  }

  @Override
  public void preFlush(ObserverContext<RegionCoprocessorEnvironment> c,
    FlushLifeCycleTracker tracker) {
    flushStart.set(System.nanoTime());
  }

  @Override
  public void postFlush(ObserverContext<RegionCoprocessorEnvironment> c,
    FlushLifeCycleTracker tracker) {
    Long start = flushStart.get();
    if (start != null) {
      long end = System.nanoTime();
      flushNanos.add(end - start);
      flushIntervals.add(new long[] { start, end });
      flushStart.remove();
    }
  }

  @Override
  public void postFlush(ObserverContext<RegionCoprocessorEnvironment> c, Store store,
    StoreFile resultFile, FlushLifeCycleTracker tracker) {
    if (resultFile != null) {
      flushes.increment();
    }
  }

  @Override
  public void postCompact(ObserverContext<RegionCoprocessorEnvironment> c, Store store,
    StoreFile resultFile, CompactionLifeCycleTracker tracker, CompactionRequest request) {
    compactions.increment();
  }

  @Override
  public void preMemStoreCompaction(ObserverContext<RegionCoprocessorEnvironment> c,
    Store store) {
    inMemoryCompactionsRunning.increment();
    inMemoryStart.set(System.nanoTime());
  }

  @Override
  public InternalScanner preMemStoreCompactionCompact(
    ObserverContext<RegionCoprocessorEnvironment> c, Store store, InternalScanner scanner)
    throws IOException {
    inMemoryDataCompactions.increment();
    return scanner;
  }

  @Override
  public void postMemStoreCompaction(ObserverContext<RegionCoprocessorEnvironment> c,
    Store store) {
    Long start = inMemoryStart.get();
    if (start != null) {
      inMemoryCompactionNanos.add(System.nanoTime() - start);
      inMemoryStart.remove();
    }
    inMemoryCompactions.increment();
    inMemoryCompactionsRunning.decrement();
  }
}
