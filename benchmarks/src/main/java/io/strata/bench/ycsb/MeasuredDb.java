package io.strata.bench.ycsb;

import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;
import java.util.function.Supplier;
import org.HdrHistogram.Histogram;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * A YCSB binding around another that times each operation (nanoseconds, HdrHistogram) per
 * operation type and in all, counts the operations that did not return {@code OK}, and notes
 * when the first operation started and the last one ended, so that a run's throughput leaves
 * out the binding's {@code init} and {@code cleanup}. A runtime exception of the delegate is
 * counted as a failed operation instead of reaching YCSB's client thread, which would end the
 * JVM.
 *
 * <p>Not thread-safe: one instance per YCSB client thread, read by {@link InProcessYcsb} after
 * the thread has ended.
 */
final class MeasuredDb extends DB {
  static final String READ = "READ";
  static final String UPDATE = "UPDATE";
  static final String INSERT = "INSERT";
  static final String SCAN = "SCAN";
  static final String DELETE = "DELETE";

  private final DB delegate;
  private final Map<String, Histogram> byType = new HashMap<>();
  private final Histogram all = new Histogram(3);
  private long failed;
  private long firstStartNs = Long.MAX_VALUE;
  private long lastEndNs = Long.MIN_VALUE;

  MeasuredDb(DB delegate) {
    this.delegate = delegate;
  }

  @Override
  public void setProperties(Properties p) {
    super.setProperties(p);
    delegate.setProperties(p);
  }

  @Override
  public void init() throws DBException {
    delegate.init();
  }

  @Override
  public void cleanup() throws DBException {
    delegate.cleanup();
  }

  @Override
  public Status read(String table, String key, Set<String> fields,
    Map<String, ByteIterator> result) {
    return timed(READ, () -> delegate.read(table, key, fields, result));
  }

  @Override
  public Status scan(String table, String startKey, int recordCount, Set<String> fields,
    Vector<HashMap<String, ByteIterator>> result) {
    return timed(SCAN, () -> delegate.scan(table, startKey, recordCount, fields, result));
  }

  @Override
  public Status update(String table, String key, Map<String, ByteIterator> values) {
    return timed(UPDATE, () -> delegate.update(table, key, values));
  }

  @Override
  public Status insert(String table, String key, Map<String, ByteIterator> values) {
    return timed(INSERT, () -> delegate.insert(table, key, values));
  }

  @Override
  public Status delete(String table, String key) {
    return timed(DELETE, () -> delegate.delete(table, key));
  }

  /** Runs one operation of the delegate, timed; a runtime failure counts as ERROR. */
  private Status timed(String type, Supplier<Status> op) {
    long start = System.nanoTime();
    Status s;
    try {
      s = op.get();
    } catch (RuntimeException e) {
      s = Status.ERROR;
    }
    return record(type, start, s);
  }

  private Status record(String type, long start, Status s) {
    long end = System.nanoTime();
    long ns = Math.max(1, end - start);
    all.recordValue(ns);
    byType.computeIfAbsent(type, t -> new Histogram(3)).recordValue(ns);
    if (!s.isOk()) {
      failed++;
    }
    firstStartNs = Math.min(firstStartNs, start);
    lastEndNs = Math.max(lastEndNs, end);
    return s;
  }

  /** Latencies of every operation, in nanoseconds. */
  Histogram all() {
    return all;
  }

  /** Latencies per operation type ({@link #READ}, {@link #UPDATE}, ...), in nanoseconds. */
  Map<String, Histogram> byType() {
    return byType;
  }

  long failed() {
    return failed;
  }

  /** {@link System#nanoTime} at the start of the first operation; MAX_VALUE if none ran. */
  long firstStartNs() {
    return firstStartNs;
  }

  /** {@link System#nanoTime} at the end of the last operation; MIN_VALUE if none ran. */
  long lastEndNs() {
    return lastEndNs;
  }
}
