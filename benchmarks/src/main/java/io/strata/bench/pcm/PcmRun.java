package io.strata.bench.pcm;

import io.strata.bench.monitor.BenchMonitor;
import io.strata.bench.ycsb.YcsbTable;
import io.strata.local.EmbeddedHBase;
import io.strata.local.LocalClusterConfig;
import io.strata.local.TieredDfsCluster;
import io.strata.pcm.AdaptationManager;
import io.strata.pcm.ClusterFacts;
import io.strata.pcm.ClusterMetricsSource;
import io.strata.pcm.InsertSampler;
import io.strata.pcm.PcmHeapRegistrar;
import io.strata.pcm.PcmHeapTuner;
import io.strata.pcm.PolicyExecutor;
import io.strata.pcm.PolicyKey;
import io.strata.pcm.Recommendation;
import io.strata.pcm.WorkloadClass;
import io.strata.pcm.WorkloadClassifier;
import io.strata.pcm.WorkloadMonitor;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.CompactionState;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.coprocessor.CoprocessorHost;
import org.apache.hadoop.hbase.io.util.MemorySizeUtil;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.HRegionServer;
import org.apache.hadoop.hbase.regionserver.HeapMemoryManager;
import org.apache.hadoop.hbase.regionserver.RegionSplitPolicy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The clusters of one {@code strata bench pcm} run and what each part does on them: Table III's
 * bulk-load steps, the per-workload comparisons, the adaptation and the classification, each as
 * {@link Job}s grouped by the RegionServer settings they need (a heap setting takes a cluster of
 * its own), their figures gathered into the run's {@link PcmResults}. Not thread-safe: one run,
 * from one thread.
 */
final class PcmRun {
  private static final Logger LOG = LoggerFactory.getLogger(PcmRun.class);

  /**
   * What a RegionServer is started with (a restart to change): its heap in the paper's GB and
   * the shares of it for memstores and block cache. Immutable.
   */
  record Spec(double heapGb, double memstoreShare, double cacheShare, boolean heapTuner) {
    /** Without PcmHeapTuner: the shares stay as started. */
    Spec(double heapGb, double memstoreShare, double cacheShare) {
      this(heapGb, memstoreShare, cacheShare, false);
    }

    String label() {
      return String.format(Locale.ROOT, "%.0fg-m%.2f-c%.2f%s", heapGb, memstoreShare, cacheShare,
        heapTuner ? "-tuner" : "");
    }
  }

  /** Work on a running cluster: its own tables, dropped when done. */
  @FunctionalInterface
  interface JobBody {
    void run(EmbeddedHBase h, Admin admin) throws Exception;
  }

  /** One part's work on a cluster of the given settings. Immutable. */
  record Job(String part, String name, Spec spec, JobBody body) {
  }

  /** HBase's default heap and shares. */
  private static final Spec DEFAULT_SPEC = new Spec(PcmBench.DEFAULT_HEAP_GB,
    PcmBench.DEFAULT_SHARE, PcmBench.DEFAULT_SHARE);
  /** HBase's default heap and shares, with PcmHeapTuner moving the shares online. */
  private static final Spec TUNER_SPEC = new Spec(PcmBench.DEFAULT_HEAP_GB,
    PcmBench.DEFAULT_SHARE, PcmBench.DEFAULT_SHARE, true);
  /**
   * HeapMemoryManager's period on PCM's adaptation cluster: short against a phase, so that the
   * tuner acts within the second phase of even the smallest scale.
   */
  static final int TUNER_PERIOD_MS = 1_000;
  /** Shares of the heap closer than this are the same to PcmHeapTuner. */
  private static final double TUNER_RESOLUTION = 0.0005;
  /** The keys {@link #start} sets for PcmHeapTuner, restored once the cluster is up. */
  private static final List<String> TUNER_KEYS = List.of(
    HeapMemoryManager.HBASE_RS_HEAP_MEMORY_TUNER_CLASS,
    HeapMemoryManager.HBASE_RS_HEAP_MEMORY_TUNER_PERIOD,
    HeapMemoryManager.MEMSTORE_SIZE_MIN_RANGE_KEY, HeapMemoryManager.MEMSTORE_SIZE_MAX_RANGE_KEY,
    HeapMemoryManager.BLOCK_CACHE_SIZE_MIN_RANGE_KEY,
    HeapMemoryManager.BLOCK_CACHE_SIZE_MAX_RANGE_KEY,
    HConstants.HEAP_OCCUPANCY_LOW_WATERMARK_KEY,
    CoprocessorHost.REGIONSERVER_COPROCESSOR_CONF_KEY);
  private final TieredDfsCluster dfs;
  private final PcmScale scale;
  private final AdaptationManager manager;
  private final PcmResults results;
  private final BenchMonitor monitor;
  private final PrintStream out;
  private int roots;
  /** The HBase root of the group running now, deleted when its cluster has stopped. */
  private String root;
  /** The repetition the jobs being built belong to (0 based): it rotates their sides' order. */
  private int run;
  /** Records the first adaptation run loaded; every later side loads as many. */
  private long adaptRecords;
  /** The emulated RegionServer heap of the cluster running now, in bytes (0: none yet). */
  private long emulatedHeap;

  PcmRun(TieredDfsCluster dfs, PcmScale scale, AdaptationManager manager, PcmResults results,
    BenchMonitor monitor, PrintStream out) {
    this.monitor = monitor;
    this.dfs = dfs;
    this.scale = scale;
    this.manager = manager;
    this.results = results;
    this.out = out;
  }

  /**
   * Makes the jobs built next those of repetition {@code r} (0 based): each comparison's sides
   * run in an order rotated by {@code r}, so that no side always runs first on a fresh cluster.
   */
  void repetition(int r) {
    this.run = r;
  }

  /** {@code list} rotated left by {@code by} places. */
  static <T> List<T> rotate(List<T> list, int by) {
    List<T> out = new ArrayList<>(list);
    if (!out.isEmpty()) {
      java.util.Collections.rotate(out, -(by % out.size()));
    }
    return out;
  }

  /**
   * Creates {@code t} with one family for {@code side}: the secondary baseline's split policy
   * set on the table, the stock one left to HBase's default.
   */
  static void createTable(Admin admin, TableName t, Side side, int regions) throws IOException {
    TableDescriptorBuilder tb = TableDescriptorBuilder.newBuilder(t)
      .setColumnFamily(ColumnFamilyDescriptorBuilder.of(YcsbTable.DEFAULT_FAMILY));
    if (side.splitPolicy() != null) {
      tb.setRegionSplitPolicyClassName(side.splitPolicy());
    }
    if (regions <= 1) {
      admin.createTable(tb.build());
    } else {
      admin.createTable(tb.build(), YcsbTable.splitKeys(regions));
    }
  }

