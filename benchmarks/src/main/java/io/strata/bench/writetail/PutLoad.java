package io.strata.bench.writetail;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Single-row Puts, one round trip each ({@link Table#put(Put)}: no batching, no client-side
 * buffer), from concurrent writers, each Put's latency recorded in nanoseconds.
 *
 * <p>Row {@code i} has the key {@link #rowKey(long)}: 16 hex digits of a bijective mix of
 * {@code i}, so that consecutive rows land all over the key space (like YCSB's hashed inserts)
 * and every table of a run gets the same keys and the same bytes.
 */
final class PutLoad {
  static final byte[] FAMILY = Bytes.toBytes("f");
  static final byte[] QUALIFIER = Bytes.toBytes("q");
  private static final int KEY_CHARS = 16;

  private final Connection connection;
  private final ExecutorService writers;
  private final int threads;
  private final int valueBytes;

  /** {@code writers} must run at least {@code threads} tasks at once. */
  PutLoad(Connection connection, ExecutorService writers, int threads, int valueBytes) {
    this.connection = connection;
    this.writers = writers;
    this.threads = threads;
    this.valueBytes = valueBytes;
  }

  /** A bijection of the longs (the SplitMix64 finalizer): distinct rows get distinct keys. */
  static long mix(long i) {
    long z = i + 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  static byte[] rowKey(long i) {
    String hex = Long.toHexString(mix(i));
    return Bytes.toBytes("0".repeat(KEY_CHARS - hex.length()) + hex);
  }

  /**
   * Writes rows {@code [from, to)} into {@code table} and returns the elapsed nanoseconds, from
   * the first Put sent to the last one acknowledged; every Put's latency goes to
   * {@code latencies} (nanoseconds) unless it is null. Throws the first writer's failure.
   */
  long write(TableName table, long from, long to, Histogram latencies) throws IOException,
    InterruptedException {
    return write(table, from, to, latencies, null);
  }

  /** As {@link #write(TableName, long, long, Histogram)}, each Put also into {@code timeline}. */
  long write(TableName table, long from, long to, Histogram latencies, Timeline timeline)
    throws IOException, InterruptedException {
    AtomicLong next = new AtomicLong(from);
    List<Future<Written>> futures = new ArrayList<>();
    long t0 = System.nanoTime();
    for (int w = 0; w < threads; w++) {
      futures.add(writers.submit(() -> writeRows(table, next, to,
        timeline == null ? null : timeline.local())));
    }
    IOException failure = null;
    for (Future<Written> f : futures) {
      try {
        Written written = f.get();
        if (latencies != null) {
          latencies.add(written.latencies());
        }
        if (timeline != null) {
          timeline.add(written.timeline());
        }
      } catch (ExecutionException e) {
        if (failure == null) {
          failure = new IOException("A writer failed on " + table + ": " + e.getCause(),
            e.getCause());
        }
      }
    }
    long elapsed = System.nanoTime() - t0;
    if (failure != null) {
      throw failure;
    }
    return elapsed;
  }

  /** One writer's Puts: their latencies, and over time when asked. */
  private record Written(Histogram latencies, Timeline timeline) {
  }

  private Written writeRows(TableName name, AtomicLong next, long to, Timeline timeline)
    throws IOException {
    Histogram h = new Histogram(3);
    byte[] value = new byte[valueBytes];
    ThreadLocalRandom.current().nextBytes(value);
    try (Table table = connection.getTable(name)) {
      for (long i = next.getAndIncrement(); i < to; i = next.getAndIncrement()) {
        // Put#addColumn copies key and value into a new cell: the buffers can be reused.
        Put put = new Put(rowKey(i)).addColumn(FAMILY, QUALIFIER, value);
        long start = System.nanoTime();
        table.put(put);
        long nanos = System.nanoTime() - start;
        h.recordValue(nanos);
        if (timeline != null) {
          timeline.record(start, nanos);
        }
      }
    }
    return new Written(h, timeline);
  }

  /** What a full scan of a table found against the rows {@code [0, rows)} written to it. */
  record ReadBack(long rowsFound, long expectedRows, long badValues, boolean sameKeys) {
    boolean complete() {
      return rowsFound == expectedRows && badValues == 0 && sameKeys;
    }
  }

  /**
   * Scans {@code table}: counts its rows, checks every value's length and compares the sum of the
   * keys found with the sum of the keys of rows {@code [0, rows)} (distinct keys, so a lost row
   * and an extra one cannot both go unnoticed).
   */
  ReadBack readBack(TableName name, long rows) throws IOException {
    long expectedSum = 0;
    for (long i = 0; i < rows; i++) {
      expectedSum += mix(i);
    }
    long found = 0;
    long sum = 0;
    long bad = 0;
    try (Table table = connection.getTable(name);
      ResultScanner scanner = table.getScanner(new Scan().addFamily(FAMILY).setCaching(1000))) {
      for (Result r : scanner) {
        found++;
        sum += Long.parseUnsignedLong(Bytes.toString(r.getRow()), 16);
        byte[] v = r.getValue(FAMILY, QUALIFIER);
        if (v == null || v.length != valueBytes) {
          bad++;
        }
      }
    }
    return new ReadBack(found, rows, bad, sum == expectedSum);
  }
}
