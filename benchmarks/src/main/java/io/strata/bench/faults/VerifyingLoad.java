package io.strata.bench.faults;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
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
 * Puts, Increments and checkAndMutates, each to a row of its own, and record each write as
 * acknowledged once HBase answered it, or as ambiguous when the call failed or timed out (it may
 * have landed). Some writers use a second, impatient connection, whose operation timeout is
 * shorter than a fault's outage, so that calls time out while the write may still land.
 * {@link #verify} reads every recorded write back and judges it ({@link Ledger}): an acknowledged
 * Put must hold its value, an Increment (each one adds 1 to a row of its own) exactly 1; an
 * ambiguous write landed or did not, nothing else. Reader threads read while the writers write:
 * acknowledged Puts, and per writer a few rows it overwrites with an increasing sequence number,
 * which a read on the same connection must never see go back before a sequence acknowledged
 * before the read, nor hold a sequence never written. Thread-safe: writers and readers run on
 * their own threads, the rest is called from any.
 */
final class VerifyingLoad implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(VerifyingLoad.class);
  static final byte[] FAMILY = Bytes.toBytes("d");
  private static final byte[] QUALIFIER = Bytes.toBytes("v");
  private static final byte[] COUNT = Bytes.toBytes("n");
  private static final int BATCH = 10;
  /** Rows per writer overwritten with its sequence numbers, for the readers' checks. */
  static final int SEQ_ROWS = 4;
  /** Recently acknowledged Puts the readers pick from. */
  private static final int RECENT = 1024;
  /** Pause between two reads of a reader: reads check, they are not the load. */
  private static final long READ_PAUSE_MS = 5;

  private final Connection connection;
  private final WriteRate rate;
  private final Connection impatient;
  private final TableName table;
  private final int valueBytes;
  /** Every write recorded, acknowledged or ambiguous: its row to what it should have left. */
  private final Map<String, Ledger.Expected> writes = new ConcurrentHashMap<>();
  private final AtomicLong ackedCount = new AtomicLong();
  private final AtomicLong ambiguousCount = new AtomicLong();
  private final AtomicLong failedCalls = new AtomicLong();
  /** Per writer and sequence row: the highest sequence acknowledged. */
  private final AtomicLongArray seqAcked;
  /** Per writer and sequence row: every sequence attempted (acknowledged or not). */
  private final List<Set<Long>> seqWritten = new ArrayList<>();
  private final AtomicReferenceArray<Object[]> recent = new AtomicReferenceArray<>(RECENT);
  private final AtomicLong recentNext = new AtomicLong();
  private final AtomicLong readsChecked = new AtomicLong();
  private final AtomicLong readProblems = new AtomicLong();
  private final Queue<String> readExamples = new ConcurrentLinkedQueue<>();
  /** Acknowledged operations per second since start, by second. */
  private final AtomicLongArray perSecond = new AtomicLongArray(24 * 3600);
  private final long startNanos = System.nanoTime();
  private final long startMillis = System.currentTimeMillis();
  private final AtomicBoolean stop = new AtomicBoolean();
  private final List<Thread> writers = new ArrayList<>();
  private final List<Thread> readers = new ArrayList<>();
  /**
   * In every row key: this load's rows are its own, so what an earlier load left in the table
   * is not counted.
   */
  private final String run = Long.toString(System.currentTimeMillis(), 36);

  VerifyingLoad(Connection connection, TableName table, int threads, int valueBytes) {
    this(connection, null, table, threads, valueBytes);
  }

  VerifyingLoad(Connection connection, Connection impatient, TableName table, int threads,
    int valueBytes) {
    this(connection, impatient, table, threads, valueBytes, new WriteRate(0));
  }

  /**
   * With {@code impatient} (may be null: none) a connection with a short operation timeout,
   * used by every second writer and by a reader of its own; {@code rate} bounds the writes
   * of all writers together.
   */
  VerifyingLoad(Connection connection, Connection impatient, TableName table, int threads,
    int valueBytes, WriteRate rate) {
    this.rate = rate;
    this.connection = connection;
    this.impatient = impatient;
    this.table = table;
    this.valueBytes = valueBytes;
    this.seqAcked = new AtomicLongArray(threads * SEQ_ROWS);
    for (int i = 0; i < threads * SEQ_ROWS; i++) {
      seqWritten.add(ConcurrentHashMap.newKeySet());
    }
    for (int t = 0; t < threads; t++) {
      int id = t;
      Thread w = new Thread(() -> write(id), "verifying-writer-" + t);
      w.setDaemon(true);
      writers.add(w);
    }
    for (Connection c : impatient == null ? List.of(connection)
      : List.of(connection, impatient)) {
      Thread r = new Thread(() -> read(c), "verifying-reader-" + readers.size());
      r.setDaemon(true);
      readers.add(r);
    }
  }

  void start() {
    writers.forEach(Thread::start);
    readers.forEach(Thread::start);
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
    return ackedCount.get();
  }

  long ambiguousWrites() {
    return ambiguousCount.get();
  }

  long failedCalls() {
    return failedCalls.get();
  }

  /** Reads the readers checked since the start. */
  long readsChecked() {
    return readsChecked.get();
  }

  /** Reads that returned what they may not, since the start. */
  long readProblems() {
    return readProblems.get();
  }

  /** Examples of read problems not taken yet. */
  List<String> takeReadExamples() {
    List<String> out = new ArrayList<>();
    for (String s; (s = readExamples.poll()) != null;) {
      out.add(s);
    }
    return out;
  }

  private void ack() {
    int s = (int) Math.min(perSecond.length() - 1, elapsedS());
    perSecond.incrementAndGet(s);
  }

  private void record(String row, Ledger.Kind kind, long value, boolean ambiguous) {
    writes.put(row, new Ledger.Expected(kind, value, ambiguous));
    (ambiguous ? ambiguousCount : ackedCount).incrementAndGet();
    if (!ambiguous && kind == Ledger.Kind.PUT) {
      recent.set((int) (recentNext.getAndIncrement() % RECENT), new Object[] { row, value });
    }
  }

  private String seqRow(int writer, int k) {
    return String.format("s-%s-%02d-%d", run, writer, k);
  }

  private void write(int id) {
    long seq = 0;
    Connection c = impatient != null && id % 2 == 1 ? impatient : connection;
    try (Table t = c.getTable(table)) {
      while (!stop.get()) {
        int op = ThreadLocalRandom.current().nextInt(10);
        try {
          rate.acquire(op >= 4 && op < 6 ? BATCH : 1);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
        seq++;
        // What the call writes, recorded as ambiguous should it fail.
        List<String> rows = new ArrayList<>(BATCH);
        List<Long> values = new ArrayList<>(BATCH);
        Ledger.Kind kind = Ledger.Kind.PUT;
        try {
          if (op < 4) {
            String row = String.format("p-%s-%02d-%010d", run, id, seq);
            long v = ThreadLocalRandom.current().nextLong();
            rows.add(row);
            values.add(v);
            t.put(new Put(Bytes.toBytes(row)).addColumn(FAMILY, QUALIFIER, value(v)));
            record(row, kind, v, false);
          } else if (op < 6) {
            List<Put> batch = new ArrayList<>(BATCH);
            for (int b = 0; b < BATCH; b++) {
              String row = String.format("b-%s-%02d-%010d-%02d", run, id, seq, b);
              long v = ThreadLocalRandom.current().nextLong();
              rows.add(row);
              values.add(v);
              batch.add(new Put(Bytes.toBytes(row)).addColumn(FAMILY, QUALIFIER, value(v)));
            }
            t.put(batch);
            for (int b = 0; b < BATCH; b++) {
              record(rows.get(b), kind, values.get(b), false);
            }
          } else if (op < 8) {
            // An Increment of a row of its own: exactly 1 once acknowledged.
            kind = Ledger.Kind.INCREMENT;
            String row = String.format("i-%s-%02d-%010d", run, id, seq);
            rows.add(row);
            values.add(1L);
            t.increment(new Increment(Bytes.toBytes(row)).addColumn(FAMILY, COUNT, 1));
            record(row, kind, 1, false);
          } else if (op < 9) {
            String row = String.format("c-%s-%02d-%010d", run, id, seq);
            long v = ThreadLocalRandom.current().nextLong();
            rows.add(row);
            values.add(v);
            boolean done = t.checkAndMutate(CheckAndMutate.newBuilder(Bytes.toBytes(row))
              .ifNotExists(FAMILY, QUALIFIER)
              .build(new Put(Bytes.toBytes(row)).addColumn(FAMILY, QUALIFIER, value(v))))
              .isSuccess();
            // Nobody else writes the row: "not applied" means an earlier attempt of this call
            // (a retry) applied it, or something wrote what it should not: ambiguous either way.
            record(row, kind, v, !done);
          } else {
            int k = ThreadLocalRandom.current().nextInt(SEQ_ROWS);
            int slot = id * SEQ_ROWS + k;
            seqWritten.get(slot).add(seq);
            // The sequence as the cell's timestamp (from the load's start): a call that timed
            // out and lands after a later one was acknowledged does not hide the later one, as
            // it would with the server's clock; a read that still goes back saw an
            // acknowledged write undone.
            t.put(new Put(Bytes.toBytes(seqRow(id, k))).addColumn(FAMILY, QUALIFIER,
              startMillis + seq, value(seq)));
            long s = seq;
            seqAcked.accumulateAndGet(slot, s, Math::max);
          }
          ack();
        } catch (IOException | RuntimeException e) {
          // Not acknowledged, and perhaps landed: ambiguous until read back.
          for (int i = 0; i < rows.size(); i++) {
            record(rows.get(i), kind, values.get(i), true);
          }
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

  /**
   * A reader on connection {@code c}: in turn a sequence row of a writer on the same connection
   * and a recently acknowledged Put; a read that fails (a fault) is not checked.
   */
  private void read(Connection c) {
    List<Integer> own = new ArrayList<>();
    for (int w = 0; w < writers.size(); w++) {
      if ((impatient != null && w % 2 == 1 ? impatient : connection) == c) {
        own.add(w);
      }
    }
    try (Table t = c.getTable(table)) {
      boolean seqTurn = true;
      while (!stop.get()) {
        seqTurn = !seqTurn;
        try {
          Thread.sleep(READ_PAUSE_MS);
        } catch (InterruptedException e) {
          return;
        }
        String problem;
        try {
          if (seqTurn && !own.isEmpty()) {
            int w = own.get(ThreadLocalRandom.current().nextInt(own.size()));
            int k = ThreadLocalRandom.current().nextInt(SEQ_ROWS);
            int slot = w * SEQ_ROWS + k;
            long before = seqAcked.get(slot);
            String row = seqRow(w, k);
            Long seq = first8(t.get(new Get(Bytes.toBytes(row)).addColumn(FAMILY, QUALIFIER)));
            problem = Ledger.readProblem(row, seq, before,
              seq != null && seqWritten.get(slot).contains(seq));
          } else {
            long n = recentNext.get();
            if (n == 0) {
              continue;
            }
            Object[] e = recent.get((int) (ThreadLocalRandom.current().nextLong(
              Math.min(n, RECENT))));
            if (e == null) {
              continue;
            }
            Long v = first8(t.get(new Get(Bytes.toBytes((String) e[0]))
              .addColumn(FAMILY, QUALIFIER)));
            problem = Ledger.ackedReadProblem((String) e[0], (Long) e[1], v);
          }
        } catch (IOException | RuntimeException e) {
          continue;
        }
        readsChecked.incrementAndGet();
        if (problem != null) {
          readProblems.incrementAndGet();
          if (readExamples.size() < Ledger.EXAMPLES) {
            readExamples.add(problem);
          }
          LOG.warn("Read problem: {}", problem);
        }
      }
    } catch (IOException e) {
      LOG.error("Reader could not open table {}", table, e);
    }
  }

  /** The first 8 bytes of the result's value as a long, or null when it has none. */
  private static Long first8(Result r) {
    byte[] v = r.getValue(FAMILY, QUALIFIER);
    if (v == null) {
      v = r.getValue(FAMILY, COUNT);
    }
    return v == null || v.length < 8 ? null : Bytes.toLong(Arrays.copyOf(v, 8));
  }

  private byte[] value(long v) {
    byte[] b = new byte[valueBytes];
    System.arraycopy(Bytes.toBytes(v), 0, b, 0, 8);
    return b;
  }

  /** How long {@link #verify()} retries rows it could not read. */
  static final int VERIFY_PATIENCE_S = 300;

  Ledger.Verdict verify() throws IOException {
    return verify(VERIFY_PATIENCE_S);
  }

  /**
   * Stops the writers and readers (each finishes its call), then reads back every write they
   * recorded: the final pass, which sees the writes acknowledged after any earlier verification
   * and, no call being in flight any more, resolves each ambiguous one.
   */
  Ledger.Verdict stopAndVerify() throws IOException {
    stopThreads();
    return verify(VERIFY_PATIENCE_S);
  }

  /**
   * Reads back every write recorded so far (the load may go on meanwhile: later writes are not
   * in the snapshot), acknowledged or ambiguous. Rows whose read fails (a region not open yet)
   * are read again every few seconds until {@code patienceS} has passed; those still unread are
   * counted {@code unreadable} (acknowledged) or unresolved (ambiguous), neither lost nor
   * checked.
   */
  Ledger.Verdict verify(int patienceS) throws IOException {
    return verify(table, new java.util.HashMap<>(writes), patienceS);
  }

  /**
   * The writes acknowledged so far (not the ambiguous ones): each must be in a snapshot of the
   * table taken from now on, with its value.
   */
  Map<String, Ledger.Expected> acknowledgedNow() {
    Map<String, Ledger.Expected> acked = new java.util.HashMap<>();
    writes.forEach((row, e) -> {
      if (!e.ambiguous()) {
        acked.put(row, e);
      }
    });
    return acked;
  }

  /**
   * Reads {@code snapshot}'s rows back from {@code source} (this load's table, or a clone of it)
   * into one ledger.
   */
  Ledger.Verdict verify(TableName source, Map<String, Ledger.Expected> snapshot,
    int patienceS) throws IOException {
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(patienceS);
    Ledger.Tally tally = new Ledger.Tally();
    String lastFailure = null;
    try (Table t = connection.getTable(source)) {
      List<String> pending = new ArrayList<>(snapshot.keySet());
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
            gets.add(new Get(Bytes.toBytes(r)).addColumn(FAMILY,
              snapshot.get(r).kind() == Ledger.Kind.INCREMENT ? COUNT : QUALIFIER));
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
            tally.add(part.get(i), snapshot.get(part.get(i)), first8((Result) results[i]));
          }
        }
        pending = failed;
        if (pending.isEmpty() || System.nanoTime() > deadline) {
          break;
        }
        LOG.info("Verification: {} rows not readable yet ({}); reading them again",
          pending.size(), lastFailure);
        try {
          Thread.sleep(5000);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new java.io.InterruptedIOException("verification interrupted");
        }
      }
      for (String r : pending) {
        tally.unreadable(snapshot.get(r));
      }
      if (!pending.isEmpty()) {
        tally.example(pending.size() + " recorded writes in rows not readable within "
          + patienceS + " s (" + lastFailure + ")");
      }
      return tally.verdict();
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

  private void stopThreads() {
    stop.set(true);
    List<Thread> all = new ArrayList<>(writers);
    all.addAll(readers);
    for (Thread w : all) {
      try {
        w.join(120_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  @Override
  public void close() {
    stopThreads();
  }
}
