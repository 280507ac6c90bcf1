package io.strata.hbase.rdma;

import java.io.IOException;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.hbase.RegionTooBusyException;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.RegionObserver;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.wal.WALEdit;

/**
 * Counts, per row, the Puts the RegionServer runs — the server-side view of how many times a
 * client's Put arrived. A row whose name contains {@value #BUSY_ONCE} is refused once with
 * {@link RegionTooBusyException}, which HBase's client retries after its pause (with the
 * region's location kept, so the retry's send runs on HBase's retry timer).
 */
public class PutCounter implements RegionCoprocessor, RegionObserver {
  static final String BUSY_ONCE = "busy-once-";
  /** A row refused once whose name also contains this is refused after {@value #SLOW_MS} ms. */
  static final String SLOW = "slow-";
  static final long SLOW_MS = 1_500;
  private static final Map<String, AtomicInteger> PUTS = new ConcurrentHashMap<>();

  @Override
  public Optional<RegionObserver> getRegionObserver() {
    return Optional.of(this);
  }

  @Override
  public void prePut(ObserverContext<RegionCoprocessorEnvironment> c, Put put, WALEdit edit)
    throws IOException {
    String row = Bytes.toString(put.getRow());
    int n = PUTS.computeIfAbsent(row, r -> new AtomicInteger()).incrementAndGet();
    if (n == 1 && row.contains(BUSY_ONCE)) {
      if (row.contains(SLOW)) {
        try {
          Thread.sleep(SLOW_MS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      throw new RegionTooBusyException("refusing the first Put of " + row + " (test)");
    }
  }

  /** Puts of {@code row} the RegionServer ran (a refused one included). */
  static int puts(String row) {
    AtomicInteger n = PUTS.get(row);
    return n == null ? 0 : n.get();
  }
}
