package io.strata.bench.faults;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A load that cannot be fooled about what it wrote: writer threads issue single Puts, batched
 * Puts, Increments and checkAndMutates, and record each write only after HBase acknowledged it
 * (a call that failed or timed out is counted as attempted, not acknowledged). {@link #verify}
 * reads every acknowledged write back: a Put whose value is not there is lost; a counter below
 * its acknowledged Increments lost one, above its attempted Increments applied one twice.
 * Thread-safe: writers run on their own threads, {@link #verify} and {@link #ackedPerSecond}
 * from any.
 */
final class VerifyingLoad implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(VerifyingLoad.class);
  static final byte[] FAMILY = Bytes.toBytes("d");
  private static final byte[] QUALIFIER = Bytes.toBytes("v");
  private static final byte[] COUNT = Bytes.toBytes("n");
  private static final int COUNTERS = 16;
  private static final int BATCH = 10;

  private final Connection connection;
  private final TableName table;
  private final int valueBytes;
  /** Acknowledged Puts (single, batched, checkAndMutate): row to the value's first 8 bytes. */
  private final Map<String, Long> acked = new ConcurrentHashMap<>();
  private final AtomicLongArray incrementsAcked = new AtomicLongArray(COUNTERS);
  private final AtomicLongArray incrementsAttempted = new AtomicLongArray(COUNTERS);
  private final AtomicLong failedCalls = new AtomicLong();
  /** Acknowledged operations per second since start, by second. */
  private final AtomicLongArray perSecond = new AtomicLongArray(24 * 3600);
  private final long startNanos = System.nanoTime();
  private final AtomicBoolean stop = new AtomicBoolean();
  private final List<Thread> writers = new ArrayList<>();
  /**
   * In every row key: this load's rows are its own, so what an earlier load left in the table
   * (counters above all, whose value would count as Increments applied twice) is not counted.
   */
  private final String run = Long.toString(System.currentTimeMillis(), 36);

  VerifyingLoad(Connection connection, TableName table, int threads, int valueBytes) {
    this.connection = connection;
    this.table = table;
    this.valueBytes = valueBytes;
    for (int t = 0; t < threads; t++) {
      int id = t;
      Thread w = new Thread(() -> write(id), "verifying-writer-" + t);
      w.setDaemon(true);
      writers.add(w);
    }
  }

  void start() {
    writers.forEach(Thread::start);
  }

  /** Seconds since the load started. */
  double elapsedS() {
    return (System.nanoTime() - startNanos) / 1e9;
  }

  /** Acknowledged operations in each whole second from {@code fromS} (inclusive) to {@code toS}. */
  long[] ackedPerSecond(int fromS, int toS) {
    long[] out = new long[Math.max(0, toS - fromS)];
    for (int i = 0; i < out.length; i++) {
      out[i] = perSecond.get(fromS + i);
    }
    return out;
  }

  long ackedWrites() {
    long n = acked.size();
    for (int i = 0; i < COUNTERS; i++) {
      n += incrementsAcked.get(i);
    }
    return n;
  }

  long failedCalls() {
    return failedCalls.get();
  }

  private void ack() {
    int s = (int) Math.min(perSecond.length() - 1, elapsedS());
    perSecond.incrementAndGet(s);
  }

  private void write(int id) {
    long seq = 0;
    try (Table t = connection.getTable(table)) {
      while (!stop.get()) {
        int op = ThreadLocalRandom.current().nextInt(10);
        seq++;
        try {
          if (op < 4) {
            String row = String.format("p-%s-%02d-%010d", run, id, seq);
            long v = ThreadLocalRandom.current().nextLong();
            t.put(new Put(Bytes.toBytes(row)).addColumn(FAMILY, QUALIFIER, value(v)));
            acked.put(row, v);
          } else if (op < 6) {
            List<Put> batch = new ArrayList<>(BATCH);
            long[] vs = new long[BATCH];
            for (int b = 0; b < BATCH; b++) {
              vs[b] = ThreadLocalRandom.current().nextLong();
              batch.add(new Put(Bytes.toBytes(
                String.format("b-%s-%02d-%010d-%02d", run, id, seq, b)))
                .addColumn(FAMILY, QUALIFIER, value(vs[b])));
            }
            t.put(batch);
            for (int b = 0; b < BATCH; b++) {
              acked.put(String.format("b-%s-%02d-%010d-%02d", run, id, seq, b), vs[b]);
            }
          } else if (op < 8) {
            int c = ThreadLocalRandom.current().nextInt(COUNTERS);
            incrementsAttempted.incrementAndGet(c);
            t.increment(new Increment(counterRow(c)).addColumn(FAMILY, COUNT, 1));
            incrementsAcked.incrementAndGet(c);
          } else {
            String row = String.format("c-%s-%02d-%010d", run, id, seq);
            long v = ThreadLocalRandom.current().nextLong();
            boolean done = t.checkAndMutate(CheckAndMutate.newBuilder(Bytes.toBytes(row))
              .ifNotExists(FAMILY, QUALIFIER)
              .build(new Put(Bytes.toBytes(row)).addColumn(FAMILY, QUALIFIER, value(v))))
              .isSuccess();
            if (done) {
              acked.put(row, v);
            }
          }
          ack();
        } catch (IOException | RuntimeException e) {
          // Not acknowledged: nothing is recorded (an Increment stays attempted).
          failedCalls.incrementAndGet();
          if (failedCalls.get() % 100 == 1) {
            LOG.info("Writer {}: call failed ({} so far): {}", id, failedCalls.get(), e.toString());
          }
        }
      }
    } catch (IOException e) {
      LOG.error("Writer {} could not open table {}", id, table, e);
    }
  }

  private byte[] value(long v) {
    byte[] b = new byte[valueBytes];
    System.arraycopy(Bytes.toBytes(v), 0, b, 0, 8);
    return b;
  }

  private byte[] counterRow(int c) {
    return Bytes.toBytes(String.format("i-%s-%02d", run, c));
  }

  /**
   * What {@link #verify} found, an exact ledger: {@code acked} writes acknowledged when it began
   * (each Put, each Increment), {@code checked} of them read back, {@code unreadable} of them in
   * rows that could not be read before its deadline (a region that did not open), so that
   * {@code acked == checked + unreadable}; of those checked, {@code lost} not there and
   * {@code duplicated} Increments applied twice.
   */
  record Verdict(long acked, long checked, long lost, long duplicated, long unreadable,
    List<String> examples) {
  }

  /** How long {@link #verify()} retries rows it could not read. */
  static final int VERIFY_PATIENCE_S = 300;

  Verdict verify() throws IOException {
    return verify(VERIFY_PATIENCE_S);
  }

  /**
   * Reads back every write acknowledged so far (the load may go on meanwhile: later writes are
   * not in the snapshot). Rows whose read fails (a region not open yet) are read again every
   * few seconds until {@code patienceS} has passed; those still unread are counted
   * {@code unreadable}, neither lost nor checked.
   */
  Verdict verify(int patienceS) throws IOException {
    Map<String, Long> snapshot = Map.copyOf(acked);
    long[] counterAcked = new long[COUNTERS];
    long ackedIncrements = 0;
    for (int i = 0; i < COUNTERS; i++) {
      counterAcked[i] = incrementsAcked.get(i);
      ackedIncrements += counterAcked[i];
    }
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(patienceS);
    long checked = 0;
    long lost = 0;
    long duplicated = 0;
    List<String> examples = new ArrayList<>();
    String lastFailure = null;
    try (Table t = connection.getTable(table)) {
      List<String> pending = new ArrayList<>(snapshot.keySet());
      List<Integer> countersPending = new ArrayList<>();
      for (int c = 0; c < COUNTERS; c++) {
        countersPending.add(c);
      }
      while (true) {
        List<String> failed = new ArrayList<>();
        for (int from = 0; from < pending.size(); from += 500) {
          List<String> part = pending.subList(from, Math.min(pending.size(), from + 500));
          if (System.nanoTime() > deadline) {
            // Each failing read waits out the operation timeout: past the deadline the rest
            // are not tried, and count as unreadable.
            failed.addAll(part);
            continue;
          }
          List<Get> gets = new ArrayList<>(part.size());
          for (String r : part) {
            gets.add(new Get(Bytes.toBytes(r)).addColumn(FAMILY, QUALIFIER));
          }
          Object[] answers = new Object[gets.size()];
          Object[] results = new Object[gets.size()];
          try {
            bounded(() -> {
              try {
                t.batch(gets, answers);
              } catch (IOException e) {
                // Per row below: a Result was read, anything else was not.
                return e.toString();
              }
              return null;
            }, deadline);
            System.arraycopy(answers, 0, results, 0, answers.length);
          } catch (IOException e) {
            // No answer in time (a client waiting on a region location that does not come):
            // none of this part was read; its late answers are ignored.
            lastFailure = e.getMessage();
          }
          for (int i = 0; i < results.length; i++) {
            if (!(results[i] instanceof Result)) {
              failed.add(part.get(i));
              continue;
            }
            checked++;
            byte[] v = ((Result) results[i]).getValue(FAMILY, QUALIFIER);
            if (v == null || v.length < 8
              || Bytes.toLong(Arrays.copyOf(v, 8)) != snapshot.get(part.get(i))) {
              lost++;
              if (examples.size() < 5) {
                examples.add("acknowledged Put of " + part.get(i) + " not read back");
              }
            }
          }
        }
        List<Integer> countersFailed = new ArrayList<>();
        for (int c : countersPending) {
          Result r;
          if (System.nanoTime() > deadline) {
            countersFailed.add(c);
            continue;
          }
          Result[] got = new Result[1];
          try {
            String failure = bounded(() -> {
              try {
                got[0] = t.get(new Get(counterRow(c)).addColumn(FAMILY, COUNT));
              } catch (IOException e) {
                return e.toString();
              }
              return null;
            }, deadline);
            if (failure != null) {
              throw new IOException(failure);
            }
          } catch (IOException e) {
            lastFailure = e.getMessage();
            countersFailed.add(c);
            continue;
          }
          r = got[0];
          checked += counterAcked[c];
          byte[] v = r.getValue(FAMILY, COUNT);
          long n = v == null ? 0 : Bytes.toLong(v);
          // Attempted is read after the value: an Increment applied since the read is in it too.
          long attempted = incrementsAttempted.get(c);
          if (n < counterAcked[c]) {
            lost += counterAcked[c] - n;
            examples.add("counter " + c + ": " + n + " < " + counterAcked[c] + " acknowledged");
          } else if (n > attempted) {
            duplicated += n - attempted;
            examples.add("counter " + c + ": " + n + " > " + attempted + " attempted");
          }
        }
        pending = failed;
        countersPending = countersFailed;
        if ((pending.isEmpty() && countersPending.isEmpty()) || System.nanoTime() > deadline) {
          break;
        }
        LOG.info("Verification: {} rows and {} counters not readable yet ({}); reading them "
          + "again", pending.size(), countersPending.size(), lastFailure);
        try {
          Thread.sleep(5000);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new java.io.InterruptedIOException("verification interrupted");
        }
      }
      long unreadable = pending.size();
      for (int c : countersPending) {
        unreadable += counterAcked[c];
      }
      if (unreadable > 0) {
        examples.add(unreadable + " acknowledged writes in rows not readable within "
          + patienceS + " s (" + lastFailure + ")");
      }
      return new Verdict(snapshot.size() + ackedIncrements, checked, lost, duplicated,
        unreadable, examples);
    }
  }

  /** The longest one read of the verification may take, deadline or not. */
  private static final long READ_LIMIT_S = 120;

  /**
   * Runs one read of the verification on a thread of its own and waits for it no longer than
   * {@link #READ_LIMIT_S} nor past the deadline (at least 10 s): HBase's client can wait far
   * longer than its operation timeout on region locations while meta is not served, and the
   * verification must end. The read's failure message, or null; an IOException when it did not
   * answer in time (the thread is left to finish on its own).
   */
  private static String bounded(java.util.concurrent.Callable<String> read, long deadlineNanos)
    throws IOException {
    java.util.concurrent.FutureTask<String> task = new java.util.concurrent.FutureTask<>(read);
    Thread th = new Thread(task, "verifying-read");
    th.setDaemon(true);
    th.start();
    long waitNanos = Math.max(java.util.concurrent.TimeUnit.SECONDS.toNanos(10), Math.min(
      java.util.concurrent.TimeUnit.SECONDS.toNanos(READ_LIMIT_S),
      deadlineNanos - System.nanoTime()));
    try {
      return task.get(waitNanos, java.util.concurrent.TimeUnit.NANOSECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      task.cancel(true);
      throw new IOException("no answer within " + waitNanos / 1_000_000_000L + " s");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("verification interrupted");
    } catch (java.util.concurrent.ExecutionException e) {
      return e.getCause().toString();
    }
  }

  @Override
  public void close() {
    stop.set(true);
    for (Thread w : writers) {
      try {
        w.join(120_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