  /**
   * Records the split policy class the RegionServers resolve for {@code t}'s regions (from the
   * region's table descriptor and the server's configuration, as HRegion does when it opens),
   * as the one {@code side} ran under.
   */
  void recordSplitPolicy(EmbeddedHBase h, TableName t, Side side) throws IOException {
    for (int i = 0; i < h.regionServerCount(); i++) {
      HRegionServer rs = h.regionServer(i);
      for (HRegion region : rs.getRegions(t)) {
        String used = RegionSplitPolicy.getSplitPolicyClass(region.getTableDescriptor(),
          rs.getConfiguration()).getName();
        results.splitPolicy(side, used);
        if (side.splitPolicy() != null && !side.splitPolicy().equals(used)) {
          LOG.warn("{} baseline: table {} set split policy {} but region {} on {} resolved {}",
            side.label(), t, side.splitPolicy(), region.getRegionInfo().getEncodedName(),
            rs.getServerName(), used);
        }
      }
    }
  }

  /**
   * The jobs in their order, each run of consecutive jobs with the same {@link Spec} one group
   * (one cluster): a cluster start and stop costs more than most jobs at the small scales, but
   * jobs are never moved ahead of others, so that the order a repetition gives its sides (e.g.
   * PCM's clusters before the baselines') is the order they run in.
   */
  static List<Map.Entry<Spec, List<Job>>> groups(List<Job> jobs) {
    List<Map.Entry<Spec, List<Job>>> groups = new ArrayList<>();
    for (Job j : jobs) {
      if (groups.isEmpty() || !groups.get(groups.size() - 1).getKey().equals(j.spec())) {
        groups.add(Map.entry(j.spec(), new ArrayList<>()));
      }
      groups.get(groups.size() - 1).getValue().add(j);
    }
    return groups;
  }

  /**
   * Runs the jobs in their {@link #groups}, a fresh cluster per group: the jobs are
   * independent (each loads its own tables). A failed job fails its part; its part's later jobs
   * are skipped.
   */
  void runGrouped(List<Job> jobs) {
    for (Map.Entry<Spec, List<Job>> g : groups(jobs)) {
      Spec sp = g.getKey();
      monitor.phase("start " + sp.label());
      try (EmbeddedHBase h = start(sp.label(), sp.heapGb(), sp.memstoreShare(),
        sp.cacheShare(), sp.heapTuner()); Admin admin = h.connection().getAdmin()) {
        try {
          monitor.follow(h.connection());
          monitor.phase("warm-up " + sp.label());
          warmUp(h, admin);
          for (Job j : g.getValue()) {
            if (results.failed.containsKey(j.part())) {
              continue;
            }
            monitor.phase(j.part() + ": " + j.name());
            long t0 = System.nanoTime();
            try {
              j.body().run(h, admin);
              out.printf(Locale.ROOT, "[pcm] %s: %s done in %.1f s%n", j.part(), j.name(),
                (System.nanoTime() - t0) / 1e9);
            } catch (Exception e) {
              fail(j.part(), j.name(), e);
            }
          }
        } finally {
          // Not read while it shuts down.
          monitor.follow(null);
          monitor.phase("stop " + sp.label());
        }
      } catch (Exception e) {
        for (Job j : g.getValue()) {
          if (!results.failed.containsKey(j.part())) {
            fail(j.part(), "cluster " + sp.label(), e);
          }
        }
      } finally {
        dropRoot();
      }
    }
  }

