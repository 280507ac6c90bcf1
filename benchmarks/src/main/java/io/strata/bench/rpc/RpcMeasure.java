package io.strata.bench.rpc;

import com.sun.management.OperatingSystemMXBean;
import com.sun.management.ThreadMXBean;
import io.strata.metrics.Latencies;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
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
    Latencies[] samples = new Latencies[threads];
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
          Latencies mine = new Latencies();
          long end = window[0];
          for (long now = System.nanoTime(); now - end < 0;) {
            call.run(table);
            long after = System.nanoTime();
            mine.record(after - now);
            now = after;
          }
          samples[id] = mine;
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
    return figures(samples, elapsed, cpu, alloc);
  }

  /** One thread's async calls, each joined before the next, for {@code seconds}. */
  static Figures runAsync(AsyncTable<?> table, double seconds, AsyncCall call) throws Exception {
    call.run(table);
    Latencies samples = new Latencies();
    long cpu0 = OS.getProcessCpuTime();
    long alloc0 = allocated();
    long t0 = System.nanoTime();
    long end = t0 + (long) (seconds * 1e9);
    for (long now = t0; now - end < 0;) {
      call.run(table);
      long after = System.nanoTime();
      samples.record(after - now);
      now = after;
    }
    double elapsed = (System.nanoTime() - t0) / 1e9;
    return figures(new Latencies[] { samples }, elapsed, OS.getProcessCpuTime() - cpu0,
      allocated() - alloc0);
  }

  private static Figures figures(Latencies[] perThread, double seconds, long cpuNanos,
    long allocBytes) {
    Latencies all = new Latencies();
    for (Latencies l : perThread) {
      all.add(l);
    }
    long total = all.count();
    if (total == 0) {
      throw new IllegalStateException("no call completed in " + seconds + " s");
    }
    return new Figures(total, seconds, all.percentile(50) / 1e3, all.percentile(99) / 1e3,
      all.mean() / 1e3, cpuNanos / 1e3 / total,
      allocBytes < 0 ? Double.NaN : (double) allocBytes / total);
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
