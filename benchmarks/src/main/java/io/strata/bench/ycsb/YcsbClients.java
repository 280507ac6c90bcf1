package io.strata.bench.ycsb;

import io.strata.bench.ycsb.YcsbRunner.Phase;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.HdrHistogram.Histogram;

/**
 * One YCSB phase run by one or several client processes ({@link YcsbRunner}). Several clients
 * split the phase's records ({@code insertstart}/{@code insertcount}) or operations between
 * them and start and stop together through a ZooKeeper barrier ({@link
 * CoordinatedHBaseClient26}); their latencies are merged from YCSB's HdrHistogram logs, so the
 * percentiles are those of all operations, not an average of per-client percentiles.
 */
public final class YcsbClients {
  /** Root of the barrier znodes in the cluster's ZooKeeper. */
  public static final String BARRIER_ROOT = "/strata-ycsb/barrier";

  private final int clients;
  private final int threads;
  private final String zookeeper;
  private final Map<String, String> properties = new LinkedHashMap<>();
  private final List<String> jvmOptions = new ArrayList<>();
  private final String runId = UUID.randomUUID().toString().substring(0, 8);
  private Duration timeout = Duration.ofMinutes(30);
  private Duration stagger = Duration.ZERO;
  private int phases;

  /**
   * @param clients client processes (1: a plain YCSB run, no barrier)
   * @param threads YCSB threads per process
   * @param zookeeper the cluster's ZooKeeper as {@code host:port}; the barrier is kept there
   */
  public YcsbClients(int clients, int threads, String zookeeper) {
    if (clients < 1 || threads < 1) {
      throw new IllegalArgumentException("Need at least one client and thread, not " + clients
        + " clients of " + threads + " threads");
    }
    this.clients = clients;
    this.threads = threads;
    this.zookeeper = zookeeper;
  }

  /** YCSB properties of every phase; {@code recordcount} is required. */
  public YcsbClients properties(Map<String, String> values) {
    properties.putAll(values);
    return this;
  }

  public YcsbClients property(String key, String value) {
    properties.put(key, value);
    return this;
  }

  public YcsbClients jvmOption(String option) {
    jvmOptions.add(option);
    return this;
  }

  public YcsbClients timeout(Duration d) {
    this.timeout = d;
    return this;
  }

  /** Start client {@code i} {@code i * stagger} after the first (to show the barrier's effect). */
  public YcsbClients stagger(Duration d) {
    this.stagger = d;
    return this;
  }

  public int clients() {
    return clients;
  }

  /**
   * Runs {@code phase} of {@code workloadFile} with {@code extra} properties over this run's;
   * each client's output in {@code dir/client-<i>} (in {@code dir} for one client).
   */
  public PhaseFigures execute(Phase phase, Path workloadFile, Map<String, String> extra, Path dir)
    throws IOException, InterruptedException {
    Map<String, String> props = new LinkedHashMap<>(properties);
    props.putAll(extra);
    String barrier = BARRIER_ROOT + "/" + runId + "/" + (++phases) + "-" + phase.name();
    List<Path> dirs = new ArrayList<>();
    List<YcsbRunner> runners = new ArrayList<>();
    for (int i = 0; i < clients; i++) {
      Path d = clients == 1 ? dir : dir.resolve("client-" + i);
      Path hdr = d.resolve("hdr");
      Files.createDirectories(hdr);
      try (var old = Files.list(hdr)) {
        for (Path p : old.toList()) {
          Files.delete(p);
        }
      }
      YcsbRunner r = new YcsbRunner(workloadFile).properties(props).threads(threads)
        .timeout(timeout).property("hdrhistogram.fileoutput", "true")
        .property("hdrhistogram.output.path", hdr.toAbsolutePath() + "/");
      jvmOptions.forEach(r::jvmOption);
      if (clients > 1) {
        share(phase, props, i, r);
        r.db(CoordinatedHBaseClient26.class.getName())
          .property(CoordinatedHBaseClient26.CONNECT, zookeeper)
          .property(CoordinatedHBaseClient26.PATH, barrier)
          .property(CoordinatedHBaseClient26.MEMBERS, Integer.toString(clients))
          .property(CoordinatedHBaseClient26.TIMEOUT_MS,
            Long.toString(Math.max(stagger.toMillis() * clients, 0) + 120_000))
          .property(CoordinatedHBaseClient26.TIMES_FILE, d.resolve("times").toAbsolutePath()
            .toString());
      }
      dirs.add(d);
      runners.add(r);
    }
    List<YcsbRun> runs = run(phase, runners, dirs);
    return figures(runs, dirs);
  }

  /** Client {@code i}'s share of the records (load) or operations (transactions). */
  private void share(Phase phase, Map<String, String> props, int i, YcsbRunner r) {
    String key = phase == Phase.LOAD ? "recordcount" : "operationcount";
    String v = props.get(key);
    if (v == null) {
      throw new IllegalArgumentException("Coordinated clients need '" + key
        + "' to split between them");
    }
    long total = Long.parseLong(v.trim());
    long from = total * i / clients;
    long to = total * (i + 1) / clients;
    if (phase == Phase.LOAD) {
      long start = Long.parseLong(props.getOrDefault("insertstart", "0").trim());
      r.property("insertstart", Long.toString(start + from))
        .property("insertcount", Long.toString(to - from));
    } else {
      r.property("operationcount", Long.toString(to - from));
    }
  }

