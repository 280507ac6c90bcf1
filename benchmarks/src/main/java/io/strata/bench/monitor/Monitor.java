package io.strata.bench.monitor;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records a {@link Timeline} of a benchmark run, Otus-style: every {@code interval} one sample of
 * the machine's counters ({@link ProcCounters}: CPU shares, disk and network MB/s) and, when
 * given a {@link RegionServerJmx}, of the RegionServers' metrics (memstore MiB, flush and
 * compaction queue lengths and store files as gauges; blocked requests, milliseconds updates were
 * blocked and GC milliseconds per interval). The bench marks its phases with {@link #phase}. A
 * bench whose clusters come and go ({@link #startFollowing}) tells it which cluster to read with
 * {@link #follow}: while none is followed the HBase series are gaps, and counters are never
 * differenced across two clusters.
 *
 * <p>A source that cannot be read gives {@code NaN} for that sample (logged when a streak of
 * failures starts and when it ends, with the cause), and sampling goes on. If the sampler thread
 * itself dies, that is logged at once and {@link #stop} throws: a run never reports a timeline
 * that silently ended early. Thread-safe: {@link #phase}, {@link #follow} and {@link #stop} may
 * be called from any thread.
 */
public final class Monitor implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Monitor.class);

  /** Machine series, in the order of {@link ProcCounters#rates}. */
  public static final List<String> MACHINE_SERIES = List.of("cpu_user_pct", "cpu_system_pct",
    "cpu_iowait_pct", "disk_read_mb_s", "disk_write_mb_s", "net_rx_mb_s", "net_tx_mb_s",
    "loopback_mb_s");
  /** RegionServer series. */
  public static final List<String> HBASE_SERIES = List.of("memstore_mb", "flush_queue",
    "compaction_queue", "store_files", "blocked_requests", "updates_blocked_ms", "gc_ms");

  private final Duration interval;
  private final Path procRoot;
  private final boolean hbaseSeries;
  /** Held by the sampler while it reads the RegionServers, so that a switch waits for it. */
  private final Object sourceLock = new Object();
  private volatile RegionServerJmx hbase;
  private final long startNanos = System.nanoTime();
  private final Thread sampler;
  private final List<Double> t = new ArrayList<>();
  private final Map<String, List<Double>> series = new LinkedHashMap<>();
  private final List<Timeline.Phase> phases = new ArrayList<>();
  private final Map<String, Integer> missing = new LinkedHashMap<>();
  private String phase;
  private double phaseStart;
  private volatile boolean stopping;
  private volatile Throwable died;
  private Timeline result;

  private Monitor(Duration interval, Path procRoot, RegionServerJmx hbase, boolean hbaseSeries) {
    if (interval.toMillis() < 10) {
      throw new IllegalArgumentException("monitoring interval " + interval.toMillis()
        + " ms: at least 10 ms");
    }
    this.interval = interval;
    this.procRoot = procRoot;
    this.hbase = hbase;
    this.hbaseSeries = hbaseSeries;
    for (String s : MACHINE_SERIES) {
      series.put(s, new ArrayList<>());
    }
    if (hbaseSeries) {
      for (String s : HBASE_SERIES) {
        series.put(s, new ArrayList<>());
      }
    }
    missing.put("proc", 0);
    missing.put("hbase", 0);
    sampler = new Thread(this::sampleUntilStopped, "strata-monitor");
    sampler.setDaemon(true);
  }

  /**
   * Starts sampling at once.
   *
   * @param procRoot the root under which {@code proc/} and {@code sys/block} are read (normally
   *     {@code /})
   * @param hbase the RegionServers' metrics, or null for machine metrics only
   */
  public static Monitor start(Duration interval, Path procRoot, RegionServerJmx hbase) {
    Monitor m = new Monitor(interval, procRoot, hbase, hbase != null);
    m.sampler.start();
    return m;
  }

  /**
   * Starts sampling the machine at once, with the HBase series as gaps until {@link #follow}
   * names the cluster to read.
   */
  public static Monitor startFollowing(Duration interval, Path procRoot) {
    Monitor m = new Monitor(interval, procRoot, null, true);
    m.sampler.start();
    return m;
  }

  /**
   * Reads {@code source} from the next sample on (null: no cluster, gaps). Returns once a read of
   * the previous source in progress has ended, so that its cluster may then be shut down.
   */
  public void follow(RegionServerJmx source) {
    if (!hbaseSeries && source != null) {
      throw new IllegalStateException("this monitor was started for machine metrics only");
    }
    synchronized (sourceLock) {
      hbase = source;
    }
  }

  private double now() {
    return (System.nanoTime() - startNanos) / 1e9;
  }

  /** Ends the current phase, if any, and starts the one named. */
  public synchronized void phase(String name) {
    double now = now();
    if (phase != null) {
      phases.add(new Timeline.Phase(phase, phaseStart, now));
    }
    phase = name;
    phaseStart = now;
  }

  /** Stops sampling and returns the timeline; throws if the sampler died during the run. */
  public Timeline stop() {
    synchronized (this) {
      if (result != null) {
        return result;
      }
    }
    // Not under the lock: the sampler takes it to record its last sample.
    stopping = true;
    LockSupport.unpark(sampler);
    try {
      sampler.join(Math.max(10_000, 5 * interval.toMillis()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (sampler.isAlive()) {
      throw new IllegalStateException("the monitor's sampler did not stop within "
        + Math.max(10, 5 * interval.toSeconds()) + " s: " + Arrays.toString(
          sampler.getStackTrace()));
    }
    if (died != null) {
      throw new IllegalStateException("the monitor's sampler died at " + String.format(
        java.util.Locale.ROOT, "%.1f", lastT()) + " s into the run, so the timeline is "
        + "incomplete: " + died, died);
    }
    synchronized (this) {
      return finish();
    }
  }

  private Timeline finish() {
    if (result != null) {
      return result;
    }
    double end = now();
    if (phase != null) {
      phases.add(new Timeline.Phase(phase, phaseStart, end));
      phase = null;
    }
    Map<String, double[]> values = new LinkedHashMap<>();
    series.forEach((k, v) -> values.put(k, v.stream().mapToDouble(Double::doubleValue).toArray()));
    result = new Timeline(interval.toMillis() / 1000.0,
      t.stream().mapToDouble(Double::doubleValue).toArray(), values, List.copyOf(phases),
      Map.copyOf(missing));
    return result;
  }

  @Override
  public void close() {
    if (result == null && !stopping) {
      try {
        stop();
      } catch (IllegalStateException e) {
        LOG.warn("Closing the monitor: {}", e.getMessage());
      }
    }
  }

  private synchronized double lastT() {
    return t.isEmpty() ? 0 : t.get(t.size() - 1);
  }

  private void sampleUntilStopped() {
    try {
      ProcCounters lastProc = readProc(null);
      HBaseSample lastHb = readHBase();
      long lastNs = System.nanoTime();
      long next = lastNs + interval.toNanos();
      while (!stopping) {
        LockSupport.parkNanos(next - System.nanoTime());
        if (stopping) {
          break;
        }
        if (System.nanoTime() < next) {
          continue;
        }
        // A sample that came late (a GC pause, a slow /jmx) starts the next interval from now
        // rather than firing several back to back.
        next = Math.max(next + interval.toNanos(), System.nanoTime() + interval.toNanos() / 2);
        long ns = System.nanoTime();
        ProcCounters proc = readProc(lastProc);
        HBaseSample hb = readHBase();
        record(proc, lastProc, hb, lastHb, (ns - lastNs) / 1e9);
        lastProc = proc;
        lastHb = hb;
        lastNs = ns;
      }
    } catch (Throwable e) {
      died = e;
      LOG.error("The monitor's sampler died at {} s: {}; the bench fails when it ends, the "
        + "timeline stops here", String.format(java.util.Locale.ROOT, "%.1f", lastT()), e, e);
    }
  }

  /** A reading of the source followed then (a null reading: it could not be read). */
  private record HBaseSample(RegionServerJmx source, RegionServerJmx.Reading reading) {
  }

  private synchronized void record(ProcCounters proc, ProcCounters lastProc,
    HBaseSample sample, HBaseSample lastSample, double seconds) {
    t.add(now());
    double[] m = proc != null && lastProc != null ? proc.rates(lastProc, seconds) : null;
    for (int i = 0; i < MACHINE_SERIES.size(); i++) {
      series.get(MACHINE_SERIES.get(i)).add(m == null ? Double.NaN : m[i]);
    }
    if (m == null) {
      missing.merge("proc", 1, Integer::sum);
    }
    if (!hbaseSeries) {
      return;
    }
    double[] h = new double[HBASE_SERIES.size()];
    Arrays.fill(h, Double.NaN);
    RegionServerJmx.Reading hb = sample == null ? null : sample.reading();
    // Counters are differenced only against the same cluster's previous reading.
    RegionServerJmx.Reading lastHb = lastSample == null || sample == null
      || lastSample.source() != sample.source() ? null : lastSample.reading();
    if (hb != null) {
      h[0] = hb.memstoreMb();
      h[1] = hb.flushQueue();
      h[2] = hb.compactionQueue();
      h[3] = hb.storeFiles();
      if (lastHb != null && lastHb.servers() == hb.servers()) {
        // Counters since the last sample; a server that came or went would make a jump.
        h[4] = Math.max(0, hb.blockedRequests() - lastHb.blockedRequests());
        h[5] = Math.max(0, hb.updatesBlockedMs() - lastHb.updatesBlockedMs());
        h[6] = Math.max(0, hb.gcMs() - lastHb.gcMs());
      }
    } else if (sample != null) {
      missing.merge("hbase", 1, Integer::sum);
    }
    for (int i = 0; i < HBASE_SERIES.size(); i++) {
      series.get(HBASE_SERIES.get(i)).add(h[i]);
    }
  }

  private boolean procFailing;
  private boolean hbaseFailing;
  private int hbaseFailures;

  private ProcCounters readProc(ProcCounters last) {
    try {
      ProcCounters c = ProcCounters.read(procRoot);
      if (procFailing) {
        LOG.info("Machine metrics under {} readable again", procRoot);
        procFailing = false;
      }
      return c;
    } catch (IOException | RuntimeException e) {
      if (!procFailing) {
        LOG.warn("Cannot read machine metrics under {}: {}; recorded as missing until they can "
          + "be read", procRoot, e.toString());
        procFailing = true;
      }
      return null;
    }
  }

  /** The followed source's reading; null when none is followed. */
  private HBaseSample readHBase() {
    synchronized (sourceLock) {
      RegionServerJmx source = hbase;
      if (source == null) {
        return null;
      }
      try {
        RegionServerJmx.Reading r = source.read();
        if (hbaseFailing) {
          LOG.info("RegionServer metrics readable again after {} missed samples", hbaseFailures);
          hbaseFailing = false;
          hbaseFailures = 0;
        }
        return new HBaseSample(source, r);
      } catch (IOException | RuntimeException e) {
        hbaseFailures++;
        if (!hbaseFailing) {
          LOG.warn("Cannot read the RegionServers' metrics: {}; recorded as missing (gaps in the "
            + "HBase series), retried every {} ms", e.toString(), interval.toMillis());
          hbaseFailing = true;
        }
        return new HBaseSample(source, null);
      }
    }
  }
}
