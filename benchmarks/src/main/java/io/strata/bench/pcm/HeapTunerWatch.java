package io.strata.bench.pcm;

import io.strata.local.EmbeddedHBase;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.io.hfile.BlockCache;
import org.apache.hadoop.hbase.regionserver.HRegionServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What {@code PcmHeapTuner} did to each RegionServer of a cluster during one phase: the memstore
 * limit and block-cache size HeapMemoryManager gave it at the start and the end, as shares of the
 * emulated heap, and how many times they were seen to change (read every
 * {@link #SAMPLE_MS} ms). The values are read from the RegionServers (the global memstore limit
 * their metrics publish, the block cache's maximum size), not from the policy written on the
 * table. Thread-safety: one sampling thread; {@link #finish} after it has stopped.
 */
final class HeapTunerWatch implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HeapTunerWatch.class);
  /** Short against the tuner period the bench sets, so that no step is missed. */
  static final long SAMPLE_MS = 250;

  /** One RegionServer's memstore and block-cache limits, in shares of the emulated heap. */
  record Shares(double memstore, double blockCache) {
    boolean differs(Shares o) {
      return Math.abs(memstore - o.memstore) > 1e-9 || Math.abs(blockCache - o.blockCache) > 1e-9;
    }
  }

  private final EmbeddedHBase h;
  private final double emulatedHeap;
  private final Map<String, Shares> before = new LinkedHashMap<>();
  private final Map<String, Shares> last = new LinkedHashMap<>();
  private final Map<String, Integer> steps = new LinkedHashMap<>();
  private final ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(
    r -> {
      Thread t = new Thread(r, "pcm-heap-tuner-watch");
      t.setDaemon(true);
      return t;
    });

  /** Reads every RegionServer of {@code h} now (the start) and then every {@link #SAMPLE_MS}. */
  HeapTunerWatch(EmbeddedHBase h, long emulatedHeapBytes) {
    this.h = h;
    this.emulatedHeap = emulatedHeapBytes;
    for (int i = 0; i < h.regionServerCount(); i++) {
      HRegionServer rs = h.regionServer(i);
      Shares s = shares(rs);
      before.put(rs.getServerName().toString(), s);
      last.put(rs.getServerName().toString(), s);
      steps.put(rs.getServerName().toString(), 0);
    }
    sampler.scheduleWithFixedDelay(this::sample, SAMPLE_MS, SAMPLE_MS, TimeUnit.MILLISECONDS);
  }

  private synchronized void sample() {
    try {
      for (int i = 0; i < h.regionServerCount(); i++) {
        HRegionServer rs = h.regionServer(i);
        String name = rs.getServerName().toString();
        Shares now = shares(rs);
        Shares prev = last.get(name);
        if (prev != null && now.differs(prev)) {
          steps.merge(name, 1, Integer::sum);
        }
        last.put(name, now);
      }
    } catch (RuntimeException e) {
      // A sample lost is a step possibly missed, not a failed run: the end is read again.
      LOG.warn("Could not read the RegionServers' heap shares; this sample is skipped", e);
    }
  }

  /** {@code rs}'s memstore limit and block-cache size over the emulated heap. */
  Shares shares(HRegionServer rs) {
    long mem = rs.getMetrics().getRegionServerWrapper().getMemStoreLimit();
    long cache = rs.getBlockCache().map(BlockCache::getMaxSize).orElse(0L);
    return new Shares(mem / emulatedHeap, cache / emulatedHeap);
  }

  /**
   * Stops sampling, reads the end and returns each RegionServer's start and end and the steps
   * seen; {@code table} marks the servers that serve its regions at the end.
   */
  List<PcmResult.TunerServer> finish(TableName table) {
    close();
    sample();
    List<PcmResult.TunerServer> out = new ArrayList<>();
    for (int i = 0; i < h.regionServerCount(); i++) {
      HRegionServer rs = h.regionServer(i);
      String name = rs.getServerName().toString();
      Shares b = before.get(name);
      Shares a = last.get(name);
      if (b == null || a == null) {
        continue;
      }
      out.add(new PcmResult.TunerServer(name, !rs.getRegions(table).isEmpty(), b.memstore(),
        a.memstore(), b.blockCache(), a.blockCache(), steps.getOrDefault(name, 0)));
    }
    return out;
  }

  @Override
  public void close() {
    sampler.shutdownNow();
    try {
      sampler.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
