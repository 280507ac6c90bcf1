package io.strata.bench.rpc;

import com.sun.management.OperatingSystemMXBean;
import com.sun.management.ThreadMXBean;
import io.strata.metrics.Percentiles;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.hbase.client.AsyncTable;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Table;

/**
 * The timed loops of {@code strata bench rpc}: calls of one kind timed one by one, by one or
 * several client threads for a fixed time, with the whole process's CPU time and allocation per
 * call (client, RPC server, RegionServer and HDFS all run in this JVM, so that is what one call
 * costs end to end, polling threads included). Stateless; each loop's threads are its own.
 */
final class RpcMeasure {
  private static final OperatingSystemMXBean OS =
    (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
  private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();
  /** Latency samples kept per thread; a loop that makes more calls keeps the first ones. */
  private static final int MAX_SAMPLES = 1 << 20;

  private RpcMeasure() {
  }

  /** One call through a table. */
  @FunctionalInterface
  interface Call {
    void run(Table table) throws IOException;
  }

  /** One call through an async table, joined. */
  @FunctionalInterface
  interface AsyncCall {
    void run(AsyncTable<?> table) throws Exception;
  }

  /** The figures of a loop: calls, their latencies (µs) and the process's cost per call. */
  record Figures(long calls, double seconds, double p50Us, double p99Us, double meanUs,
    double cpuUsPerCall, double allocBytesPerCall) {
    double opsPerSecond() {
      return calls / seconds;
    }
  }

  /** {@code threads} threads, each with its own table, calling for {@code seconds}. */
  static Figures run(Connection connection, int threads, double seconds, Call call)
    throws Exception {
    long[][] samples = new long[threads][];
    int[] counts = new int[threads];
    AtomicReference<Throwable> failed = new AtomicReference<>();
    CountDownLatch ready = new CountDownLatch(threads);
    CountDownLatch go = new CountDownLatch(1);
    long[] window = new long[1];
    List<Thread> workers = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      int id = i;
      Thread t = new Thread(() -> {
        try (Table table = connection.getTable(RpcBenchCluster.TABLE)) {
          call.run(table); // the table's region location, before the clock starts
          ready.countDown();
          go.await();
          Samples mine = new Samples();
          long end = window[0];
          for (long now = System.nanoTime(); now - end < 0;) {
            call.run(table);
            long after = System.nanoTime();
            mine.add(after - now);
            now = after;
          }
          samples[id] = mine.values;
          counts[id] = mine.count;
        } catch (Throwable e) {
          failed.compareAndSet(null, e);
          ready.countDown();
        }
      }, "rpc-bench-client-" + i);
      t.setDaemon(true);
      workers.add(t);
      t.start();
    }
    ready.await();
    if (failed.get() != null) {
      go.countDown();
      throw new IOException("a client thread failed before the run", failed.get());
    }
    long cpu0 = OS.getProcessCpuTime();
    long alloc0 = allocated();
    long t0 = System.nanoTime();
    window[0] = t0 + (long) (seconds * 1e9);
    go.countDown();
    for (Thread t : workers) {
      t.join();
    }
    double elapsed = (System.nanoTime() - t0) / 1e9;
    long cpu = OS.getProcessCpuTime() - cpu0;
    long alloc = allocated() - alloc0;
    if (failed.get() != null) {
      throw new IOException("a client thread failed", failed.get());
    }
    return figures(samples, counts, elapsed, cpu, alloc);
  }

  /** One thread's async calls, each joined before the next, for {@code seconds}. */
  static Figures runAsync(AsyncTable<?> table, double seconds, AsyncCall call) throws Exception {
    call.run(table);
    Samples samples = new Samples();
    long cpu0 = OS.getProcessCpuTime();
    long alloc0 = allocated();
    long t0 = System.nanoTime();
    long end = t0 + (long) (seconds * 1e9);
    for (long now = t0; now - end < 0;) {
      call.run(table);
      long after = System.nanoTime();
      samples.add(after - now);
      now = after;
    }
    double elapsed = (System.nanoTime() - t0) / 1e9;
    return figures(new long[][] { samples.values }, new int[] { samples.count }, elapsed,
      OS.getProcessCpuTime() - cpu0, allocated() - alloc0);
  }

  /** One thread's latencies (ns), growing up to {@link #MAX_SAMPLES}; later ones are dropped. */
  private static final class Samples {
    long[] values = new long[1024];
    int count;

    void add(long ns) {
      if (count == values.length && count < MAX_SAMPLES) {
        values = Arrays.copyOf(values, Math.min(MAX_SAMPLES, count * 2));
      }
      if (count < values.length) {
        values[count++] = ns;
      }
    }
  }

  private static Figures figures(long[][] samples, int[] counts, double seconds, long cpuNanos,
    long allocBytes) {
    int total = 0;
    for (int c : counts) {
      total += c;
    }
    long[] all = new long[total];
    int at = 0;
    double sum = 0;
    for (int i = 0; i < samples.length; i++) {
      System.arraycopy(samples[i], 0, all, at, counts[i]);
      at += counts[i];
      for (int j = 0; j < counts[i]; j++) {
        sum += samples[i][j];
      }
    }
    Arrays.sort(all);
    if (total == 0) {
      throw new IllegalStateException("no call completed in " + seconds + " s");
    }
    return new Figures(total, seconds, Percentiles.nearestRank(all, total, 50) / 1e3,
      Percentiles.nearestRank(all, total, 99) / 1e3, sum / total / 1e3,
      cpuNanos / 1e3 / total, allocBytes < 0 ? Double.NaN : (double) allocBytes / total);
  }

  /** Bytes allocated by every thread of the process so far; -1 when the JVM cannot say. */
  private static long allocated() {
    try {
      return THREADS.isThreadAllocatedMemorySupported()
        && THREADS.isThreadAllocatedMemoryEnabled() ? THREADS.getTotalThreadAllocatedBytes() : -1;
    } catch (UnsupportedOperationException e) {
      return -1;
    }
  }
}
