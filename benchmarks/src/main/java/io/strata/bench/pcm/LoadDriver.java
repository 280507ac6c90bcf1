package io.strata.bench.pcm;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.BufferedMutatorParams;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import site.ycsb.Utils;

/**
 * Drives a {@link Mix} against a table from client threads in this JVM, the way YCSB's
 * CoreWorkload does with its defaults: records of 10 fields of 100 bytes under keys
 * {@code user} + the FNV hash of the record number (YCSB's hashed insert order, which
 * {@code YcsbTable.splitKeys} pre-splits evenly), uniform choice of existing records (or another
 * {@link KeyDistribution}), updates of
 * one field, scans of 1 to 100 records. An insert-only mix writes through a client-side buffer
 * (YCSB's load with client buffering, as the paper loaded); the others send each request on its
 * own. Thread-safe: one driver may run once at a time per key space; the key space is shared.
 */
public final class LoadDriver {
  public static final byte[] FAMILY = Bytes.toBytes("family");
  static final int FIELDS = 10;
  static final int FIELD_BYTES = 100;
  /** YCSB's default maxscanlength. */
  static final int MAX_SCAN_LENGTH = 100;
  private static final byte[][] QUALIFIERS = new byte[FIELDS][];
  private static final long WRITE_BUFFER_BYTES = 2L << 20;

  static {
    for (int i = 0; i < FIELDS; i++) {
      QUALIFIERS[i] = Bytes.toBytes("field" + i);
    }
  }

  /** The records a table holds: 0 to {@link #inserted()} - 1. Thread-safe. */
  public static final class KeySpace {
    private final AtomicLong next = new AtomicLong();

    /** Records inserted so far (the next insert's number). */
    public long inserted() {
      return next.get();
    }

    /**
     * The next record's number; with a positive {@code limit}, never {@code limit} or more: a
     * number at the limit is returned without being taken, so that the key space never counts
     * records a bulk load did not write.
     */
    long claim(long limit) {
      return limit > 0 ? next.getAndUpdate(v -> v < limit ? v + 1 : v) : next.getAndIncrement();
    }
  }

  /** What a run did. */
  public record Outcome(long ops, double seconds) {
    public double opsPerSec() {
      return seconds <= 0 ? 0 : ops / seconds;
    }
  }

  private LoadDriver() {
  }

  /** Record {@code n}'s key. */
  public static byte[] key(long n) {
    return Bytes.toBytes("user" + Utils.fnvhash64(n));
  }

  /**
   * Runs {@code mix} on {@code threads} threads until {@code seconds} have passed, or, when
   * {@code insertLimit} is positive, until the key space holds that many records (a bulk load;
   * the time then includes the client's final flush).
   */
  public static Outcome run(Connection conn, TableName table, Mix mix, KeySpace keys, int threads,
    double seconds, long insertLimit) throws Exception {
    return run(conn, table, mix, keys, threads, seconds, insertLimit, new AtomicBoolean());
  }

  /** As {@link #run(Connection, TableName, Mix, KeySpace, int, double, long)}, also ending when
   * {@code stop} is set (by another thread). */
  public static Outcome run(Connection conn, TableName table, Mix mix, KeySpace keys, int threads,
    double seconds, long insertLimit, AtomicBoolean stop) throws Exception {
    return run(conn, table, mix, keys, threads, seconds, insertLimit, stop,
      KeyDistribution.UNIFORM);
  }

  /**
   * As {@link #run(Connection, TableName, Mix, KeySpace, int, double, long)}, with the existing
   * records picked by {@code distribution}.
   */
  public static Outcome run(Connection conn, TableName table, Mix mix, KeySpace keys, int threads,
    double seconds, long insertLimit, KeyDistribution distribution) throws Exception {
    return run(conn, table, mix, keys, threads, seconds, insertLimit, new AtomicBoolean(),
      distribution);
  }

  private static Outcome run(Connection conn, TableName table, Mix mix, KeySpace keys,
    int threads, double seconds, long insertLimit, AtomicBoolean stop,
    KeyDistribution distribution) throws Exception {
    AtomicLong ops = new AtomicLong();
    KeyDistribution.Chooser chooser = distribution.over(keys);
    ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
      Thread t = new Thread(r, "pcm-load-" + mix.name());
      t.setDaemon(true);
      return t;
    });
    // Saturated: "no time limit" must not overflow into a deadline in the past.
    long deadline = seconds >= 1e9 ? Long.MAX_VALUE : System.nanoTime() + (long) (seconds * 1e9);
    long t0 = System.nanoTime();
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        futures.add(pool.submit(() -> {
          worker(conn, table, mix, keys, chooser, insertLimit, deadline, stop, ops);
          return null;
        }));
      }
      for (Future<?> f : futures) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    return new Outcome(ops.get(), (System.nanoTime() - t0) / 1e9);
  }

  private static void worker(Connection conn, TableName table, Mix mix, KeySpace keys,
    KeyDistribution.Chooser chooser, long insertLimit, long deadline, AtomicBoolean stop,
    AtomicLong ops) throws IOException {
    ThreadLocalRandom rnd = ThreadLocalRandom.current();
    byte[] value = new byte[FIELD_BYTES];
    boolean buffered = mix.insert() == 1;
    try (Table t = conn.getTable(table);
      BufferedMutator m = buffered ? conn.getBufferedMutator(new BufferedMutatorParams(table)
        .writeBufferSize(WRITE_BUFFER_BYTES)) : null) {
      while (!stop.get()) {
        if (insertLimit > 0 ? keys.inserted() >= insertLimit : System.nanoTime() >= deadline) {
          break;
        }
        double p = rnd.nextDouble();
        if ((p -= mix.insert()) < 0) {
          long n = keys.claim(insertLimit);
          if (insertLimit > 0 && n >= insertLimit) {
            break;
          }
          Put put = new Put(key(n));
          for (byte[] q : QUALIFIERS) {
            rnd.nextBytes(value);
            put.addColumn(FAMILY, q, value.clone());
          }
          if (m != null) {
            m.mutate(put);
          } else {
            t.put(put);
          }
        } else if ((p -= mix.update()) < 0) {
          update(t, key(chooser.next(rnd)), rnd, value);
        } else if ((p -= mix.read()) < 0) {
          t.get(new Get(key(chooser.next(rnd))).addFamily(FAMILY));
        } else if ((p -= mix.scan()) < 0) {
          int length = 1 + rnd.nextInt(MAX_SCAN_LENGTH);
          try (ResultScanner s = t.getScanner(new Scan().withStartRow(key(chooser.next(rnd)))
            .addFamily(FAMILY).setLimit(length).setCaching(length))) {
            while (s.next() != null) {
              // consume the range
            }
          }
        } else {
          byte[] k = key(chooser.next(rnd));
          t.get(new Get(k).addFamily(FAMILY));
          update(t, k, rnd, value);
        }
        ops.incrementAndGet();
      }
      if (m != null) {
        m.flush();
      }
    }
  }

  private static void update(Table t, byte[] key, ThreadLocalRandom rnd, byte[] value)
    throws IOException {
    rnd.nextBytes(value);
    t.put(new Put(key).addColumn(FAMILY, QUALIFIERS[rnd.nextInt(FIELDS)], value.clone()));
  }

}
