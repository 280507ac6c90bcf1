package io.strata.bench.ycsb;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.HdrHistogram.Histogram;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.zookeeper.CreateMode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import site.ycsb.ByteIterator;
import site.ycsb.RandomByteIterator;
import site.ycsb.Status;
import site.ycsb.Utils;

/**
 * YCSB++'s read-after-write lag: how long after a client wrote a key another client can read
 * it. A writer inserts YCSB-style records ({@code user<hash>}, {@code fieldcount} fields) through
 * {@link HBaseClient26}, with or without client-side buffering, and publishes every {@code
 * sampleEvery}-th key with the time its {@code insert} returned in ZooKeeper (a sequential znode
 * per batch under {@value #ROOT}); a reader with a connection of its own takes the keys from
 * ZooKeeper and polls HBase for all keys not yet seen until each is there. The lag of a key is the
 * end of the first poll that found it minus its write time: with buffering, mostly the time until
 * the buffer fills and is sent.
 *
 * <p>Writer and reader run in this JVM on separate HBase connections and talk only through
 * ZooKeeper; both read the same clock ({@link System#currentTimeMillis} at microsecond
 * resolution through {@link java.time.Instant}), so the lag is exact up to a batch's publication
 * delay (at most {@link Settings#publishEvery}) and one poll round.
 */
public final class ReadAfterWriteLag {
  private static final Logger LOG = LoggerFactory.getLogger(ReadAfterWriteLag.class);

  /** Root of the znodes keys are published under. */
  public static final String ROOT = "/strata-ycsb/raw";
  private static final String BATCH = "b-";
  private static final String DONE = "done";

  /**
   * One measurement.
   *
   * @param records records written
   * @param bufferBytes client write buffer; 0 for no buffering (one Put per round trip)
   * @param targetOpsPerSec writes per second to aim at; 0 for as fast as possible
   * @param sampleEvery publish (and measure) every n-th key
   * @param publishEvery longest a written key waits before its batch is published
   * @param fieldCount fields per record (YCSB's {@code fieldcount})
   * @param fieldLength bytes per field (YCSB's {@code fieldlength})
   * @param timeout how long the reader waits for keys after the writer is done
   */
  public record Settings(int records, long bufferBytes, int targetOpsPerSec, int sampleEvery,
    Duration publishEvery, int fieldCount, int fieldLength, Duration timeout) {
    public Settings {
      if (records < 1 || bufferBytes < 0 || targetOpsPerSec < 0 || sampleEvery < 1
        || fieldCount < 1 || fieldLength < 1) {
        throw new IllegalArgumentException("Bad read-after-write settings: records " + records
          + ", buffer " + bufferBytes + ", target " + targetOpsPerSec + ", sample every "
          + sampleEvery + ", " + fieldCount + " fields of " + fieldLength + " bytes");
      }
    }
  }

  /**
   * What one measurement found.
   *
   * @param settings what was measured
   * @param sampled keys published and measured
   * @param writeSeconds from the first write to the writer's buffer flushed at cleanup
   * @param lagUs time until visible, in microseconds
   * @param pollRounds reader's poll rounds
   * @param meanPollMs mean time of one poll round (the lag's resolution)
   * @param retried keys not readable at their first read, read again until they were: the keys
   *     YCSB++ counts as lagging
   * @param retriedLagUs lag of those keys only, in microseconds
   * @param retriedCdf their lag's cumulative distribution: {ms, fraction of those keys at or
   *     below}, at most {@value #CDF_POINTS} points, the last at fraction 1
   */
  public record Result(Settings settings, int sampled, double writeSeconds, LatencySummary lagUs,
    long pollRounds, double meanPollMs, int retried, LatencySummary retriedLagUs,
    List<double[]> retriedCdf) {
    /** Share of the sampled keys that needed a retry. */
    public double retriedShare() {
      return sampled == 0 ? 0 : (double) retried / sampled;
    }

    public double writesPerSec() {
      return settings.records() / writeSeconds;
    }

    @Override
    public String toString() {
      return String.format(Locale.ROOT, "%-10s %6d keys  %8.0f writes/s  lag ms: p50 %8.1f  "
        + "p99 %8.1f  p99.9 %8.1f  max %8.1f  (%d sampled, poll %.1f ms); retried %.1f %% of "
        + "keys, their lag p50 %.1f ms, max %.1f ms",
        settings.bufferBytes() == 0 ? "unbuffered" : (settings.bufferBytes() >> 10) + " KiB",
        settings.records(), writesPerSec(), lagUs.p50() / 1000.0, lagUs.p99() / 1000.0,
        lagUs.p999() / 1000.0, lagUs.max() / 1000.0, sampled, meanPollMs, 100 * retriedShare(),
        retriedLagUs.p50() / 1000.0, retriedLagUs.max() / 1000.0);
    }
  }

