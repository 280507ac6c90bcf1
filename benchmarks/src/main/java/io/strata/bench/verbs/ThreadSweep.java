package io.strata.bench.verbs;

import com.sun.management.OperatingSystemMXBean;
import io.strata.metrics.Latencies;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;

/**
 * The client-thread-count sweep of {@link HybridRpcLatency}: for one thread count, all threads
 * Get the same record (then all Put it) for a fixed time on each path; ops/s, mean and p99
 * latency over the measured window, and the process's CPU time per operation.
 */
final class ThreadSweep {
  private ThreadSweep() {
  }

  /** One client thread count: per path and operation, what the threads did in the window. */
  static final class ThreadRow {
    final int threads;
    /** [path][0 get, 1 put]. */
    final Window[][] windows;
    final HybridRpcLatency.Counts counts;

    ThreadRow(int threads, Window[][] windows, HybridRpcLatency.Counts counts) {
      this.threads = threads;
      this.windows = windows;
      this.counts = counts;
    }

    boolean allOverEndpoint() {
      return counts.allOver(windows[1][0].calls, windows[1][1].calls);
    }

    String line() {
      return String.format(Locale.ROOT, "threads %3d: get ops/s netty %7.0f rdma %7.0f, put "
        + "ops/s netty %7.0f rdma %7.0f; cpu us/get netty %6.0f rdma %6.0f; %d/%d Gets and "
        + "%d/%d Puts over the endpoint", threads, windows[0][0].opsPerS(),
        windows[1][0].opsPerS(), windows[0][1].opsPerS(), windows[1][1].opsPerS(),
        windows[0][0].cpuUsPerOp(), windows[1][0].cpuUsPerOp(), counts.gets(),
        windows[1][0].calls, counts.puts(), windows[1][1].calls);
    }
  }

  /** The measured window of one thread-count cell. */
  static final class Window {
    /** Latencies, ns, of the calls that completed in the window. */
    final long[] latencies;
    final long windowNs;
    final long cpuNs;
    /** Calls made in the whole cell, warm-up and tail included. */
    final long calls;

    Window(long[] latencies, long windowNs, long cpuNs, long calls) {
      this.latencies = latencies;
      this.windowNs = windowNs;
      this.cpuNs = cpuNs;
      this.calls = calls;
    }

    double opsPerS() {
      return latencies.length * 1e9 / windowNs;
    }

    double meanUs() {
      return Arrays.stream(latencies).average().orElse(0) / 1000.0;
    }

    double p99Us() {
      return HybridRpcLatency.us(latencies, latencies.length, 99);
    }

    double cpuUsPerOp() {
      return latencies.length == 0 ? 0 : cpuNs / 1000.0 / latencies.length;
    }
  }

  static ThreadRow row(Connection[] paths, int threads, int index, HybridRpcLatency.Options o)
    throws Exception {
    byte[] value = HybridRpcLatency.value(o.threadBytes);
    try (Table t = paths[0].getTable(HybridRpcLatency.TABLE)) {
      t.put(HybridRpcLatency.put(value));
    }
    Window[][] windows = new Window[paths.length][2];
    HybridRpcLatency.Counts before = HybridRpcLatency.Counts.now();
    for (int op = 0; op < 2; op++) {
      for (int m = 0; m < paths.length; m++) {
        int p = (m + index) % paths.length;
        windows[p][op] = window(paths[p], threads, op == 1, value, o);
      }
    }
    return new ThreadRow(threads, windows, HybridRpcLatency.Counts.now().minus(before));
  }