  private List<YcsbRun> run(Phase phase, List<YcsbRunner> runners, List<Path> dirs)
    throws IOException, InterruptedException {
    if (runners.size() == 1) {
      return List.of(runners.get(0).execute(phase, dirs.get(0)));
    }
    ExecutorService pool = Executors.newFixedThreadPool(runners.size());
    try {
      List<Future<YcsbRun>> futures = new ArrayList<>();
      for (int i = 0; i < runners.size(); i++) {
        YcsbRunner r = runners.get(i);
        Path d = dirs.get(i);
        long delay = stagger.toMillis() * i;
        futures.add(pool.submit(() -> {
          Thread.sleep(delay);
          return r.execute(phase, d);
        }));
      }
      List<YcsbRun> runs = new ArrayList<>();
      IOException failure = null;
      for (int i = 0; i < futures.size(); i++) {
        try {
          runs.add(futures.get(i).get());
        } catch (ExecutionException e) {
          IOException io = new IOException("Client " + i + " of " + runners.size() + ": "
            + e.getCause().getMessage(), e.getCause());
          if (failure == null) {
            failure = io;
          } else {
            failure.addSuppressed(io);
          }
        }
      }
      if (failure != null) {
        throw failure;
      }
      return runs;
    } finally {
      pool.shutdownNow();
    }
  }

  /** The figures of finished runs whose output (and barrier times) are in {@code dirs}. */
  static PhaseFigures figures(List<YcsbRun> runs, List<Path> dirs) throws IOException {
    long ops = 0;
    long failed = 0;
    for (YcsbRun run : runs) {
      for (YcsbReport.Operation op : run.report().operations().values()) {
        if (!op.name().equals("CLEANUP") && !op.returns().isEmpty()) {
          ops += op.returnedTotal();
        }
      }
      failed += run.report().failedOperations();
    }
    Map<String, LatencySummary> latencies = new LinkedHashMap<>();
    for (Map.Entry<String, Histogram> e : HdrLogs.merge(
      dirs.stream().map(d -> d.resolve("hdr")).toList()).entrySet()) {
      latencies.put(e.getKey(), LatencySummary.of(e.getValue()));
    }
    warnOfLostSamples(ops, latencies, dirs);
    if (runs.size() == 1) {
      YcsbReport r = runs.get(0).report();
      return new PhaseFigures(1, ops, failed, r.runTimeMs() / 1000.0, r.throughputOpsPerSec(),
        latencies, -1, -1, -1, runs);
    }
    long minArrived = Long.MAX_VALUE;
    long maxArrived = Long.MIN_VALUE;
    long minStarted = Long.MAX_VALUE;
    long maxStarted = Long.MIN_VALUE;
    long maxFinished = Long.MIN_VALUE;
    long minJvm = Long.MAX_VALUE;
    long maxJvm = Long.MIN_VALUE;
    for (Path d : dirs) {
      Properties t = times(d.resolve("times"));
      long arrived = micros(t, "arrived_us", d);
      long started = micros(t, "started_us", d);
      minArrived = Math.min(minArrived, arrived);
      maxArrived = Math.max(maxArrived, arrived);
      minStarted = Math.min(minStarted, started);
      maxStarted = Math.max(maxStarted, started);
      maxFinished = Math.max(maxFinished, micros(t, "finished_us", d));
      long jvm = micros(t, "jvm_started_us", d);
      minJvm = Math.min(minJvm, jvm);
      maxJvm = Math.max(maxJvm, jvm);
    }
    double seconds = (maxFinished - minStarted) / 1e6;
    return new PhaseFigures(runs.size(), ops, failed, seconds, ops / seconds, latencies,
      (maxStarted - minStarted) / 1000.0, (maxArrived - minArrived) / 1000.0,
      (maxJvm - minJvm) / 1000.0, runs);
  }

  /**
   * YCSB's {@code Measurements.measure} drops a latency sample when its histogram throws
   * (printing "ignoring and continuing" to the client's output), and the percentiles would then
   * silently cover fewer operations than were done: say so, with where to look.
   */
  private static void warnOfLostSamples(long operations, Map<String, LatencySummary> latencies,
    List<Path> dirs) {
    long samples = latencies.entrySet().stream().filter(e -> !e.getKey().equals("CLEANUP"))
      .mapToLong(e -> e.getValue().count()).sum();
    if (samples != operations) {
      System.err.printf(Locale.ROOT, "WARNING: YCSB recorded %d latencies for %d operations in "
        + "%s: the percentiles cover %s operations than were done (a sample YCSB could not "
        + "record is reported in the client's output as \"ignoring and continuing\")%n",
        samples, operations, dirs, samples < operations ? "fewer" : "more");
    }
  }

  private static Properties times(Path file) throws IOException {
    if (!Files.exists(file)) {
      throw new IOException("Coordinated client left no barrier times in " + file
        + " (see the client's log next to it)");
    }
    Properties p = new Properties();
    try (InputStream in = Files.newInputStream(file)) {
      p.load(in);
    }
    return p;
  }

  private static long micros(Properties p, String key, Path dir) throws IOException {
    String v = p.getProperty(key);
    if (v == null) {
      throw new IOException("No " + key + " in the barrier times of " + dir);
    }
    return Long.parseLong(v);
  }
}
