package io.strata.bench.dnlocks;

import io.strata.bench.common.BenchCommand;
import io.strata.bench.common.BenchJson;
import io.strata.metrics.Latencies;
import io.strata.cli.CommandLines;
import io.strata.hdfs.ramdisk.RamDiskDirectory;
import io.strata.hdfs.testing.OneDataNodeCluster;
import io.strata.hdfs.testing.SlowVolumes;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.Block;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.datanode.ReplicaHandler;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.FsDatasetSpi;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.FsVolumeSpi;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.RoundRobinVolumeChoosingPolicy;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * One variant's side of {@code strata bench dn-locks}, in a JVM of its own whose class path
 * decides the variant: a DataNode (MiniDFSCluster) with a DISK volume, slowed by a delay per
 * I/O operation, and a RAM tier volume (NVDIMM on tmpfs), and threads calling its dataset the
 * way DataXceivers do — writers creating, writing and finalizing blocks on each volume,
 * transfers into the RAM volume (createTemporary, as for re-replication, the balancer and the
 * Storage Policy Satisfier), and deletions of what was written — under a light and a heavy
 * load. It records
 * the wait and exec time of each operation ({@link OpTimer}) and writes them as JSON.
 *
 * <p>It refuses to run when {@code FsDatasetImpl} does not come from where the variant says:
 * the overlay jar for {@code strata}, hadoop-hdfs for {@code upstream}.
 */
public final class DnLocksWorkload {
  static final String COMMAND = "dn-locks workload";
  static final String UPSTREAM = "upstream";
  static final String STRATA = "strata";
  static final String FAST = "fast";
  static final String SLOW = "slow";
  static final String CREATE_RBW = "createRbw";
  static final String FINALIZE = "finalizeBlock";
  static final String CREATE_TEMPORARY = "createTemporary";
  private static final long GENERATION_STAMP = 1001;
  private static final int BLOCK_BYTES = 64 << 10;
  private static final long FAST_PERIOD_MS = 250;
  private static final long RAM_BYTES = 256L << 20;
  private static final long TRANSFER_PERIOD_MS = 250;
  private static final long DELETE_PERIOD_MS = 100;
  private static final long WARMUP_MS = 3000;

  /** Threads of one load level. */
  record Load(String name, int slowWriters, int fastWriters, int transfers) {
  }

  static final List<Load> LOADS = List.of(new Load("light", 1, 2, 1), new Load("heavy", 4, 16,
    4));

  /** What one run does. */
  record Settings(String variant, long secondsPerLoad, long delayMs, File workDir, File ramDir,
    File out) {
  }

  private final FsDatasetSpi<?> dataset;
  private final String bpid;
  private final String fastId;
  private final String slowId;
  private final SlowVolumes slow;
  private final OpTimer timer = new OpTimer();
  /** Block ids far above the NameNode's, so they never collide with a real block. */
  private final AtomicLong nextBlockId = new AtomicLong(1L << 40);
  private final byte[] payload = new byte[BLOCK_BYTES];

  private DnLocksWorkload(DataNode dn, String bpid, String fastId, String slowId,
    SlowVolumes slow) {
    this.dataset = dn.getFSDataset();
    this.bpid = bpid;
    this.fastId = fastId;
    this.slowId = slowId;
    this.slow = slow;
    ThreadLocalRandom.current().nextBytes(payload);
  }

  /** The command line of a variant's JVM (its parent, VariantJvm, gives every option). */
  @Command(name = COMMAND, sortOptions = false, description = "One variant of strata bench "
    + "dn-locks.")
  static final class Cli extends BenchCommand<Settings> {
    @Option(names = "--variant", required = true, paramLabel = "V",
      description = UPSTREAM + " or " + STRATA)
    String variant;
    @Option(names = "--out", required = true, paramLabel = "FILE",
      description = "write the results as JSON to this file")
    File out;
    @Option(names = "--seconds", paramLabel = "N", defaultValue = "20",
      description = "seconds per load level (default ${DEFAULT-VALUE})")
    long seconds;
    @Option(names = "--delay-ms", paramLabel = "MS", defaultValue = "4000",
      description = "delay per I/O operation on the DISK volume (default ${DEFAULT-VALUE})")
    long delayMs;
    @Option(names = "--work-dir", required = true, paramLabel = "DIR",
      description = "directory for the cluster's data, wiped")
    File workDir;
    @Option(names = "--ram-dir", required = true, paramLabel = "DIR",
      description = "directory of the RAM volume, on tmpfs, wiped")
    File ramDir;