  private final Configuration clientConf;
  private final String zookeeper;
  private final Map<String, String> bindingProperties;

  /**
   * @param clientConf the reader's HBase client configuration
   * @param zookeeper the cluster's ZooKeeper as {@code host:port}
   * @param bindingProperties the writer's binding properties naming the cluster ({@code
   *     hbase.zookeeper.quorum}, ...)
   */
  public ReadAfterWriteLag(Configuration clientConf, String zookeeper,
    Map<String, String> bindingProperties) {
    this.clientConf = clientConf;
    this.zookeeper = zookeeper;
    this.bindingProperties = Map.copyOf(bindingProperties);
  }

  /** Writes and reads back {@code s.records()} records in {@code table} (empty, with family). */
  public Result measure(TableName table, String family, Settings s)
    throws IOException, InterruptedException {
    String run = ROOT + "/" + UUID.randomUUID().toString().substring(0, 8);
    try (CuratorFramework zk = CuratorFrameworkFactory.newClient(zookeeper,
      new ExponentialBackoffRetry(200, 5))) {
      zk.start();
      zk.create().creatingParentsIfNeeded().forPath(run);
      ExecutorService pool = Executors.newFixedThreadPool(2);
      try {
        Future<Double> writer = pool.submit(() -> write(zk, run, table, family, s));
        Future<Result> reader = pool.submit(() -> read(zk, run, table, s, writer));
        double writeSeconds = writer.get();
        Result r = reader.get(s.timeout().toMillis() + 60_000, TimeUnit.MILLISECONDS);
        return new Result(s, r.sampled(), writeSeconds, r.lagUs(), r.pollRounds(),
          r.meanPollMs(), r.retried(), r.retriedLagUs(), r.retriedCdf());
      } catch (ExecutionException e) {
        Throwable c = e.getCause();
        if (c instanceof IOException io) {
          throw io;
        }
        throw new IOException("Read-after-write measurement failed: " + c, c);
      } catch (TimeoutException e) {
        throw new IOException("Read-after-write reader did not finish", e);
      } finally {
        pool.shutdownNow();
        zk.delete().deletingChildrenIfNeeded().forPath(run);
      }
    } catch (IOException | InterruptedException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException("ZooKeeper failed under " + run + ": " + e, e);
    }
  }