  /**
   * Deletes the HBase root of the group just run: every group loads its own tables into a root
   * of its own, and with repetitions the roots would otherwise fill the disk long before the run
   * ends. A root that cannot be deleted stops the run rather than let the next groups fill it.
   */
  private void dropRoot() {
    if (root == null) {
      return;
    }
    Path p = new Path(root);
    try {
      if (!dfs.fileSystem().delete(p, true) && dfs.fileSystem().exists(p)) {
        throw new IOException("delete returned false");
      }
      LOG.info("Deleted the finished group's HBase root {}", p);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot delete the finished group's HBase root " + p
        + "; stopping so that the next groups do not fill the disk", e);
    } finally {
      root = null;
    }
  }

  private void fail(String part, String job, Exception e) {
    LOG.error("{}: {} failed", part, job, e);
    out.printf(Locale.ROOT, "[pcm] %s: %s FAILED: %s%n", part, job, e);
    results.failed(part, job + ": " + e);
  }

  /**
   * A fresh HBase (its own root directory) whose RegionServers have the memstore and block
   * cache of a {@code heapGb} GB heap with these shares, scaled, as fractions of this JVM.
   */
  EmbeddedHBase start(String label, double heapGb, double memstoreShare, double cacheShare)
    throws IOException {
    return start(label, heapGb, memstoreShare, cacheShare, false);
  }

  /**
   * As {@link #start(String, double, double, double)}; with {@code heapTuner}, each
   * RegionServer's HeapMemoryManager runs PcmHeapTuner (see {@link #tunerKeys}).
   */
  EmbeddedHBase start(String label, double heapGb, double memstoreShare, double cacheShare,
    boolean heapTuner) throws IOException {
    long jvm = Runtime.getRuntime().maxMemory();
    long heap = scale.scaled((long) (heapGb * 1024));
    LocalClusterConfig c = dfs.config();
    root = dfs.uri() + "/hbase-" + (++roots) + "-" + label;
    c.hbase(HConstants.HBASE_DIR, root);
    c.hbase(PolicyKey.GLOBAL_MEMSTORE, fraction(memstoreShare * heap / jvm));
    c.hbase(PolicyKey.BLOCK_CACHE, fraction(cacheShare * heap / jvm));
    // The insert/update split, so that an update-only load is WO-Update (PCM's site set-up).
    c.hbase(CoprocessorHost.REGION_COPROCESSOR_CONF_KEY, InsertSampler.class.getName());
    emulatedHeap = heap;
    Map<String, String> saved = new LinkedHashMap<>();
    for (String k : TUNER_KEYS) {
      saved.put(k, c.hbaseOverrides().get(k));
    }
    if (heapTuner) {
      tunerKeys(c, dfs.configuration(), heap, jvm).forEach(c::hbase);
    }
    long t0 = System.nanoTime();
    EmbeddedHBase h;
    try {
      h = EmbeddedHBase.start(dfs);
    } finally {
      // Only this cluster runs the tuner: every later one starts as before.
      saved.forEach((k, v) -> {
        if (v == null) {
          c.hbaseUnset(k);
        } else {
          c.hbase(k, v);
        }
      });
    }
    out.printf(Locale.ROOT, "[pcm] HBase %s up in %.1f s: heap %.1f GB emulated (memstore %d "
      + "MiB, block cache %d MiB per RegionServer)%s%n", label, (System.nanoTime() - t0) / 1e9,
      heapGb, (long) (memstoreShare * heap) >> 20, (long) (cacheShare * heap) >> 20,
      heapTuner ? ", PcmHeapTuner every " + TUNER_PERIOD_MS + " ms" : "");
    return h;
  }

  /**
   * The keys that make each RegionServer's HeapMemoryManager run PcmHeapTuner with the emulated
   * heap: the tuner, its registrar added to the RegionServer coprocessors already loaded (an
   * override replaces the list), a period of {@link #TUNER_PERIOD_MS}, and ranges from the least
   * to the greatest share any PCM policy (or the default) gives, scaled as the shares are
   * ({@code heap / jvm}), so that the tuner's targets (the scaled shares {@link #scaled} writes on
   * the table) are never clamped. HeapMemoryManager's heap-occupancy alarm is turned off: it
   * reads the whole JVM's heap, which the DataNodes, clients and every RegionServer share, not
   * the emulated heap the shares are of. {@code dfsConf}: the configuration the cluster's is
   * built on.
   */
  Map<String, String> tunerKeys(LocalClusterConfig c, Configuration dfsConf, long heap,
    long jvm) {
    double memMin = PcmBench.DEFAULT_SHARE;
    double memMax = PcmBench.DEFAULT_SHARE;
    double cacheMin = PcmBench.DEFAULT_SHARE;
    double cacheMax = PcmBench.DEFAULT_SHARE;
    for (WorkloadClass w : WorkloadClass.values()) {
      Recommendation rec = manager.recommend(w, facts(0, 1));
      double m = share(rec, PolicyKey.GLOBAL_MEMSTORE);
      double b = share(rec, PolicyKey.BLOCK_CACHE);
      memMin = Math.min(memMin, m);
      memMax = Math.max(memMax, m);
      cacheMin = Math.min(cacheMin, b);
      cacheMax = Math.max(cacheMax, b);
    }
    double ratio = heap / (double) jvm;
    double limit = 1 - MemorySizeUtil.getRegionServerMinFreeHeapFraction(dfsConf);
    if ((memMax + cacheMin) * ratio > limit || (memMin + cacheMax) * ratio > limit) {
      throw new IllegalStateException(String.format(Locale.ROOT, "PCM's heap tuner ranges "
        + "(memstore %.2f-%.2f, block cache %.2f-%.2f of a %d MiB emulated heap) exceed %.2f of "
        + "this JVM's %d MiB heap, which HeapMemoryManager refuses; run with a larger -Xmx",
        memMin, memMax, cacheMin, cacheMax, heap >> 20, limit, jvm >> 20));
    }
    if (0.1 * ratio < TUNER_RESOLUTION) {
      // The tuner would take two policies 0.1 apart (MixR and MixRW) for the same shares.
      LOG.warn("PCM heap tuner: a {} MiB emulated heap in this JVM's {} MiB makes a 0.1 share "
        + "difference {} of the JVM's heap, below the {} PcmHeapTuner tells apart; policies that "
        + "close are applied as one (a smaller -Xmx or a larger scale avoids it)", heap >> 20,
        jvm >> 20, fraction(0.1 * ratio), TUNER_RESOLUTION);
    }
    String key = CoprocessorHost.REGIONSERVER_COPROCESSOR_CONF_KEY;
    String loaded = c.hbaseOverrides().get(key);
    if (loaded == null) {
      // What the cluster would load without an override: Strata's site, then access control.
      Configuration probe = HBaseConfiguration.create(dfsConf);
      if (c.tieredPlacement()) {
        probe.addResource(EmbeddedHBase.TIERING_SITE);
      }
      loaded = probe.getTrimmed(key, "");
      if (c.accessControl()) {
        String ac = EmbeddedHBase.ACCESS_CONTROL.get(key);
        loaded = loaded.isEmpty() ? ac : loaded + "," + ac;
      }
    }
    Map<String, String> keys = new LinkedHashMap<>();
    keys.put(HeapMemoryManager.HBASE_RS_HEAP_MEMORY_TUNER_CLASS, PcmHeapTuner.class.getName());
    keys.put(key, (loaded.isEmpty() ? "" : loaded + ",") + PcmHeapRegistrar.class.getName());
    keys.put(HeapMemoryManager.HBASE_RS_HEAP_MEMORY_TUNER_PERIOD,
      Integer.toString(TUNER_PERIOD_MS));
    keys.put(HeapMemoryManager.MEMSTORE_SIZE_MIN_RANGE_KEY, fraction(memMin * ratio));
    keys.put(HeapMemoryManager.MEMSTORE_SIZE_MAX_RANGE_KEY, fraction(memMax * ratio));
    keys.put(HeapMemoryManager.BLOCK_CACHE_SIZE_MIN_RANGE_KEY, fraction(cacheMin * ratio));
    keys.put(HeapMemoryManager.BLOCK_CACHE_SIZE_MAX_RANGE_KEY, fraction(cacheMax * ratio));
    keys.put(HConstants.HEAP_OCCUPANCY_LOW_WATERMARK_KEY, "1.01");
    return keys;
  }

  private String fraction(double f) {
    return String.format(Locale.ROOT, "%.6f", Math.max(1e-4, f));
  }

  int preSplitRegions() {
    return manager.recommend(WorkloadClass.BL, facts(0, 1)).preSplitRegions();
  }

  ClusterFacts facts(long datasetBytes, int regions) {
    return new ClusterFacts(PcmBench.REGION_SERVERS, PcmBench.DEFAULT_HEAP_GB << 30,
      PcmBench.PAPER_NODE_RAM, datasetBytes, regions);
  }

  /**
   * Table III: S.1 to S.9, grouped by heap (a restart); S.1 also on the secondary baseline.
   * Repetition r rotates the heap groups and the steps within each by r places.
   */
  void table3(List<Job> jobs) {
    int presplit = preSplitRegions();
    int r = run;
    Map<Double, List<Table3Step>> byHeap = new LinkedHashMap<>();
    for (Table3Step s : Table3Step.STEPS) {
      byHeap.computeIfAbsent(s.heapGb(), k -> new ArrayList<>()).add(s);
    }
    for (Map.Entry<Double, List<Table3Step>> e : rotate(new ArrayList<>(byHeap.entrySet()), r)) {
      List<Map.Entry<Table3Step, Side>> steps = new ArrayList<>();
      for (Table3Step s : e.getValue()) {
        steps.add(Map.entry(s, Side.STOCK));
        if (s.step().equals("S.1")) {
          steps.add(Map.entry(s, Side.INCREASING_TO_UPPER_BOUND));
        }
      }
      jobs.add(new Job("table3", "steps with a " + e.getKey().intValue() + " GB heap, run "
        + (r + 1), new Spec(e.getKey(), PcmBench.DEFAULT_SHARE, PcmBench.DEFAULT_SHARE),
        (h, admin) -> {
        for (Map.Entry<Table3Step, Side> step : rotate(steps, r)) {
          Table3Step s = step.getKey();
          Side side = step.getValue();
          TableName t = TableName.valueOf("t3_" + s.step().replace('.', '_')
            + (side == Side.STOCK ? "" : "_itub"));
          TableDescriptorBuilder tb = TableDescriptorBuilder.newBuilder(t);
          if (side.splitPolicy() != null) {
            tb.setRegionSplitPolicyClassName(side.splitPolicy());
          }
          ColumnFamilyDescriptorBuilder fb = ColumnFamilyDescriptorBuilder.newBuilder(
            LoadDriver.FAMILY);
          if (s.flushMb() > 0) {
            tb.setMemStoreFlushSize(scale.scaled(s.flushMb()));
          }
          if (s.blockingStoreFiles() > 0) {
            fb.setConfiguration(PolicyKey.BLOCKING_STORE_FILES,
              Integer.toString(s.blockingStoreFiles()));
            fb.setConfiguration(PolicyKey.COMPACTION_MIN,
              Integer.toString(s.compactionThreshold()));
            fb.setConfiguration(PolicyKey.COMPACTION_MAX,
              Integer.toString(Math.max(10, s.compactionThreshold())));
          }
          tb.setColumnFamily(fb.build());
          if (s.preSplit()) {
            admin.createTable(tb.build(), YcsbTable.splitKeys(presplit));
          } else {
            admin.createTable(tb.build());
          }
          LoadDriver.Outcome o = LoadDriver.run(h.connection(), t, Mix.BULK_LOAD,
            new LoadDriver.KeySpace(), scale.writeThreads(), Double.MAX_VALUE,
            scale.bulkRecords());
          int regions = admin.getRegions(t).size();
          if (!s.preSplit()) {
            recordSplitPolicy(h, t, side);
          }
          if (side == Side.STOCK) {
            results.table3(s, r, o.opsPerSec(), o.seconds(), regions);
          } else {
            results.table3Secondary(r, o.opsPerSec());
          }
          out.printf(Locale.ROOT, "[pcm] Table III %s (%s, %s, run %d): %,.0f ops/s over %.1f s, "
            + "%d region(s) at the end%n", s.step(), s.config(), side.label(), r + 1,
            o.opsPerSec(), o.seconds(), regions);
          YcsbTable.dropIfExists(admin, t);
        }
      }));
    }
  }

  /**
   * A short load into a throw-away table on a fresh cluster, so that the first measured step
   * does not also pay for the JIT and the RegionServers' first flushes and WAL rolls.
   */
  private void warmUp(EmbeddedHBase h, Admin admin) throws Exception {
    TableName t = TableName.valueOf("warmup");
    YcsbTable.create(admin, t, "family", PcmBench.REGION_SERVERS);
    LoadDriver.run(h.connection(), t, Mix.BULK_LOAD, new LoadDriver.KeySpace(),
      scale.writeThreads(), Double.MAX_VALUE, Math.max(1000, scale.bulkRecords() / 4));
    YcsbTable.dropIfExists(admin, t);
  }

  /** Fig. 5: each class's PCM policy against the default, per dataset size. */
  void workloads(List<Job> jobs) {
    List<Mix> mixes = List.of(Mix.BULK_LOAD, Mix.WO_UPDATE, Mix.RO_READ, Mix.RO_SCAN,
      Mix.MIX_RW);
    int r = run;
    for (long records : scale.datasets()) {
      // The sides in rotated order; the baselines share their cluster (same heap settings).
      for (Side side : rotate(List.of(Side.STOCK, Side.PCM, Side.INCREASING_TO_UPPER_BOUND), r)) {
        if (side == Side.PCM) {
          pcmWorkloads(jobs, mixes, records, r);
        } else {
          baselineWorkloads(jobs, mixes, records, r, side);
        }
      }
    }
  }

  /**
   * A baseline's side: the table loaded into one region under the baseline's split policy,
   * every workload on it, one after the other.
   */
  private void baselineWorkloads(List<Job> jobs, List<Mix> mixes, long records, int r,
    Side side) {
    jobs.add(new Job("workloads", side.label() + ", " + records + " records, run " + (r + 1),
      DEFAULT_SPEC, (h, admin) -> {
      TableName t = TableName.valueOf("wl_" + (side == Side.STOCK ? "default" : "itub") + "_"
        + records);
      createTable(admin, t, side, 1);
      LoadDriver.KeySpace keys = new LoadDriver.KeySpace();
      for (Mix m : mixes) {
        if (m.readOnly() && m == Mix.RO_READ) {
          compact(admin, t);
        }
        double ops = measure(h, t, m, keys, records);
        results.workload(m.name(), records, r, side, ops);
        if (m == Mix.BULK_LOAD) {
          recordSplitPolicy(h, t, side);
        }
      }
      YcsbTable.dropIfExists(admin, t);
    }));
  }

  /** PCM's side of the per-workload comparison, on a cluster per set of restart settings. */
  private void pcmWorkloads(List<Job> jobs, List<Mix> mixes, long records, int r) {
    // A cluster per set of restart settings (heap, its shares), each loaded under the BL
    // policy (pre-split), then the class's policy applied online and the workload run.
    Map<String, List<Mix>> byRestart = new LinkedHashMap<>();
    Map<String, Recommendation> recs = new LinkedHashMap<>();
    for (Mix m : mixes) {
      Recommendation rec = manager.recommend(m.expected(), facts(records * 1000, 1));
      String key = restartKey(rec);
      byRestart.computeIfAbsent(key, k -> new ArrayList<>()).add(m);
      recs.putIfAbsent(key, rec);
    }
    for (Map.Entry<String, List<Mix>> e : byRestart.entrySet()) {
      Recommendation rec = recs.get(e.getKey());
      jobs.add(new Job("workloads", "PCM " + e.getValue().get(0).name() + ", " + records
        + " records, run " + (r + 1), new Spec(rec.heapBytes() / (double) (1L << 30),
          share(rec, PolicyKey.GLOBAL_MEMSTORE), share(rec, PolicyKey.BLOCK_CACHE)),
        (h, admin) -> {
        TableName t = TableName.valueOf("wl_pcm_" + records);
        Recommendation bl = manager.recommend(WorkloadClass.BL, facts(records * 1000, 1));
        YcsbTable.create(admin, t, "family", bl.preSplitRegions());
        applyPolicy(admin, t, bl);
        LoadDriver.KeySpace keys = new LoadDriver.KeySpace();
        if (!e.getValue().contains(Mix.BULK_LOAD)) {
          LoadDriver.run(h.connection(), t, Mix.BULK_LOAD, keys, scale.writeThreads(),
            Double.MAX_VALUE, records);
        }
        for (Mix m : e.getValue()) {
          if (m != Mix.BULK_LOAD) {
            applyPolicy(admin, t, manager.recommend(m.expected(),
              facts(records * 1000, admin.getRegions(t).size())));
            if (m.readOnly()) {
              compact(admin, t);
            }
          }
          double ops = measure(h, t, m, keys, records);
          results.workload(m.name(), records, r, Side.PCM, ops);
        }
        YcsbTable.dropIfExists(admin, t);
      }));
    }
  }

  /** Runs one workload: a bulk load of {@code records}, or the scale's time. */
  private double measure(EmbeddedHBase h, TableName t, Mix m, LoadDriver.KeySpace keys,
    long records) throws Exception {
    return measure(h, t, m, keys, records, KeyDistribution.UNIFORM);
  }

  /** As {@link #measure(EmbeddedHBase, TableName, Mix, LoadDriver.KeySpace, long)}, keys by d. */
  private double measure(EmbeddedHBase h, TableName t, Mix m, LoadDriver.KeySpace keys,
    long records, KeyDistribution d) throws Exception {
    int threads = m.readOnly() || m == Mix.MIX_RW ? scale.readThreads() : scale.writeThreads();
    LoadDriver.Outcome o = m == Mix.BULK_LOAD
      ? LoadDriver.run(h.connection(), t, m, keys, threads, Double.MAX_VALUE, records)
      : LoadDriver.run(h.connection(), t, m, keys, threads, scale.runSeconds(), 0, d);
    out.printf(Locale.ROOT, "[pcm]   %-9s %,9d records%s: %,.0f ops/s (%d threads, %.1f s)%n",
      m.name(), records, d == KeyDistribution.UNIFORM ? "" : ", " + d.label() + " keys",
      o.opsPerSec(), threads, o.seconds());
    return o.opsPerSec();
  }

  /**
   * Fig. 6: RO-Read and RO-Scan with uniform, Zipfian and latest keys on the scale's largest
   * dataset, PCM against the baselines, the sides in rotated order, each loaded as in
   * {@link #workloads}.
   */
  void distributions(List<Job> jobs) {
    List<Mix> mixes = List.of(Mix.RO_READ, Mix.RO_SCAN);
    long records = scale.datasets().get(scale.datasets().size() - 1);
    int r = run;
    for (Side side : rotate(List.of(Side.STOCK, Side.PCM, Side.INCREASING_TO_UPPER_BOUND), r)) {
      if (side == Side.PCM) {
        pcmDistributions(jobs, mixes, records, r);
      } else {
        jobs.add(new Job("distributions", side.label() + ", " + records + " records, run "
          + (r + 1), DEFAULT_SPEC, (h, admin) -> {
          TableName t = TableName.valueOf("kd_" + (side == Side.STOCK ? "default" : "itub") + "_"
            + records);
          createTable(admin, t, side, 1);
          LoadDriver.KeySpace keys = new LoadDriver.KeySpace();
          LoadDriver.run(h.connection(), t, Mix.BULK_LOAD, keys, scale.writeThreads(),
            Double.MAX_VALUE, records);
          recordSplitPolicy(h, t, side);
          skewedReads(h, admin, t, mixes, keys, records, r, side, null);
          YcsbTable.dropIfExists(admin, t);
        }));
      }
    }
  }

  /** PCM's side of Fig. 6, on a cluster per set of restart settings, as in the workloads. */
  private void pcmDistributions(List<Job> jobs, List<Mix> mixes, long records, int r) {
    Map<String, List<Mix>> byRestart = new LinkedHashMap<>();
    Map<String, Recommendation> recs = new LinkedHashMap<>();
    for (Mix m : mixes) {
      Recommendation rec = manager.recommend(m.expected(), facts(records * 1000, 1));
      String key = restartKey(rec);
      byRestart.computeIfAbsent(key, k -> new ArrayList<>()).add(m);
      recs.putIfAbsent(key, rec);
    }
    for (Map.Entry<String, List<Mix>> e : byRestart.entrySet()) {
      Recommendation rec = recs.get(e.getKey());
      jobs.add(new Job("distributions", "PCM " + e.getValue().get(0).name() + ", " + records
        + " records, run " + (r + 1), new Spec(rec.heapBytes() / (double) (1L << 30),
          share(rec, PolicyKey.GLOBAL_MEMSTORE), share(rec, PolicyKey.BLOCK_CACHE)),
        (h, admin) -> {
        TableName t = TableName.valueOf("kd_pcm_" + records);
        Recommendation bl = manager.recommend(WorkloadClass.BL, facts(records * 1000, 1));
        YcsbTable.create(admin, t, "family", bl.preSplitRegions());
        applyPolicy(admin, t, bl);
        LoadDriver.KeySpace keys = new LoadDriver.KeySpace();
        LoadDriver.run(h.connection(), t, Mix.BULK_LOAD, keys, scale.writeThreads(),
          Double.MAX_VALUE, records);
        skewedReads(h, admin, t, e.getValue(), keys, records, r, Side.PCM,
          m -> applyPolicy(admin, t, manager.recommend(m.expected(),
            facts(records * 1000, admin.getRegions(t).size()))));
        YcsbTable.dropIfExists(admin, t);
      }));
    }
  }

  /** What a side does before each mix's reads (PCM: apply the mix's policy). */
  private interface BeforeMix {
    void apply(Mix m) throws Exception;
  }

  /**
   * Uniform and Zipfian keys on the loaded records; then 10 % more records inserted and the
   * latest keys (the paper inserted 10 million into its 100 million for its Latest test). Each
   * mix's reads start after {@code before} and a major compaction.
   */
  private void skewedReads(EmbeddedHBase h, Admin admin, TableName t, List<Mix> mixes,
    LoadDriver.KeySpace keys, long records, int r, Side side, BeforeMix before)
    throws Exception {
    // Uniform and Zipfian share a compaction; the one measured second finds the cache the first
    // warmed, so their order alternates with the runs.
    List<KeyDistribution> first = r % 2 == 0
      ? List.of(KeyDistribution.UNIFORM, KeyDistribution.ZIPFIAN)
      : List.of(KeyDistribution.ZIPFIAN, KeyDistribution.UNIFORM);
    for (List<KeyDistribution> phase : List.of(first, List.of(KeyDistribution.LATEST))) {
      if (phase.contains(KeyDistribution.LATEST)) {
        LoadDriver.run(h.connection(), t, Mix.BULK_LOAD, keys, scale.writeThreads(),
          Double.MAX_VALUE, records + records / 10);
      }
      for (Mix m : mixes) {
        if (before != null) {
          before.apply(m);
        }
        compact(admin, t);
        for (KeyDistribution d : phase) {
          double ops = measure(h, t, m, keys, keys.inserted(), d);
          results.distribution(m.name(), d, keys.inserted(), r, side, ops);
        }
      }
    }
  }

  /**
   * Flushes and major-compacts {@code t} before a read phase on either side, so that both read
   * from compacted files (and a policy's block size is in them), as after a settled load.
   */
  private void compact(Admin admin, TableName t) throws Exception {
    admin.flush(t);
    admin.majorCompact(t);
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
    Thread.sleep(1000);
    while (admin.getCompactionState(t) != CompactionState.NONE
      && System.nanoTime() < deadline) {
      Thread.sleep(500);
    }
  }

  private String restartKey(Recommendation r) {
    return r.heapBytes() + "/" + share(r, PolicyKey.GLOBAL_MEMSTORE) + "/"
      + share(r, PolicyKey.BLOCK_CACHE);
  }

  private double share(Recommendation r, String key) {
    for (Recommendation.Setting s : r.settings()) {
      if (s.key().equals(key)) {
        return Double.parseDouble(s.value());
      }
    }
    return PcmBench.DEFAULT_SHARE;
  }

  /** Applies the online part of {@code rec}, byte sizes scaled; returns the changes made. */
  private int applyPolicy(Admin admin, TableName t, Recommendation rec) throws IOException {
    PolicyExecutor.Plan plan = PolicyExecutor.plan(admin.getDescriptor(t), scaled(rec));
    File revert = new File(dfs.config().workDir(), "pcm-state/" + t.getNameAsString()
      + "-" + System.nanoTime() + ".revert.json");
    new PolicyExecutor(admin).apply(plan, revert);
    return plan.changes().size();
  }

  /**
   * {@code rec} with its memstore flush and region sizes divided by the scale's divisor, and its
   * heap shares (written on the table for PcmHeapTuner) made fractions of this JVM's heap as the
   * cluster's own shares are ({@link #start}): the tuner reads them as fractions of the heap
   * HeapMemoryManager sees, which here is the JVM's, not the emulated one.
   */
  Recommendation scaled(Recommendation rec) {
    long heap = emulatedHeap > 0 ? emulatedHeap : scale.scaled(PcmBench.DEFAULT_HEAP_GB * 1024L);
    long jvm = Runtime.getRuntime().maxMemory();
    List<Recommendation.Setting> out = new ArrayList<>();
    for (Recommendation.Setting s : rec.settings()) {
      if (s.key().equals(PolicyKey.GLOBAL_MEMSTORE) || s.key().equals(PolicyKey.BLOCK_CACHE)) {
        out.add(new Recommendation.Setting(s.key(), s.scope(), s.target(),
          fraction(Double.parseDouble(s.value()) * heap / jvm), s.rule() + " x emulated heap "
            + (heap >> 20) + " MiB / JVM heap " + (jvm >> 20) + " MiB"));
      } else if (s.key().equals(PolicyKey.FLUSH_SIZE) || s.key().equals(PolicyKey.MAX_FILESIZE)) {
        long v = Long.parseLong(s.value()) / scale.sizeDivisor();
        out.add(new Recommendation.Setting(s.key(), s.scope(), s.target(), Long.toString(v),
          s.rule() + " / " + scale.sizeDivisor()));
      } else {
        out.add(s);
      }
    }
    return new Recommendation(rec.workload(), rec.policySource(), rec.x(), rec.heapBytes(),
      rec.heapFromRam(), rec.preSplitRegions(), out, rec.clientThreads());
  }

  WorkloadMonitor monitor(Admin admin, TableName t) {
    InProcessReadOpCounter counters = new InProcessReadOpCounter();
    return new WorkloadMonitor(t, new ClusterMetricsSource(admin, counters, counters),
      scale.windowSamples(), new WorkloadClassifier(1.0, 0.01), scale.stableWindows());
  }

  /** The eight mixes, each classified from the cluster's metrics while it runs. */
  void classification(List<Job> jobs) {
    jobs.add(new Job("classification", "the eight mixes",
      DEFAULT_SPEC, (h, admin) -> {
      TableName t = TableName.valueOf("classify");
      YcsbTable.create(admin, t, "family", preSplitRegions());
      LoadDriver.KeySpace keys = new LoadDriver.KeySpace();
      LoadDriver.run(h.connection(), t, Mix.BULK_LOAD, keys, scale.writeThreads(),
        Double.MAX_VALUE, scale.classifyRecords());
      for (Mix m : Mix.YCSB) {
        PcmResults.Classified c = classifyUnder(h, admin, t, m, keys);
        results.classified(m, c);
        out.printf(Locale.ROOT, "[pcm] classify %-9s expected %-9s got %-9s %s (%.1f s, reads "
          + "%.1f %%, scan share %s, insert share %s)%n", m.name(), m.expected(),
          c.got() == null ? "none" : c.got().label(), c.got() == m.expected() ? "ok" : "WRONG",
          c.seconds(), 100 * c.readFraction(), share(c.scanShare()), share(c.insertShare()));
      }
      YcsbTable.dropIfExists(admin, t);
    }));
  }

  private static String share(double v) {
    return Double.isNaN(v) ? "unknown" : String.format(Locale.ROOT, "%.2f", v);
  }

  private PcmResults.Classified classifyUnder(EmbeddedHBase h, Admin admin, TableName t, Mix m,
    LoadDriver.KeySpace keys) throws Exception {
    int threads = m.readOnly() ? scale.readThreads() : scale.writeThreads();
    AtomicBoolean stop = new AtomicBoolean();
    ExecutorService pool = Executors.newSingleThreadExecutor();
    long t0 = System.nanoTime();
    try {
      Future<LoadDriver.Outcome> load = pool.submit(() -> LoadDriver.run(h.connection(), t, m,
        keys, threads, Double.MAX_VALUE, 0, stop));
      WorkloadMonitor mon = monitor(admin, t);
      WorkloadMonitor.Observation o = null;
      for (int i = 0; i < scale.classifyMaxSamples(); i++) {
        Thread.sleep(scale.monitorIntervalMs());
        o = mon.observe();
        if (o.changed().isPresent()) {
          break;
        }
      }
      stop.set(true);
      load.get(2, TimeUnit.MINUTES);
      double secs = (System.nanoTime() - t0) / 1e9;
      return new PcmResults.Classified(o == null ? null : o.stable(), secs,
        o == null || o.rates() == null ? Double.NaN : o.rates().readFraction(),
        o == null || o.rates() == null ? Double.NaN : o.rates().scanShare(),
        o == null || o.rates() == null ? Double.NaN : o.rates().insertShare());
    } finally {
      stop.set(true);
      pool.shutdownNow();
    }
  }

  /** One adaptation run's figures, gathered over its clusters. Not thread-safe. */
  private static final class AdaptState {
    final Map<Side, Double> second = new LinkedHashMap<>();
    List<PcmResults.Phase> phases;
    double keptOps = Double.NaN;
    int restarts;
    PcmResults.TunerRun tuner;
  }

  /**
   * A bulk load into an empty table, then a read-mostly phase (YCSB B), under the watch loop:
   * monitor, classify, and on a change of class apply its policy online, heap shares included:
   * PCM's table runs on a cluster of its own whose RegionServers run PcmHeapTuner
   * ({@link #TUNER_SPEC}), so the shares move with the class as the table's other settings do.
   * The second phase's throughput after the switch is compared with tables loaded with the same
   * records under the two baselines and, last of them, with the BL policy kept, on a cluster
   * without the tuner (HBase's shares, as every baseline has): a table of PCM's on the same
   * RegionServers would move their shares under the baselines. The sides run in an order rotated
   * with the PCM table's by the repetition, consecutive baselines on one cluster. The
   * RegionServers' start codes before and after give the restarts the adaptation took.
   */
  void adaptation(List<Job> jobs) {
    Mix readMostly = Mix.YCSB.get(1);
    int r = run;
    AdaptState state = new AdaptState();
    List<List<Side>> clusters = new ArrayList<>();
    for (Side side : rotate(List.of(Side.PCM, Side.STOCK, Side.INCREASING_TO_UPPER_BOUND), r)) {
      List<Side> last = clusters.isEmpty() ? null : clusters.get(clusters.size() - 1);
      if (last != null && side != Side.PCM && last.get(0) != Side.PCM) {
        last.add(side);
      } else {
        clusters.add(new ArrayList<>(List.of(side)));
      }
    }
    int keptWith = -1;
    for (int i = 0; i < clusters.size(); i++) {
      if (clusters.get(i).get(0) != Side.PCM) {
        keptWith = i;
      }
    }
    for (int i = 0; i < clusters.size(); i++) {
      List<Side> sides = clusters.get(i);
      boolean pcm = sides.get(0) == Side.PCM;
      boolean kept = i == keptWith;
      boolean lastJob = i == clusters.size() - 1;
      String name = (pcm ? "PCM (heap tuner on)" : String.join(", ", sides.stream()
        .map(Side::label).toList()) + (kept ? ", BL kept" : "")) + ": bulk load then "
        + "read-mostly, run " + (r + 1);
      jobs.add(new Job("adaptation", name, pcm ? TUNER_SPEC : DEFAULT_SPEC, (h, admin) -> {
        Collection<ServerName> before = admin.getRegionServers();
        for (Side side : sides) {
          if (side == Side.PCM) {
            state.phases = watched(h, admin, readMostly, state);
            state.second.put(side, state.phases.get(1).opsPerSec());
          } else {
            state.second.put(side, secondPhaseOn(h, admin, side == Side.STOCK ? "adapt_default"
              : "adapt_itub", side, null, readMostly));
          }
        }
        if (kept) {
          state.keptOps = secondPhaseOn(h, admin, "adapt_kept_bl", Side.STOCK, WorkloadClass.BL,
            readMostly);
        }
        state.restarts += restarts(before, admin.getRegionServers());
        for (String t : List.of("adapt_pcm", "adapt_default", "adapt_itub", "adapt_kept_bl")) {
          YcsbTable.dropIfExists(admin, TableName.valueOf(t));
        }
        if (lastJob) {
          out.printf(Locale.ROOT, "[pcm] adaptation run %d: %d RegionServer restart(s) seen "
            + "(start codes before and after)%n", r + 1, state.restarts);
          results.adaptation(r, state.phases, state.second, state.keptOps, state.restarts);
          if (state.tuner != null) {
            results.adaptationTuner(r, state.tuner);
          }
        }
      }));
    }
  }

  /**
   * RegionServers of {@code before} that are not in {@code after} with the same start code:
   * each was restarted (or is gone).
   */
  static int restarts(Collection<ServerName> before, Collection<ServerName> after) {
    Set<ServerName> now = new HashSet<>(after);
    int n = 0;
    for (ServerName s : before) {
      if (!now.contains(s)) {
        n++;
      }
    }
    return n;
  }

  /**
   * PCM's table: the bulk load then the read-mostly phase under the watch loop; returns both
   * phases. The first run loads for a time (long enough for a window and the hysteresis); it
   * sets the records every later table loads, this one's included in later runs. The second
   * phase is watched by a {@link HeapTunerWatch}: what PcmHeapTuner did goes to {@code state}.
   */
  private List<PcmResults.Phase> watched(EmbeddedHBase h, Admin admin, Mix readMostly,
    AdaptState state) throws Exception {
    TableName t = TableName.valueOf("adapt_pcm");
    YcsbTable.create(admin, t, "family", 1);
    LoadDriver.KeySpace keys = new LoadDriver.KeySpace();
    long limit = adaptRecords;
    WorkloadMonitor mon = monitor(admin, t);
    mon.observe(); // the empty table: a load into it is BL
    AtomicBoolean stop = new AtomicBoolean();
    ExecutorService pool = Executors.newSingleThreadExecutor();
    List<PcmResults.Phase> phases = new ArrayList<>();
    HeapTunerWatch tuner = null;
    try {
      for (Mix phase : List.of(Mix.BULK_LOAD, readMostly)) {
        stop.set(false);
        if (phase != Mix.BULK_LOAD) {
          tuner = new HeapTunerWatch(h, emulatedHeap);
        }
        Recommendation applied = null;
        long p0 = System.nanoTime();
        // The first run's load phase runs for a time, not a record count: long enough for a
        // full window and the hysteresis whatever the machine's speed; later runs load as many
        // records as it did, so that every table of every run holds the same data.
        double loadSeconds = Math.max(scale.runSeconds(), (scale.windowSamples()
          + scale.stableWindows() + 3) * scale.monitorIntervalMs() / 1000.0);
        boolean counted = phase == Mix.BULK_LOAD && limit > 0;
        Future<LoadDriver.Outcome> load = pool.submit(() -> LoadDriver.run(h.connection(), t,
          phase, keys, phase == Mix.BULK_LOAD ? scale.writeThreads() : scale.readThreads(),
          phase == Mix.BULK_LOAD && !counted ? loadSeconds : Double.MAX_VALUE,
          counted ? limit : 0, stop));
        WorkloadClass switched = null;
        double switchS = Double.NaN;
        LoadDriver.Outcome measured;
        for (int i = 0; !load.isDone() || phase != Mix.BULK_LOAD; i++) {
          Thread.sleep(scale.monitorIntervalMs());
          WorkloadMonitor.Observation o = mon.observe();
          if (o.changed().isPresent() && switched == null) {
            switched = o.changed().get();
            applied = manager.recommend(switched, facts(o.sample().dataBytes(),
              o.sample().regions()));
            int changes = applyPolicy(admin, t, applied);
            switchS = (System.nanoTime() - p0) / 1e9;
            out.printf(Locale.ROOT, "[pcm] adaptation %s: classified %s, policy applied "
              + "(%d online change(s)) %.1f s after the phase began%n", phase.name(), switched,
              changes, switchS);
            if (phase != Mix.BULK_LOAD) {
              break;
            }
          }
          if (phase != Mix.BULK_LOAD && i >= scale.classifyMaxSamples() * 2) {
            break;
          }
        }
        if (phase != Mix.BULK_LOAD) {
          // The second phase's throughput under the new policy, measured on its own.
          stop.set(true);
          load.get(2, TimeUnit.MINUTES);
          measured = LoadDriver.run(h.connection(), t, phase, keys, scale.readThreads(),
            scale.runSeconds(), 0);
          out.printf(Locale.ROOT, "[pcm] adaptation: %s on the PCM table after the switch: "
            + "%,.0f ops/s%n", phase.name(), measured.opsPerSec());
          List<PcmResult.TunerServer> servers = tuner.finish(t);
          state.tuner = new PcmResults.TunerRun(switched,
            applied == null ? Double.NaN : share(applied, PolicyKey.GLOBAL_MEMSTORE),
            applied == null ? Double.NaN : share(applied, PolicyKey.BLOCK_CACHE), servers);
          for (PcmResult.TunerServer ts : servers) {
            out.printf(Locale.ROOT, "[pcm] adaptation: heap tuner on %s%s: memstore share "
              + "%.3f -> %.3f, block cache %.3f -> %.3f (of the emulated heap), %d step(s) "
              + "seen%n", ts.server(), ts.servesPcmTable() ? " (serves the PCM table)" : "",
              ts.memstoreBefore(), ts.memstoreAfter(), ts.blockCacheBefore(),
              ts.blockCacheAfter(), ts.steps());
          }
        } else {
          measured = load.get(10, TimeUnit.MINUTES);
        }
        phases.add(new PcmResults.Phase(phase.name(), phase.expected(), switched, switchS,
          measured.opsPerSec()));
      }
    } finally {
      stop.set(true);
      pool.shutdownNow();
      if (tuner != null) {
        tuner.close();
      }
    }
    if (adaptRecords == 0) {
      adaptRecords = keys.inserted();
    }
    return phases;
  }

  /**
   * The second phase on a table of {@code side} with {@code policy} (null: none) applied,
   * loaded with the records of the first PCM table.
   */
  private double secondPhaseOn(EmbeddedHBase h, Admin admin, String name, Side side,
    WorkloadClass policy, Mix phase) throws Exception {
    long records = adaptRecords;
    if (records == 0) {
      records = scale.datasets().get(0);
      LOG.warn("adaptation: {} runs before any PCM table was loaded; loading {} records",
        name, records);
    }
    TableName t = TableName.valueOf(name);
    createTable(admin, t, side, 1);
    if (policy != null) {
      applyPolicy(admin, t, manager.recommend(policy, facts(records * 1000, 1)));
    }
    LoadDriver.KeySpace keys = new LoadDriver.KeySpace();
    LoadDriver.run(h.connection(), t, Mix.BULK_LOAD, keys, scale.writeThreads(),
      Double.MAX_VALUE, records);
    if (policy == null) {
      recordSplitPolicy(h, t, side);
    }
    LoadDriver.Outcome o = LoadDriver.run(h.connection(), t, phase, keys, scale.readThreads(),
      scale.runSeconds(), 0);
    out.printf(Locale.ROOT, "[pcm] adaptation: %s on %s: %,.0f ops/s%n", phase.name(),
      policy == null ? "the " + side.label() + " baseline" : "the " + policy + " policy kept",
      o.opsPerSec());
    return o.opsPerSec();
  }
}