  /**
   * {@code threads} threads Getting (or Putting) the record over one connection: unmeasured for
   * the warm-up, then measured: the calls completing in the window, its length and the process
   * CPU time spent in it.
   */
  private static Window window(Connection c, int threads, boolean puts, byte[] value,
    HybridRpcLatency.Options o) throws Exception {
    OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory
      .getOperatingSystemMXBean();
    Worker[] workers = new Worker[threads];
    AtomicLong completed = new AtomicLong();
    CountDownLatch ready = new CountDownLatch(threads);
    CountDownLatch go = new CountDownLatch(1);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    for (int i = 0; i < threads; i++) {
      workers[i] = new Worker(c.getTable(HybridRpcLatency.TABLE), puts, value, ready, go,
        failure, completed);
      workers[i].setName("client-" + i);
      workers[i].setDaemon(true);
      workers[i].start();
    }
    long windowStart;
    long windowEnd;
    long cpu0;
    long cpu1;
    try {
      ready.await();
      go.countDown();
      Thread.sleep(o.warmupMs);
      cpu0 = os.getProcessCpuTime();
      windowStart = System.nanoTime();
      long before = completed.get();
      Thread.sleep(o.measureMs);
      // A stalled guest (WAL sync, a descheduled vCPU) may complete nothing in the window:
      // extend it, up to 10 times its length, until every thread could have completed one call.
      long limit = windowStart + 10L * o.measureMs * 1_000_000L;
      while (completed.get() - before < threads && System.nanoTime() < limit
        && failure.get() == null) {
        Thread.sleep(50);
      }
      windowEnd = System.nanoTime();
      cpu1 = os.getProcessCpuTime();
    } finally {
      for (Worker w : workers) {
        w.stop = true;
      }
      for (Worker w : workers) {
        w.join(180_000);
        if (w.isAlive()) {
          throw new IllegalStateException(w.getName() + " did not stop within 180 s");
        }
      }
    }
    if (failure.get() != null) {
      throw new IOException("a client thread failed", failure.get());
    }
    long[] in = new long[0];
    int n = 0;
    long calls = 0;
    for (Worker w : workers) {
      calls += w.count;
      for (int i = 0; i < w.count; i++) {
        if (w.ends[i] >= windowStart && w.ends[i] <= windowEnd) {
          if (n == in.length) {
            in = Arrays.copyOf(in, Math.max(1024, 2 * n));
          }
          in[n++] = w.latencies[i];
        }
      }
    }
    if (n == 0) {
      throw new IllegalStateException("no " + (puts ? "Put" : "Get") + " of " + threads
        + " threads completed within " + (windowEnd - windowStart) / 1_000_000 + " ms");
    }
    return new Window(Arrays.copyOf(in, n), windowEnd - windowStart, cpu1 - cpu0, calls);
  }

  /** A client thread of a thread-count cell: calls until stopped, recording end and latency. */
  private static final class Worker extends Thread {
    private final Table table;
    private final boolean puts;
    private final byte[] value;
    private final CountDownLatch ready;
    private final CountDownLatch go;
    private final AtomicReference<Throwable> failure;
    private final AtomicLong completed;
    volatile boolean stop;
    long[] ends = new long[4096];
    long[] latencies = new long[4096];
    int count;

    Worker(Table table, boolean puts, byte[] value, CountDownLatch ready, CountDownLatch go,
      AtomicReference<Throwable> failure, AtomicLong completed) {
      this.table = table;
      this.puts = puts;
      this.value = value;
      this.ready = ready;
      this.go = go;
      this.failure = failure;
      this.completed = completed;
    }

    @Override
    public void run() {
      try (Table t = table) {
        Put put = HybridRpcLatency.put(value);
        Get get = new Get(HybridRpcLatency.RECORD);
        ready.countDown();
        go.await();
        while (!stop) {
          long t0 = System.nanoTime();
          if (puts) {
            t.put(put);
          } else {
            HybridRpcLatency.checkValue(t.get(get), value.length);
          }
          long t1 = System.nanoTime();
          if (count == ends.length) {
            ends = Arrays.copyOf(ends, 2 * count);
            latencies = Arrays.copyOf(latencies, 2 * count);
          }
          ends[count] = t1;
          latencies[count++] = t1 - t0;
          completed.incrementAndGet();
        }
      } catch (Throwable e) {
        failure.compareAndSet(null, e);
        ready.countDown();
      }
    }
  }
}