  private double write(CuratorFramework zk, String run, TableName table, String family,
    Settings s) throws Exception {
    Properties p = new Properties();
    p.putAll(bindingProperties);
    p.setProperty(HBaseClient26.TABLE, table.getNameAsString());
    p.setProperty(HBaseClient26.COLUMN_FAMILY, family);
    p.setProperty(HBaseClient26.CLIENT_BUFFERING, Boolean.toString(s.bufferBytes() > 0));
    if (s.bufferBytes() > 0) {
      p.setProperty(HBaseClient26.WRITE_BUFFER_SIZE, Long.toString(s.bufferBytes()));
    }
    HBaseClient26 db = new HBaseClient26();
    db.setProperties(p);
    db.init();
    long base = ThreadLocalRandom.current().nextLong(1L << 40);
    StringBuilder batch = new StringBuilder();
    long batchSince = 0;
    int published = 0;
    long start = System.nanoTime();
    try {
      for (int i = 0; i < s.records(); i++) {
        if (s.targetOpsPerSec() > 0) {
          long due = start + (long) (i * 1e9 / s.targetOpsPerSec());
          long wait = due - System.nanoTime();
          if (wait > 0) {
            TimeUnit.NANOSECONDS.sleep(wait);
          }
        }
        String key = "user" + Utils.fnvhash64(base + i);
        Map<String, ByteIterator> values = new HashMap<>();
        for (int f = 0; f < s.fieldCount(); f++) {
          values.put("field" + f, new RandomByteIterator(s.fieldLength()));
        }
        Status st = db.insert(table.getNameAsString(), key, values);
        long writtenUs = CoordinatedHBaseClient26.nowUs();
        if (st != Status.OK) {
          throw new IOException("Insert of " + key + " into " + table + " returned " + st);
        }
        if (i % s.sampleEvery() == 0) {
          if (batch.length() == 0) {
            batchSince = System.nanoTime();
          }
          batch.append(key).append(' ').append(writtenUs).append('\n');
          published++;
        }
        if (batch.length() > 0
          && System.nanoTime() - batchSince >= s.publishEvery().toNanos()) {
          publish(zk, run, batch);
        }
      }
    } finally {
      db.cleanup();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    if (batch.length() > 0) {
      publish(zk, run, batch);
    }
    zk.create().forPath(run + "/" + DONE, Bytes.toBytes(Integer.toString(published)));
    return seconds;
  }

  private static void publish(CuratorFramework zk, String run, StringBuilder batch)
    throws Exception {
    zk.create().withMode(CreateMode.PERSISTENT_SEQUENTIAL)
      .forPath(run + "/" + BATCH, batch.toString().getBytes(StandardCharsets.UTF_8));
    batch.setLength(0);
  }

  private Result read(CuratorFramework zk, String run, TableName table, Settings s,
    Future<Double> writer) throws Exception {
    Histogram lag = new Histogram(3);
    Histogram retriedLag = new Histogram(3);
    Map<String, Long> pending = new LinkedHashMap<>();
    // Keys read once and not there: each one found later needed a retry.
    Set<String> missedOnce = new HashSet<>();
    TreeSet<String> taken = new TreeSet<>();
    int expected = -1;
    int sampled = 0;
    long rounds = 0;
    long pollNanos = 0;
    long deadline = Long.MAX_VALUE;
    try (Connection conn = ConnectionFactory.createConnection(clientConf);
      Table t = conn.getTable(table)) {
      while (true) {
        List<String> children = zk.getChildren().forPath(run);
        for (String child : new TreeSet<>(children)) {
          if (child.startsWith(BATCH) && taken.add(child)) {
            String data = new String(zk.getData().forPath(run + "/" + child),
              StandardCharsets.UTF_8);
            for (String line : data.split("\n")) {
              int sp = line.indexOf(' ');
              pending.put(line.substring(0, sp), Long.parseLong(line.substring(sp + 1)));
              sampled++;
            }
          } else if (child.equals(DONE) && expected < 0) {
            expected = Integer.parseInt(
              Bytes.toString(zk.getData().forPath(run + "/" + DONE)));
            deadline = System.nanoTime() + s.timeout().toNanos();
          }
        }
        if (expected >= 0 && sampled >= expected && pending.isEmpty()) {
          break;
        }
        if (System.nanoTime() > deadline) {
          throw new IOException(pending.size() + " of " + expected + " keys written to " + table
            + " still not readable " + s.timeout().toSeconds() + " s after the writer finished, "
            + "e.g. " + pending.keySet().iterator().next());
        }
        if (writer.isDone() && expected < 0) {
          writer.get(); // the writer failed: its exception ends the measurement
        }
        if (pending.isEmpty()) {
          Thread.sleep(1);
          continue;
        }
        List<String> keys = new ArrayList<>(pending.keySet());
        List<Get> gets = new ArrayList<>(keys.size());
        for (String k : keys) {
          gets.add(new Get(Bytes.toBytes(k)));
        }
        long t0 = System.nanoTime();
        boolean[] there = t.exists(gets);
        long seenUs = CoordinatedHBaseClient26.nowUs();
        pollNanos += System.nanoTime() - t0;
        rounds++;
        for (int i = 0; i < there.length; i++) {
          String key = keys.get(i);
          if (there[i]) {
            long us = Math.max(0, seenUs - pending.remove(key));
            lag.recordValue(us);
            if (missedOnce.remove(key)) {
              retriedLag.recordValue(us);
            }
          } else {
            missedOnce.add(key);
          }
        }
      }
    }
    LOG.info("Read-after-write on {}: {} keys sampled, {} poll rounds", table, sampled, rounds);
    return new Result(s, sampled, 0, LatencySummary.of(lag), rounds,
      rounds == 0 ? 0 : pollNanos / 1e6 / rounds, (int) retriedLag.getTotalCount(),
      LatencySummary.of(retriedLag), cdf(retriedLag));
  }

  static final int CDF_POINTS = 50;

  /** The histogram's cumulative distribution in ms, thinned to at most CDF_POINTS points. */
  static List<double[]> cdf(Histogram us) {
    List<double[]> all = new ArrayList<>();
    long total = us.getTotalCount();
    if (total == 0) {
      return all;
    }
    long seen = 0;
    for (org.HdrHistogram.HistogramIterationValue v : us.recordedValues()) {
      seen += v.getCountAtValueIteratedTo();
      all.add(new double[] { us.highestEquivalentValue(v.getValueIteratedTo()) / 1000.0,
        (double) seen / total });
    }
    if (all.size() <= CDF_POINTS) {
      return all;
    }
    List<double[]> thin = new ArrayList<>();
    for (int i = 1; i <= CDF_POINTS; i++) {
      thin.add(all.get((int) ((long) i * all.size() / CDF_POINTS) - 1));
    }
    return thin;
  }
}
