package io.strata.bench.ycsb;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import site.ycsb.ClientThread;
import site.ycsb.WorkloadException;
import site.ycsb.measurements.Measurements;
import site.ycsb.workloads.CoreWorkload;

/**
 * Runs a YCSB phase inside this JVM: YCSB's own {@link CoreWorkload} and {@link ClientThread}s
 * (what {@code site.ycsb.Client} starts, without its {@code System.exit}) over
 * {@link HBaseClient26}, each thread's binding wrapped in a {@link MeasuredDb}. For what must
 * share the process with the cluster, e.g. an RDMA transport that only connects within one JVM.
 * YCSB's own measurements are not used (they are a process-wide singleton); the figures come
 * from the {@link MeasuredDb}s.
 *
 * <p>Thread-safety: {@link #run} may be called from one thread at a time (YCSB's
 * {@code Measurements} properties are process-wide).
 */
public final class InProcessYcsb {
  private InProcessYcsb() {
  }

  /** One operation type's count and latencies in microseconds. */
  record Latency(long count, double meanUs, double p50Us, double p99Us) {
    static Latency of(Histogram ns) {
      if (ns.getTotalCount() == 0) {
        return new Latency(0, 0, 0, 0);
      }
      return new Latency(ns.getTotalCount(), ns.getMean() / 1000.0,
        ns.getValueAtPercentile(50) / 1000.0, ns.getValueAtPercentile(99) / 1000.0);
    }
  }

  /**
   * A run's figures (or several runs' together, {@link #merge}): operations (and how many did
   * not return OK), the time from the first operation's start to the last one's end, and the
   * latencies (nanoseconds) over all operations and per type.
   */
  public record Figures(long operations, long failed, double seconds, Histogram allNs,
    Map<String, Histogram> byTypeNs) {
    public double opsPerSec() {
      return seconds > 0 ? operations / seconds : 0;
    }

    Latency all() {
      return Latency.of(allNs);
    }

    Map<String, Latency> byType() {
      Map<String, Latency> m = new LinkedHashMap<>();
      byTypeNs.forEach((type, h) -> m.put(type, Latency.of(h)));
      return m;
    }

    /** Runs together: operations, failures and time added, latencies merged. */
    static Figures merge(List<Figures> runs) {
      Histogram all = new Histogram(3);
      Map<String, Histogram> byType = new TreeMap<>();
      long ops = 0;
      long failed = 0;
      double seconds = 0;
      for (Figures f : runs) {
        ops += f.operations();
        failed += f.failed();
        seconds += f.seconds();
        all.add(f.allNs());
        f.byTypeNs().forEach((type, h) -> byType.computeIfAbsent(type, x -> new Histogram(3))
          .add(h));
      }
      return new Figures(ops, failed, seconds, all, byType);
    }

    long count(String type) {
      Histogram h = byTypeNs.get(type);
      return h == null ? 0 : h.getTotalCount();
    }

    @Override
    public String toString() {
      return String.format(Locale.ROOT, "%d ops in %.1f s = %.0f ops/s, mean %.1f us, p50 %.1f "
        + "us, p99 %.1f us%s", operations, seconds, opsPerSec(), all().meanUs(), all().p50Us(),
        all().p99Us(), failed > 0 ? ", " + failed + " failed" : "");
    }
  }

  /**
   * Runs {@code threads} YCSB client threads of the workload {@code props} describes (a workload
   * file's properties with the run's over them; {@code connection} naming a connection given to
   * {@link HBaseClient26#provideConnection}): the transactions ({@code transactions}) or the
   * load, {@code operations} in all, split between the threads as YCSB's client does, stopping
   * early after {@code maxTime}. Fails when a thread ran nothing (its binding failed to
   * initialise) or YCSB's workload refuses the properties.
   */
  public static Figures run(Properties props, boolean transactions, int threads, long operations,
    Duration maxTime) throws WorkloadException, InterruptedException {
    if (operations > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("YCSB counts at most " + Integer.MAX_VALUE
        + " operations per run, not " + operations);
    }
    Measurements.setProperties(props);
    CoreWorkload workload = new CoreWorkload();
    workload.init(props);
    CountDownLatch done = new CountDownLatch(threads);
    List<MeasuredDb> dbs = new ArrayList<>();
    List<ClientThread> clients = new ArrayList<>();
    List<Thread> running = new ArrayList<>();
    int[] todo = new int[threads];
    try {
      for (int i = 0; i < threads; i++) {
        // What site.ycsb.Client gives each thread: an even share, the first ones one more.
        int ops = (int) (operations / threads + (i < operations % threads ? 1 : 0));
        todo[i] = ops;
        MeasuredDb db = new MeasuredDb(new HBaseClient26());
        db.setProperties(props);
        ClientThread c = new ClientThread(db, transactions, workload, props, ops, 0, done);
        c.setThreadId(i);
        c.setThreadCount(threads);
        dbs.add(db);
        clients.add(c);
        Thread t = new Thread(c, "ycsb-client-" + i);
        t.setDaemon(true);
        running.add(t);
      }
      running.forEach(Thread::start);
      if (!done.await(maxTime.toNanos(), TimeUnit.NANOSECONDS)) {
        workload.requestStop();
        if (!done.await(2, TimeUnit.MINUTES)) {
          throw new IllegalStateException("YCSB client threads did not stop within 2 minutes "
            + "of the end of the run");
        }
      }
      for (Thread t : running) {
        t.join();
      }
    } finally {
      workload.requestStop();
      workload.cleanup();
    }
    Histogram all = new Histogram(3);
    Map<String, Histogram> byType = new TreeMap<>();
    long failed = 0;
    long first = Long.MAX_VALUE;
    long last = Long.MIN_VALUE;
    for (int i = 0; i < threads; i++) {
      MeasuredDb db = dbs.get(i);
      if (clients.get(i).getOpsDone() == 0 && todo[i] > 0) {
        throw new IllegalStateException("YCSB client thread " + i + " ran no operation (its "
          + "binding failed to initialise: see the log)");
      }
      all.add(db.all());
      db.byType().forEach((type, h) -> byType.computeIfAbsent(type, x -> new Histogram(3))
        .add(h));
      failed += db.failed();
      first = Math.min(first, db.firstStartNs());
      last = Math.max(last, db.lastEndNs());
    }
    double seconds = last > first ? (last - first) / 1e9 : 0;
    return new Figures(all.getTotalCount(), failed, seconds, all, byType);
  }

  static double round(double v) {
    return Math.round(v * 10) / 10.0;
  }
}