    @Override
    protected Settings settings() {
      if (!UPSTREAM.equals(variant) && !STRATA.equals(variant)) {
        throw new IllegalArgumentException("--variant must be " + UPSTREAM + " or " + STRATA
          + ", not " + variant);
      }
      return new Settings(variant, atLeast("--seconds", seconds, 1),
        atLeast("--delay-ms", delayMs, 0), workDir, ramDir, out);
    }
  }

  public static void main(String[] args) {
    CommandLines.runAndHalt(COMMAND, () -> run(args, System.out));
  }

  static int run(String[] args, PrintStream out) throws Exception {
    return BenchCommand.run(new Cli(), args, out, s -> run(s, out));
  }

  static int run(Settings s, PrintStream out) throws Exception {
    String from = datasetSource().getPath();
    boolean patched = isPatched(from);
    if (patched != STRATA.equals(s.variant())) {
      System.err.printf(Locale.ROOT, "%s: variant %s, but FsDatasetImpl came from %s (%s); the "
        + "class path does not match the variant%n", COMMAND, s.variant(), from,
        patched ? "the overlay" : "upstream hadoop-hdfs");
      return 1;
    }
    out.printf(Locale.ROOT, "%s: FsDatasetImpl from %s%n", s.variant(), from);
    BenchJson.write(s.out(), measure(s, from, patched, out));
    return 0;
  }

  /** The DataNode's dataset implementation, whose locks the overlay's patch changes. */
  static final String DATASET_CLASS =
    "org.apache.hadoop.hdfs.server.datanode.fsdataset.impl.FsDatasetImpl";

  /** Where this JVM's FsDatasetImpl comes from (a jar or a classes directory). */
  static File datasetSource() {
    try {
      return new File(Class.forName(DATASET_CLASS, false, DnLocksWorkload.class.getClassLoader())
        .getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (ReflectiveOperationException | java.net.URISyntaxException e) {
      throw new IllegalStateException("Cannot locate " + DATASET_CLASS, e);
    }
  }

  /** Whether {@code source} (of FsDatasetImpl) is the overlay rather than hadoop-hdfs itself. */
  static boolean isPatched(String source) {
    return !new File(source).getName().startsWith("hadoop-hdfs-");
  }

  static DnLocksResult.Variant measure(Settings s, String from, boolean patched, PrintStream out)
    throws Exception {
    FileUtil.fullyDelete(s.workDir());
    Configuration conf = OneDataNodeCluster.conf(s.workDir(),
      RoundRobinVolumeChoosingPolicy.class, 128L << 20);
    // Nothing but the workload touches the dataset: no block or directory scans.
    conf.setInt(DFSConfigKeys.DFS_DATANODE_DIRECTORYSCAN_INTERVAL_KEY, -1);
    conf.setLong(DFSConfigKeys.DFS_BLOCK_SCANNER_VOLUME_BYTES_PER_SECOND, 0);
    FileUtil.fullyDelete(s.ramDir());
    RamDiskDirectory ram = RamDiskDirectory.prepare(s.ramDir(), RAM_BYTES);
    out.printf(Locale.ROOT, "%s: RAM volume in %s (%s)%n", s.variant(), s.ramDir(),
      ram.fileSystemType());
    MiniDFSCluster cluster = OneDataNodeCluster.start(conf, s.workDir(), List.of(
      "[DISK]" + new File(s.workDir(), "disk").getAbsolutePath(),
      RamDiskDirectory.dataDirEntry(s.ramDir())));
    try (SlowVolumes slow = SlowVolumes.install(cluster.getDataNodes().get(0))) {
      DataNode dn = cluster.getDataNodes().get(0);
      String fastId = null;
      String slowId = null;
      try (FsDatasetSpi.FsVolumeReferences refs = dn.getFSDataset().getFsVolumeReferences()) {
        for (FsVolumeSpi v : refs) {
          if (v.getStorageType() == StorageType.NVDIMM) {
            fastId = v.getStorageID();
          } else {
            slowId = v.getStorageID();
          }
        }
      }
      DnLocksWorkload w = new DnLocksWorkload(dn, cluster.getNamesystem().getBlockPoolId(),
        fastId, slowId, slow);
      slow.observe(w.timer);
      w.runLoad(new Load("warmup", 0, 2, 1), WARMUP_MS, 0, null);
      Map<String, DnLocksResult.Load> loads = new LinkedHashMap<>();
      double p99 = 0;
      double max = 0;
      for (Load load : LOADS) {
        out.printf(Locale.ROOT, "%s: %s load (%d DISK writers, %d RAM writers, %d transfers "
            + "into RAM) for %d s, DISK slowed by %d ms per I/O operation%n", s.variant(),
          load.name(), load.slowWriters(), load.fastWriters(), load.transfers(),
          s.secondsPerLoad(), s.delayMs());
        DnLocksResult.Load l = w.runLoad(load, s.secondsPerLoad() * 1000, s.delayMs(), out);
        loads.put(load.name(), l);
        p99 = Math.max(p99, l.fastWaitMsP99());
        max = Math.max(max, l.fastWaitMsMax());
      }
      return new DnLocksResult.Variant(s.variant(), from, patched, p99, max, loads);
    } finally {
      cluster.shutdown(true);
      FileUtil.fullyDelete(s.ramDir());
    }
  }

  /** Samples of one load level, per volume and operation. */
  private static final class Results {
    final Map<String, Map<String, OpSamples>> byVolume = new LinkedHashMap<>();

    Results() {
      for (String volume : List.of(FAST, SLOW)) {
        Map<String, OpSamples> ops = new LinkedHashMap<>();
        ops.put(CREATE_RBW, new OpSamples());
        ops.put(FINALIZE, new OpSamples());
        if (volume.equals(FAST)) {
          ops.put(CREATE_TEMPORARY, new OpSamples());
        }
        byVolume.put(volume, ops);
      }
    }

    OpSamples get(String volume, String op) {
      return byVolume.get(volume).get(op);
    }
  }

  /**
   * Runs {@code load} for {@code millis} with the DISK volume slowed by {@code delayMs}, then
   * makes it fast again so that operations in flight end, and waits for every thread.
   */
  private DnLocksResult.Load runLoad(Load load, long millis, long delayMs, PrintStream out)
    throws Exception {
    Results r = new Results();
    AtomicReference<Throwable> firstError = new AtomicReference<>();
    AtomicInteger errors = new AtomicInteger();
    ConcurrentLinkedQueue<Block> written = new ConcurrentLinkedQueue<>();
    long delayedBefore = slow.delayedOps(slowId);
    long gcMsBefore = gcMillis();
    // Each DISK writer has written a block before the disk turns slow: it starts by finalizing
    // it (the renames into finalized/), then creates, writes and finalizes new ones.
    List<ExtendedBlock> unfinalized = new ArrayList<>();
    for (int i = 0; i < load.slowWriters(); i++) {
      ExtendedBlock b = newBlock();
      try (ReplicaHandler h = dataset.createRbw(StorageType.DISK, slowId, b, false)) {
        Replicas.write(h.getReplica(), payload);
        b.setNumBytes(payload.length);
      }
      unfinalized.add(b);
    }
    if (delayMs > 0) {
      slow.slow(slowId, Duration.ofMillis(delayMs));
    }
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    List<Thread> threads = new ArrayList<>();
    for (ExtendedBlock first : unfinalized) {
      AtomicReference<ExtendedBlock> pending = new AtomicReference<>(first);
      threads.add(worker("slow-writer-" + threads.size(), deadline, 0, errors, firstError,
        () -> {
          ExtendedBlock b = pending.getAndSet(null);
          if (b != null) {
            finalizeBlock(b, r, SLOW, written);
          } else {
            writeBlock(StorageType.DISK, slowId, r, SLOW, false, written);
          }
        }));
    }
    for (int i = 0; i < load.fastWriters(); i++) {
      threads.add(worker("fast-writer-" + i, deadline, FAST_PERIOD_MS, errors, firstError,
        () -> writeBlock(StorageType.NVDIMM, fastId, r, FAST, false, written)));
    }
    for (int i = 0; i < load.transfers(); i++) {
      threads.add(worker("transfer-" + i, deadline, TRANSFER_PERIOD_MS, errors, firstError,
        () -> writeBlock(StorageType.NVDIMM, fastId, r, FAST, true, written)));
    }
    threads.add(worker("deleter", deadline, DELETE_PERIOD_MS, errors, firstError,
      () -> delete(written)));
    long t0 = System.nanoTime();
    threads.forEach(Thread::start);
    long reportEvery = TimeUnit.SECONDS.toNanos(10);
    long nextReport = t0 + reportEvery;
    while (System.nanoTime() < deadline) {
      Thread.sleep(Math.max(1, Math.min(200, (deadline - System.nanoTime()) / 1_000_000)));
      if (out != null && System.nanoTime() > nextReport && System.nanoTime() < deadline) {
        out.printf(Locale.ROOT, "  %d s: %d RAM blocks written%n",
          (System.nanoTime() - t0) / 1_000_000_000L,
          r.get(FAST, FINALIZE).count());
        nextReport += reportEvery;
      }
    }
    slow.clearAll();
    for (Thread t : threads) {
      t.join(TimeUnit.MINUTES.toMillis(2));
      if (t.isAlive()) {
        throw new IllegalStateException(t.getName() + " still running two minutes after the "
          + "load ended");
      }
    }
    delete(written);
    double seconds = (System.nanoTime() - t0) / 1e9;
    if (firstError.get() != null) {
      System.err.printf(Locale.ROOT, "dn-locks workload: %d operations failed in the %s load; "
        + "first: %s%n", errors.get(), load.name(), firstError.get());
    }
    return load(load, r, seconds, slow.delayedOps(slowId) - delayedBefore,
      gcMillis() - gcMsBefore, errors.get(), firstError.get());
  }

  /** One unit of a thread's work, repeated until the deadline. */
  @FunctionalInterface
  private interface Step {
    void run() throws IOException;
  }

  private static Thread worker(String name, long deadline, long periodMs, AtomicInteger errors,
    AtomicReference<Throwable> firstError, Step step) {
    Thread t = new Thread(() -> {
      long period = TimeUnit.MILLISECONDS.toNanos(periodMs);
      // Independent clients: each thread starts at its own point of its period.
      long next = System.nanoTime() + (period > 0 ? ThreadLocalRandom.current().nextLong(period)
        : 0);
      try {
        TimeUnit.NANOSECONDS.sleep(next - System.nanoTime());
      } catch (InterruptedException e) {
        return;
      }
      while (System.nanoTime() < deadline) {
        try {
          step.run();
        } catch (IOException | RuntimeException e) {
          errors.incrementAndGet();
          firstError.compareAndSet(null, e);
        }
        next += period;
        long left = next - System.nanoTime();
        if (left > 0) {
          try {
            TimeUnit.NANOSECONDS.sleep(Math.min(left, Math.max(0, deadline - System.nanoTime())));
          } catch (InterruptedException e) {
            return;
          }
        } else {
          next = System.nanoTime();
        }
      }
    }, "dn-locks-" + name);
    t.setDaemon(true);
    return t;
  }

  /**
   * Creates a block on the volume (createRbw, or createTemporary for a transfer), writes its
   * data and checksums as a BlockReceiver would, finalizes it, and queues it for deletion.
   */
  private void writeBlock(StorageType type, String storageId, Results r, String volume,
    boolean transfer, ConcurrentLinkedQueue<Block> written) throws IOException {
    ExtendedBlock b = newBlock();
    ReplicaHandler handler = transfer
      ? timer.time(r.get(volume, CREATE_TEMPORARY),
        () -> dataset.createTemporary(type, storageId, b, true))
      : timer.time(r.get(volume, CREATE_RBW),
        () -> dataset.createRbw(type, storageId, b, false));
    try (handler) {
      Replicas.write(handler.getReplica(), payload);
      b.setNumBytes(payload.length);
      finalizeBlock(b, r, volume, written);
    }
  }

  private void finalizeBlock(ExtendedBlock b, Results r, String volume,
    ConcurrentLinkedQueue<Block> written) throws IOException {
    timer.time(r.get(volume, FINALIZE), () -> {
      dataset.finalizeBlock(b, false);
      return null;
    });
    written.add(b.getLocalBlock());
  }

  private ExtendedBlock newBlock() {
    return new ExtendedBlock(bpid, nextBlockId.getAndIncrement(), 0, GENERATION_STAMP);
  }

  /** Invalidates what was written, as a NameNode's delete command does. */
  private void delete(ConcurrentLinkedQueue<Block> written) throws IOException {
    List<Block> batch = new ArrayList<>();
    Block b;
    while ((b = written.poll()) != null) {
      batch.add(b);
    }
    if (!batch.isEmpty()) {
      dataset.invalidate(bpid, batch.toArray(new Block[0]));
    }
  }

  /** Time this JVM spent in garbage collection so far (pauses stall every operation). */
  private static long gcMillis() {
    long ms = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      ms += Math.max(0, gc.getCollectionTime());
    }
    return ms;
  }

  private static DnLocksResult.Load load(Load load, Results r, double seconds, long delayedOps,
    long gcMs, int errors, Throwable firstError) {
    Latencies fastWaits = new Latencies();
    r.get(FAST, CREATE_RBW).addWaitsTo(fastWaits);
    r.get(FAST, FINALIZE).addWaitsTo(fastWaits);
    Map<String, Map<String, DnLocksResult.Op>> ops = new LinkedHashMap<>();
    r.byVolume.forEach((volume, byOp) -> {
      Map<String, DnLocksResult.Op> v = new LinkedHashMap<>();
      byOp.forEach((op, samples) -> v.put(op, samples.summary()));
      ops.put(volume, v);
    });
    return new DnLocksResult.Load(DnLocksResult.Threads.of(load), seconds, delayedOps, gcMs,
      errors, firstError == null ? null : firstError.toString(),
      OpSamples.ms(fastWaits.percentile(99)), OpSamples.ms(fastWaits.max()), ops);
  }
}
