package io.strata.bench.faults;

import com.fasterxml.jackson.databind.JsonNode;
import io.strata.bench.common.BenchJson;
import io.strata.cli.CommandLines;
import io.strata.hbase.placement.FileKind;
import io.strata.hbase.placement.PlacedFile;
import io.strata.hbase.placement.PlacementReport;
import io.strata.hbase.placement.PlacementScanner;
import io.strata.hdfs.mover.PlacementCheck;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hdfs.DistributedFileSystem;

/**
 * {@code strata chaos}: faults injected into a running multi-process cluster
 * ({@code bin/strata-cluster} of the distribution) under a {@link VerifyingLoad}. For each fault:
 * throughput before, during and after; the time until writes run at half the rate before again;
 * every acknowledged write read back (lost, duplicated); the time until every store and
 * archived file is on its policy's tier again; the daemons that did not come back. One thread;
 * the load's writers run on their own.
 */
public final class FaultCampaign {
  /** The faults of {@code --quick}: one each of HBase, HDFS and Strata's own daemons. */
  public static final List<String> QUICK = List.of("kill-regionserver", "kill-datanode",
    "kill-tier-mover");
  public static final List<String> ALL = List.of("kill-regionserver", "kill-master", "kill-datanode",
    "kill-namenode", "kill-tier-mover", "kill-satisfier", "kill-zookeeper", "stop-regionserver",
    "stop-datanode", "partition-host", "slow-volume", "ram-tier-full", "malformed-rpc",
    "reboot-host", "power-loss", "kill-meta-regionserver", "kill-regionservers",
    "rolling-restart-regionservers", "lose-regionserver", "region-storm",
    "flush-compaction-storm", "alter-under-load", "snapshot-clone-cold", "volume-full",
    "volume-io-errors", "volume-stall", "kill-satisfier-mid-move");
  /** The faults that are operations on the table under load ({@link AdminStorms}). */
  static final List<String> STORMS = List.of("region-storm", "flush-compaction-storm",
    "alter-under-load", "snapshot-clone-cold");
  /**
   * Whose behaviour each fault's recovery shows: HBase's (its own failover, Strata only has to
   * stay out of the way), HDFS's, or Strata's (its own daemons, tiers or transport).
   */
  static final Map<String, String> SHOWS = Map.ofEntries(
    Map.entry("kill-regionserver", "HBase"), Map.entry("kill-master", "HBase"),
    Map.entry("kill-datanode", "HDFS"), Map.entry("kill-namenode", "HDFS"),
    Map.entry("kill-tier-mover", "Strata"), Map.entry("kill-satisfier", "Strata"),
    Map.entry("kill-zookeeper", "HBase"), Map.entry("stop-regionserver", "HBase"),
    Map.entry("stop-datanode", "HDFS"), Map.entry("partition-host", "HBase"),
    Map.entry("slow-volume", "Strata"), Map.entry("ram-tier-full", "Strata"),
    Map.entry("malformed-rpc", "Strata"), Map.entry("reboot-host", "Strata"),
    Map.entry("power-loss", "Strata"), Map.entry("kill-meta-regionserver", "HBase"),
    Map.entry("kill-regionservers", "HBase"), Map.entry("rolling-restart-regionservers", "HBase"),
    Map.entry("lose-regionserver", "HBase"), Map.entry("region-storm", "HBase"),
    Map.entry("flush-compaction-storm", "Strata"), Map.entry("alter-under-load", "Strata"),
    Map.entry("snapshot-clone-cold", "Strata"), Map.entry("volume-full", "HDFS"),
    Map.entry("volume-io-errors", "Strata"), Map.entry("volume-stall", "Strata"),
    Map.entry("kill-satisfier-mid-move", "Strata"));
  /**
   * The longest wait, in seconds, for placement to converge after a volume fault's repair:
   * upstream's satisfier self-retry timeout.
   */
  static final int VOLUME_PLACEMENT_S = 300;
  /** The WAL storage policy's key (upstream's). */
  static final String WAL_POLICY_KEY = "hbase.wal.storage.policy";
  /** The key that accepts every replica of a live WAL on the RAM tier (ALL_NVDIMM). */
  static final String WAL_VOLATILE_KEY = "strata.unsafe.wal.volatile.accept";
  /** How long a rebooted host's DataNode may take to report its blocks again. */
  static final int DATANODE_BACK_S = 120;
  /** Faults that need a cluster started with {@code --netns}. */
  static final List<String> NETNS_ONLY = List.of("partition-host");
  /** How long a stopped daemon or a cut-off host stays so: longer than the 20 s RPC timeout. */
  private static final int OUTAGE_S = 25;
  /** Load between two RegionServers of a rolling restart. */
  private static final int ROLL_PAUSE_S = 10;
  /** Concurrent malformed peers of {@code malformed-rpc}. */
  private static final int MALFORMED_PEERS = 4;
  /** How often slow-volume flushes the table while the volume is stalled. */
  static final int STALL_FLUSH_S = 8;

  static final String HEADER = "Injects faults into the multi-process cluster under a "
    + "load that records every acknowledged write, and reads it all back after each recovery.\n\n";

  private final ClusterControl ctl;
  private final VolumeFaultRuns volumes;
  private final TierFaultRuns tiers;
  private final HostFaultRuns hosts;
  private final PrintStream out;
  private final Settings s;
  private final DiskGuard disk;

  /**
   * What one run is given. {@code impatientTimeoutMs}: the operation timeout of the connection
   * every second writer uses, shorter than a kill's outage ({@code downS}) so that calls time out
   * while their writes may still land, which the ledger must resolve.
   */
  public record Settings(int threads, int baselineS, int downS, int recoverS, int placementS,
    int valueBytes, int impatientTimeoutMs, int maxWritesPerS, long minFreeBytes) {
    public Settings {
      if (maxWritesPerS < 0 || minFreeBytes < 0) {
        throw new IllegalArgumentException("maxWritesPerS " + maxWritesPerS + " and minFreeBytes "
          + minFreeBytes + " must be 0 (none) or more");
      }
      if (impatientTimeoutMs <= 0 || impatientTimeoutMs >= downS * 1000) {
        throw new IllegalArgumentException("impatientTimeoutMs " + impatientTimeoutMs
          + " must be above 0 and below the outage of " + downS + " s");
      }
    }

    public static Settings quick() {
      return new Settings(4, 10, 5, 240, 120, 512, 2000, ChaosCommand.DEFAULT_MAX_WRITES_PER_S,
        (long) ChaosCommand.DEFAULT_MIN_FREE_GB << 30);
    }
  }

  public FaultCampaign(File clusterScript, File clusterDir, Settings settings, PrintStream out) {
    this.ctl = new ClusterControl(clusterScript, clusterDir);
    this.s = settings;
    this.out = out;
    this.disk = new DiskGuard(clusterDir, settings.minFreeBytes());
    this.volumes = new VolumeFaultRuns(ctl, out);
    this.tiers = new TierFaultRuns(ctl, out);
    this.hosts = new HostFaultRuns(ctl, out, settings.downS());
  }

  public static void main(String[] args) {
    CommandLines.runAndHalt("strata chaos", () -> run(args, System.out));
  }

  static int run(String[] args, PrintStream out) throws Exception {
    return ChaosCommand.run(new ChaosCommand(), args, out, o -> campaign(o, args, out));
  }

  /** The campaign {@code o} asks for: 0 when every fault recovered with nothing lost. */
  private static int campaign(ChaosCommand.Options o, String[] args, PrintStream out)
    throws Exception {
    Settings base = Settings.quick();
    Settings settings = new Settings(o.threads(), base.baselineS(), base.downS(),
      base.recoverS(), base.placementS(), base.valueBytes(), base.impatientTimeoutMs(),
      o.maxWritesPerS(), o.minFreeBytes());
    FaultCampaign c = new FaultCampaign(new File(o.distHome(), "bin/strata-cluster"), o.dir(),
      settings, out);
    JsonNode clusterStatus = c.ctl.status();
    boolean netns = clusterStatus.path("netns").asBoolean(false);
    if (o.walPolicy() != null) {
      String has = walPolicy(new File(clusterStatus.path("conf").asText(), "hbase-site.xml"));
      if (!o.walPolicy().equals(has)) {
        System.err.println("strata chaos: --wal-policy " + o.walPolicy() + " but the cluster's "
          + WAL_POLICY_KEY + " is " + has + ": start it with 'strata cluster up --wal-policy "
          + o.walPolicy() + "'");
        return 2;
      }
    }
    Schedule schedule;
    if (o.random() > 0) {
      List<String> pool = new ArrayList<>(o.named() ? o.faults() : ALL);
      if (!netns) {
        pool.removeAll(NETNS_ONLY);
      }
      schedule = Schedule.random(pool, o.random(),
        o.seed() != null ? o.seed() : System.currentTimeMillis());
    } else {
      for (String f : o.faults()) {
        if (!netns && NETNS_ONLY.contains(f)) {
          System.err.println("strata chaos: fault '" + f + "' cuts a host off its network "
            + "namespace's bridge: it needs a cluster started with 'strata cluster up --netns'");
          return 2;
        }
      }
      schedule = Schedule.fixed(o.faults(), base.baselineS());
    }
    ChaosResult results = c.run(schedule);
    if (o.json() != null) {
      BenchJson.write(o.json(), results);
      out.println("results written to " + o.json());
    }
    if (o.report() != null) {
      ChaosReport.write(o.report(), results,
        "strata chaos " + String.join(" ", args).replaceAll("--(dist-home|dir) \\S+ ?", "")
          .trim());
      out.println("report written to " + o.report() + "/report.md");
    }
    if (results.stopped() != null) {
      System.err.println("strata chaos: stopped early: " + results.stopped());
    }
    return allRecovered(results) ? 0 : 1;
  }

  /** The WAL storage policy an hbase-site sets (upstream's default when it sets none). */
  static String walPolicy(File hbaseSite) {
    Configuration c = new Configuration(false);
    c.addResource(new Path(hbaseSite.toURI()));
    return c.get(WAL_POLICY_KEY, "NONE");
  }

  static boolean allRecovered(ChaosResult results) {
    for (ChaosResult.Fault f : results.faults()) {
      if (f.isSkipped()) {
        continue;
      }
      if (!Boolean.TRUE.equals(f.recovered()) || !zero(f.lost()) || !zero(f.duplicated())
        || !zeroOrAbsent(f.unreadable()) || !zeroOrAbsent(f.readProblems())) {
        return false;
      }
    }
    // A campaign stopped before its last fault (the disk guard) did not show what it was for.
    if (results.stopped() != null) {
      return false;
    }
    // The final pass, after the load stopped, when the campaign got to it.
    return results.finalVerified() == null || results.finalVerified();
  }

  private static boolean zero(Long n) {
    return n != null && n == 0;
  }

  private static boolean zeroOrAbsent(Long n) {
    return n == null || n == 0;
  }

  /**
   * Which faults, in which order, after how many seconds of load each; with the seed when drawn
   * at random, so a run can be repeated.
   */
  public record Schedule(List<String> faults, List<Integer> loadBeforeS, Long seed) {
    static Schedule fixed(List<String> faults, int loadBeforeS) {
      return new Schedule(faults, java.util.Collections.nCopies(faults.size(), loadBeforeS),
        null);
    }

    static Schedule random(List<String> pool, int n, long seed) {
      java.util.Random r = new java.util.Random(seed);
      List<String> f = new ArrayList<>();
      List<Integer> gaps = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        f.add(pool.get(r.nextInt(pool.size())));
        gaps.add(5 + r.nextInt(16));
      }
      return new Schedule(f, gaps, seed);
    }
  }

  /** Runs the faults one after the other under one load; the results. */
  public ChaosResult run(List<String> faults) throws Exception {
    return run(Schedule.fixed(faults, s.baselineS()));
  }

  /** Runs a schedule under one load; the results. */
  public ChaosResult run(Schedule schedule) throws Exception {
    JsonNode status = ctl.status();
    Configuration conf = HBaseConfiguration.create();
    conf.addResource(new Path(new File(status.get("conf").asText(), "hbase-site.xml").toURI()));
    conf.addResource(new Path(new File(status.get("conf").asText(), "hdfs-site.xml").toURI()));
    // A call blocked by a fault gives up (and counts as not acknowledged) rather than hang.
    conf.setInt(HConstants.HBASE_CLIENT_OPERATION_TIMEOUT, 60_000);
    conf.setInt(HConstants.HBASE_RPC_TIMEOUT_KEY, 20_000);
    // What every kept result names: the code, the day, the transport and the media emulation.
    // The commit of the source tree the launcher names, as for every bench (unknown without it).
    io.strata.bench.common.RunLabels labels = io.strata.bench.common.RunLabels.now(
      io.strata.bench.common.RunLabels.transportOf(conf.get("strata.rdma.transport")),
      status.path("emulation").asText("none"));
    List<ChaosResult.Fault> results = new ArrayList<>();
    TableName table = TableName.valueOf("strata_chaos");
    // Every second writer's connection: it gives up on a call before a killed daemon is back,
    // so that calls end while their writes may still land (ambiguous writes, resolved by the
    // verifications).
    Configuration impatientConf = new Configuration(conf);
    impatientConf.setInt(HConstants.HBASE_CLIENT_OPERATION_TIMEOUT, s.impatientTimeoutMs());
    impatientConf.setInt(HConstants.HBASE_RPC_TIMEOUT_KEY, s.impatientTimeoutMs());
    List<ChaosResult.Marker> markers = new ArrayList<>();
    List<Long> perSecond = new ArrayList<>();
    ChaosResult.Final fin;
    boolean verified;
    String stopped = null;
    try (Connection conn = ConnectionFactory.createConnection(conf);
      Connection impatient = ConnectionFactory.createConnection(impatientConf)) {
      try (Admin admin = conn.getAdmin()) {
        if (!admin.tableExists(table)) {
          byte[][] splits = new byte[][] { Bytes.toBytes("c"), Bytes.toBytes("i"),
            Bytes.toBytes("p") };
          admin.createTable(TableDescriptorBuilder.newBuilder(table)
            .setColumnFamily(ColumnFamilyDescriptorBuilder.of(VerifyingLoad.FAMILY)).build(),
            splits);
        }
      }
      DistributedFileSystem dfs = (DistributedFileSystem) FileSystem.get(
        URI.create(status.get("hdfs").asText()), conf);
      WriteRate rate = new WriteRate(s.maxWritesPerS());
      out.printf(Locale.ROOT, "load: %s%n", rate.describe(s.threads(), s.valueBytes()));
      try (VerifyingLoad load = new VerifyingLoad(conn, impatient, table, s.threads(),
        s.valueBytes(), rate)) {
        load.start();
        for (int i = 0; i < schedule.faults().size(); i++) {
          String fault = schedule.faults().get(i);
          String full = disk.check();
          if (full != null) {
            // No further fault: the final pass below still reads every write back.
            List<String> notRun = schedule.faults().subList(i, schedule.faults().size());
            stopped = "before fault " + fault + ": " + full + "; not run: "
              + String.join(", ", notRun);
            out.printf(Locale.ROOT, "disk guard: %s%n", stopped);
            for (String f : notRun) {
              results.add(ChaosResult.Fault.skipped(f, "", SHOWS.getOrDefault(f, "Strata"),
                "not run: " + full));
            }
            break;
          }
          try {
            results.add(inject(fault, schedule.loadBeforeS().get(i), load, conn, dfs, conf,
              markers));
          } catch (IOException | RuntimeException e) {
            // The campaign goes on: this fault counts as not recovered, with why; the writes are
            // still read back after it and in the final pass.
            out.printf(Locale.ROOT, "%s: %s%n", fault, e);
            if (e instanceof RuntimeException) {
              e.printStackTrace(out);
            }
            long acked = load.ackedWrites();
            Ledger.Verdict v;
            try {
              v = load.verify();
            } catch (IOException verifyError) {
              v = null; // not known: lost and duplicated -1
            }
            results.add(ChaosResult.Fault.failed(fault, acked, v, e.toString()));
          }
        }
        // Acknowledged writes per second over the whole run, for the plot with the markers.
        for (long n : load.ackedPerSecond(0, (int) load.elapsedS())) {
          perSecond.add(n);
        }
        // The final pass: the load stopped, every write it recorded read back, those acknowledged
        // after the last fault's verification included, every ambiguous one resolved.
        out.printf(Locale.ROOT, "final pass: load stopped, reading back every write%n");
        Ledger.Verdict v = null;
        String error = null;
        List<String> problems = new ArrayList<>();
        try {
          v = load.stopAndVerify();
          problems.addAll(v.examples());
          verified = v.verified();
          out.printf(Locale.ROOT, "final pass: acknowledged %d, checked %d, ambiguous %d (landed "
            + "%d, not landed %d, unresolved %d), lost %d, duplicated %d, unreadable %d%n",
            v.acked(), v.checked(), v.ambiguous(), v.ambiguousLanded(), v.ambiguousNotLanded(),
            v.ambiguousUnresolved(), v.lost(), v.duplicated(), v.unreadable());
        } catch (IOException e) {
          error = e.toString();
          verified = false;
        }
        // Read problems after the last fault's verification: not in any fault's examples.
        problems.addAll(load.takeReadExamples());
        fin = ChaosResult.Final.of(v, error, problems, load.readsChecked(), load.readProblems());
      }
    }
    ChaosResult.Schedule sched = new ChaosResult.Schedule(schedule.seed() != null,
      schedule.seed(), List.copyOf(schedule.faults()), List.copyOf(schedule.loadBeforeS()));
    // Whose durability the host faults show: the WAL policy the RegionServers write with.
    return new ChaosResult(labels.commit(), labels.date(), labels.transport(),
      labels.emulation(), conf.get(WAL_POLICY_KEY, "NONE"),
      conf.getBoolean(WAL_VOLATILE_KEY, false), results, s.impatientTimeoutMs(), markers,
      perSecond, fin, verified, sched, stopped, null).withAllRecovered();
  }

  private ChaosResult.Fault inject(String fault, int loadBeforeS, VerifyingLoad load,
    Connection conn, DistributedFileSystem dfs, Configuration conf,
    List<ChaosResult.Marker> markers) throws Exception {
    String daemon = fault.substring(fault.indexOf('-') + 1);
    String name = daemon.equals("regionserver") || daemon.equals("datanode") ? daemon + "-1"
      : daemon.equals("host") ? "strata-h1" : fault.equals("power-loss") ? "hosts with live WALs"
      : fault.equals("slow-volume") ? "datanode-1 (ssd)"
      : fault.equals("ram-tier-full") ? "NVDIMM tier"
      : fault.equals("malformed-rpc") ? "regionserver-1 (RPC port)"
      : STORMS.contains(fault) ? "table strata_chaos"
      : VolumeFaults.FAULTS.contains(fault) ? "datanode-1 (" + volumeOf(fault) + " loop volume)"
      : daemon;
    if (VolumeFaults.FAULTS.contains(fault)) {
      // Never silently: a cluster without loop volumes gets a skipped entry saying why.
      String why = VolumeFaults.skipReason(ctl.status().path("emulation").asText("none"),
        ctl.mediaState(), 1, volumeOf(fault));
      if (why != null) {
        out.printf(Locale.ROOT, "%s: skipped: %s%n", fault, why);
        return ChaosResult.Fault.skipped(fault, name, SHOWS.get(fault), why);
      }
    }
    // What the fault did, part by part; the recovery's own observations last.
    ChaosResult.Observed observed = ChaosResult.Observed.NONE;
    String metaServer = null;
    Boolean servedWithoutIt = null;
    Seconds clearedAfter = null;
    Seconds satisfierStarted = null;
    Map<String, Integer> restarts = new java.util.LinkedHashMap<>();
    File restartLog = null;
    long restartLogFrom = 0;
    long restartNanos = 0;
    long readsFrom = load.readsChecked();
    long readProblemsFrom = load.readProblems();
    out.printf(Locale.ROOT, "%s: %d s of load before it%n", fault, loadBeforeS);
    Thread.sleep(TimeUnit.SECONDS.toMillis(loadBeforeS));
    int faultAt = (int) load.elapsedS();
    double before = mean(load.ackedPerSecond(faultAt - loadBeforeS + 1, faultAt));
    String lost = null;
    SatisfierMidMove midMove = null;
    long moveBytes = 0;
    double movedShareWhenKilled = -1;
    double movedShareAfterKill = 0;
    if (fault.equals("kill-satisfier-mid-move")) {
      // Killed while it moves: files written on DISK, their policy changed to COLD and handed to
      // it, and the kill once some of their replicas, not all, are on ARCHIVE.
      name = "satisfier";
      midMove = new SatisfierMidMove(dfs, out);
      moveBytes = midMove.write();
      midMove.ask();
      movedShareWhenKilled = midMove.awaitMidMove(s.recoverS());
      restartLog = new File(ctl.daemonLog(name));
      restartLogFrom = restartLog.length();
      ctl.cluster("kill", name);
      movedShareAfterKill = (double) midMove.archived()[0] / Math.max(1, midMove.archived()[1]);
      Thread.sleep(TimeUnit.SECONDS.toMillis(s.downS()));
      restartNanos = System.nanoTime();
      ctl.cluster("start", name);
    } else if (fault.equals("kill-regionservers")) {
      // Every RegionServer at once (hbase-it's batch kill): no server left to take the regions
      // until they are back, so every region goes through WAL splitting.
      List<String> servers = ctl.regionServers();
      for (String rs : servers) {
        ctl.cluster("kill", rs);
      }
      Thread.sleep(TimeUnit.SECONDS.toMillis(s.downS()));
      for (String rs : servers) {
        ctl.cluster("start", rs);
      }
      name = String.join(", ", servers);
    } else if (fault.equals("rolling-restart-regionservers")) {
      // The upgrade path: each RegionServer stopped gracefully (TERM: it closes its regions,
      // flushing them, and the master moves them) and started again, one after the other.
      List<String> servers = ctl.regionServers();
      for (String rs : servers) {
        ctl.cluster("stop", rs);
        ctl.cluster("start", rs);
        Thread.sleep(TimeUnit.SECONDS.toMillis(ROLL_PAUSE_S));
      }
      name = String.join(", ", servers) + " (one at a time)";
    } else if (fault.equals("lose-regionserver")) {
      // Not back until this fault's verification has run: the master must notice the loss (the
      // server's ZooKeeper session expiring) and reassign its regions to the others, the slow
      // path a restart with a new start code skips.
      name = "regionserver-1";
      lost = name;
      ctl.cluster("kill", name);
    } else if (fault.startsWith("kill-")) {
      if (fault.equals("kill-meta-regionserver")) {
        name = ctl.metaServer(conn);
        metaServer = name;
      }
      ctl.cluster("kill", name);
      Thread.sleep(TimeUnit.SECONDS.toMillis(s.downS()));
      restartLog = new File(ctl.daemonLog(name));
      restartLogFrom = restartLog.length();
      restartNanos = System.nanoTime();
      ctl.cluster("start", name);
    } else if (STORMS.contains(fault)) {
      AdminStorms storms = new AdminStorms(conn, TableName.valueOf("strata_chaos"), out);
      if (fault.equals("region-storm")) {
        observed = observed.with(storms.regionStorm(OUTAGE_S));
      } else if (fault.equals("flush-compaction-storm")) {
        observed = observed.with(storms.flushCompactionStorm(OUTAGE_S));
      } else if (fault.equals("snapshot-clone-cold")) {
        observed = observed.with(snapshotCloneCold(load, conn, dfs, conf));
      } else {
        observed = observed.with(storms.alterUnderLoad(OUTAGE_S));
      }
    } else if (fault.equals("slow-volume")) {
      observed = tiers.slowVolume(conn);
    } else if (fault.equals("ram-tier-full")) {
      observed = observed.with(tiers.ramTierFull(conn, dfs, conf));
    } else if (fault.equals("volume-full")) {
      observed = volumes.volumeFull(conn, dfs, conf);
    } else if (fault.equals("volume-io-errors")) {
      observed = volumes.volumeIoErrors(conn, dfs, conf);
    } else if (fault.equals("volume-stall")) {
      observed = volumes.volumeStall(conn);
    } else if (fault.equals("malformed-rpc")) {
      observed = observed.with(malformedRpc());
    } else if (fault.equals("reboot-host") || fault.equals("power-loss")) {
      HostFaultRuns.Rebooted r = hosts.reboot(fault, dfs, conf);
      name = r.name();
      observed = observed.with(r.observed());
    } else if (fault.equals("partition-host")) {
      // Host 1 (DataNode 1 and RegionServer 1) loses its network, its processes live on.
      ClusterControl.ip("link", "set", "st-h1", "down");
      Thread.sleep(TimeUnit.SECONDS.toMillis(OUTAGE_S));
      ClusterControl.ip("link", "set", "st-h1", "up");
    } else {
      // Stopped for longer than the client's RPC timeout, then continued.
      ctl.cluster("kill", name, "--signal", "STOP");
      Thread.sleep(TimeUnit.SECONDS.toMillis(OUTAGE_S));
      ctl.cluster("kill", name, "--signal", "CONT");
    }
    int repairedAt = (int) load.elapsedS();
    markers.add(new ChaosResult.Marker(fault, faultAt, repairedAt));
    // Writes resumed: the first second after the fault at half the rate before it or more.
    double resumedS = -1;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(s.recoverS());
    boolean hostFault = fault.equals("reboot-host") || fault.equals("power-loss");
    long nextSupervision = System.nanoTime();
    while (resumedS < 0 && System.nanoTime() < deadline) {
      Thread.sleep(1000);
      if (hostFault && System.nanoTime() >= nextSupervision) {
        hosts.superviseAfterReboot(fault, restarts);
        nextSupervision = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      }
      int now = (int) load.elapsedS();
      long[] since = load.ackedPerSecond(faultAt, now);
      for (int i = 0; i < since.length; i++) {
        if (faultAt + i > repairedAt && since[i] >= Math.max(1, before / 2)) {
          resumedS = i;
          break;
        }
      }
    }
    int resumedAt = (int) load.elapsedS();
    Thread.sleep(5000);
    int end = (int) load.elapsedS();
    double during = mean(load.ackedPerSecond(faultAt, Math.max(faultAt + 1, resumedAt)));
    double after = mean(load.ackedPerSecond(resumedAt, end));
    if (hostFault) {
      hosts.superviseAfterReboot(fault, restarts);
      observed = observed.with(observed.host().withRestarts(restarts));
    }
    Ledger.Verdict v = load.verify();
    // Reads checked from this fault's load before it until its verification.
    long readsChecked = load.readsChecked() - readsFrom;
    long readProblems = load.readProblems() - readProblemsFrom;
    List<String> readExamples = load.takeReadExamples();
    if (lost != null) {
      servedWithoutIt = true;
      ctl.cluster("start", lost);
    }
    // A volume fault's repair leaves files written meanwhile on the policies' fallbacks, which
    // only the satisfier moves back, at upstream's pace: a file whose target storage type was
    // missing is retried on the satisfier's re-checks (a minute apart) and within its
    // self-retry timeout (5 minutes); the other faults move nothing.
    int placementLimitS = VolumeFaults.FAULTS.contains(fault)
      ? Math.max(s.placementS(), VOLUME_PLACEMENT_S) : s.placementS();
    double placementS = placementConverged(conn, dfs, conf, placementLimitS);
    // After a storm every region is open again: none left in transition.
    boolean settled = true;
    if (STORMS.contains(fault)) {
      double clearedS = regionsSettled(conn);
      settled = clearedS >= 0;
      clearedAfter = Seconds.orNotWithin(clearedS, s.recoverS());
      if (fault.equals("alter-under-load")) {
        settled &= Boolean.TRUE.equals(observed.alter().invalidAlterRefused())
          && Boolean.TRUE.equals(observed.alter().restored());
      }
      if (fault.equals("snapshot-clone-cold")) {
        settled &= Boolean.TRUE.equals(observed.cloneCold().cloneVerified());
      }
    }
    // The move cut short must end: every file on ARCHIVE at full replication, and intact.
    if (midMove != null) {
      double inPlace = midMove.awaitInPlace(s.placementS());
      List<String> corrupted = midMove.corrupted();
      List<String> problems = new ArrayList<>(corrupted);
      // The killed satisfier's marks: cleared by the restarted one, else the files are stranded.
      List<String> marked = midMove.marksLeft(s.placementS());
      problems.addAll(marked);
      boolean caught = movedShareWhenKilled >= 0;
      observed = observed.with(new ChaosResult.MidMove(moveBytes, caught,
        caught ? movedShareWhenKilled : null, movedShareAfterKill,
        Seconds.orNotWithin(inPlace, s.placementS()), corrupted.size(), problems,
        marked.size()));
      settled &= caught && inPlace >= 0 && corrupted.isEmpty() && marked.isEmpty();
      midMove.delete();
    }
    // A volume fault must also have done what it is about (the NameNode saw the volume full;
    // the DataNode found the failed volume and the replicas were re-replicated).
    if (VolumeFaults.FAULTS.contains(fault)) {
      settled &= observed.dataNode() != null
        && Boolean.TRUE.equals(observed.dataNode().faultEffectSeen());
    }
    // A satisfier restarted while the killed one's lease lives waits (up to 2 min) before it
    // serves, and may still give up: it is back once it says it started.
    boolean notStarted = false;
    if (name.equals("satisfier") && restartLog != null) {
      double readyS = satisfierStarted(restartLog, restartLogFrom, restartNanos);
      notStarted = readyS < 0;
      satisfierStarted = Seconds.orNotWithin(readyS, SATISFIER_START_S);
    }
    if (metaServer != null || servedWithoutIt != null || clearedAfter != null
      || satisfierStarted != null) {
      observed = observed.with(new ChaosResult.Recovery(metaServer, servedWithoutIt,
        clearedAfter, satisfierStarted));
    }
    List<String> notBack = new ArrayList<>();
    for (JsonNode d : ctl.status().get("daemons")) {
      if (!d.get("alive").asBoolean()) {
        notBack.add(d.get("name").asText());
      }
    }
    boolean recovered = resumedS >= 0 && placementS >= 0 && notBack.isEmpty() && !notStarted
      && v.unreadable() == 0 && settled;
    // Why each one is down, from its own logs, so that a run on another machine explains itself.
    Map<String, String> why = new java.util.LinkedHashMap<>();
    for (String d : notBack) {
      String reason = whyDown(d);
      why.put(d, reason);
      out.printf(Locale.ROOT, "%s: why %s is down, from its logs:%n%s%n", fault, d, reason);
    }
    // Started again, as a supervisor (systemd, an operator) would, so that the next fault meets
    // a whole cluster; the fault still counts as not recovered.
    for (String d : notBack) {
      out.printf(Locale.ROOT, "%s: %s did not come back (its log: why); starting it again%n",
        fault, d);
      ctl.cluster("start", d);
    }
    List<String> problems = new ArrayList<>(v.examples());
    problems.addAll(readExamples);
    // The ledger: every write acknowledged before the verification began (before and during
    // the fault) was read back (checked), or its row could not be (unreadable); every failed
    // call's write (ambiguous) was read back to see whether it landed.
    ChaosResult.Fault r = new ChaosResult.Fault(fault, name, SHOWS.getOrDefault(fault, "Strata"),
      null, null, v.acked(), v.checked(), v.ambiguous(), v.ambiguousLanded(),
      v.ambiguousNotLanded(), v.ambiguousUnresolved(), v.lost(), v.duplicated(),
      v.unreadable(), load.failedCalls(), readsChecked, readProblems, Seconds.orNot(resumedS),
      Seconds.orNot(placementS), before, during, after, notBack,
      notBack.isEmpty() ? null : why, recovered, observed.isEmpty() ? null : observed, problems,
      null);
    out.printf(Locale.ROOT, "%s: acknowledged %d, checked %d, ambiguous %d (landed %d), lost %d, "
      + "duplicated %d, unreadable %d; reads checked %d, read problems %d; writes resumed after "
      + "%s s; placement converged after %s s; ops/s before %.0f, during %.0f, after %.0f; not "
      + "back: %s%n", fault, v.acked(), v.checked(), v.ambiguous(), v.ambiguousLanded(),
      v.lost(), v.duplicated(), v.unreadable(), readsChecked, readProblems,
      resumedS < 0 ? "(not)" : String.format(Locale.ROOT, "%.0f", resumedS),
      placementS < 0 ? "(not)" : String.format(Locale.ROOT, "%.1f", placementS), before, during,
      after, notBack.isEmpty() ? "none" : notBack);
    return r;
  }

  /**
   * {@code malformed-rpc}: {@link #MALFORMED_PEERS} peers connect to RegionServer 1's RPC port
   * for {@link #OUTAGE_S} s, each connection breaking HBase's RPC framing one way
   * ({@link MalformedRpc.Kind}); records how many connections the server closed and how many it
   * left open. The load must not notice.
   */
  private ChaosResult.Rpc malformedRpc() throws Exception {
    String address = null;
    for (JsonNode d : ctl.status().get("daemons")) {
      if (d.get("name").asText().equals("regionserver-1")) {
        address = d.get("address").asText();
      }
    }
    if (address == null || !address.contains(":")) {
      throw new IllegalStateException("regionserver-1 has no RPC address in the cluster status");
    }
    int colon = address.lastIndexOf(':');
    MalformedRpc peers = new MalformedRpc(new InetSocketAddress(address.substring(0, colon),
      Integer.parseInt(address.substring(colon + 1))));
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(OUTAGE_S);
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < MALFORMED_PEERS; i++) {
      long seed = 2026 + i;
      Thread t = new Thread(() -> peers.run(until, seed), "malformed-rpc-" + i);
      t.setDaemon(true);
      t.start();
      threads.add(t);
    }
    for (Thread t : threads) {
      t.join(TimeUnit.SECONDS.toMillis(OUTAGE_S + 30));
    }
    Map<String, Long> kinds = new java.util.LinkedHashMap<>();
    peers.sentPerKind().forEach((k, v) -> kinds.put(k.name().toLowerCase(Locale.ROOT), v));
    out.printf(Locale.ROOT, "malformed-rpc: %d connections to %s, %d closed by the server "
      + "within %d ms, %d left open, %d refused%n", peers.connections(), address,
      peers.closedByServer(), MalformedRpc.WAIT_MS, peers.leftOpen(), peers.refused());
    return new ChaosResult.Rpc(address, peers.connections(), peers.closedByServer(),
      peers.leftOpen(), MalformedRpc.WAIT_MS, peers.refused(), kinds);
  }

  /** The volume a block-layer fault acts on: DataNode 1's SSD (HFiles are flushed to SSD). */
  static String volumeOf(String fault) {
    return "ssd";
  }

  /** How long a restarted satisfier may take to start: its lease wait (2 min) and some. */
  private static final int SATISFIER_START_S = 180;

  /**
   * Seconds from its restart ({@code restartNanos}) until the satisfier's log, after
   * {@code from}, says it started; -1 when it exits first or does not within
   * {@link #SATISFIER_START_S} of the restart.
   */
  private double satisfierStarted(File log, long from, long restartNanos) throws Exception {
    long start = restartNanos;
    long deadline = start + TimeUnit.SECONDS.toNanos(SATISFIER_START_S);
    while (System.nanoTime() < deadline) {
      for (String l : TierFaults.logSince(log, from)) {
        if (l.contains("Storage Policy Satisfier started for")) {
          return (System.nanoTime() - start) / 1e9;
        }
      }
      boolean alive = false;
      for (JsonNode d : ctl.status().get("daemons")) {
        if (d.get("name").asText().equals("satisfier")) {
          alive = d.get("alive").asBoolean();
        }
      }
      if (!alive) {
        return -1;
      }
      Thread.sleep(2000);
    }
    return -1;
  }

  /**
   * The last lines of a stopped daemon's log that say why it stopped (FATAL, ERROR, an abort,
   * running out of heap), and the end of its stdout/stderr file, where the JVM writes a crash or
   * an OutOfMemoryError exit.
   */
  String whyDown(String daemon) {
    try {
      return whyDown(daemon, new File(ctl.daemonLog(daemon)));
    } catch (Exception e) {
      return "  its logs could not be found: " + e;
    }
  }

  static String whyDown(String daemon, File log) {
    StringBuilder b = new StringBuilder();
    try {
      List<String> telling = new ArrayList<>();
      for (String line : tail(log, 4 << 20)) {
        if (line.contains("vmInputArguments")) {
          continue; // the JVM's flags name OutOfMemoryError too
        }
        if (line.contains(" FATAL ") || line.contains(" ERROR ") || line.contains("ABORTING")
          || line.contains("OutOfMemoryError") || line.startsWith("Caused by:")) {
          telling.add(line.length() > 600 ? line.substring(0, 600) + " ..." : line);
        }
      }
      for (String line : telling.subList(Math.max(0, telling.size() - 12), telling.size())) {
        b.append("  ").append(log.getName()).append(": ").append(line).append('\n');
      }
      File outFile = new File(log.getParentFile(), daemon + ".out");
      List<String> outLines = tail(outFile, 64 << 10);
      for (String line : outLines.subList(Math.max(0, outLines.size() - 8), outLines.size())) {
        b.append("  ").append(outFile.getName()).append(": ").append(line).append('\n');
      }
      File[] crashes = log.getParentFile().listFiles((dir, n) -> n.startsWith(daemon + "-hs_err"));
      if (crashes != null && crashes.length > 0) {
        b.append("  JVM crash file: ").append(crashes[0]).append('\n');
      }
    } catch (Exception e) {
      b.append("  its logs could not be read: ").append(e);
    }
    return b.length() == 0 ? "  nothing in its logs says why" : b.toString();
  }

  /** The whole lines of the last {@code bytes} of a file; none when it does not exist. */
  private static List<String> tail(File f, long bytes) throws IOException {
    if (!f.isFile()) {
      return List.of();
    }
    long from = Math.max(0, f.length() - bytes);
    List<String> lines = new ArrayList<>(TierFaults.logSince(f, from));
    if (from > 0 && !lines.isEmpty()) {
      lines.remove(0); // the first line read starts mid-line
    }
    return lines;
  }

  /**
   * Flushes the table and waits until every flushed, compacted and archived file of the root is
   * where its storage policy wants its blocks; seconds waited, or -1 after the limit.
   */
  private double placementConverged(Connection conn, DistributedFileSystem dfs,
    Configuration conf, int limitS) throws Exception {
    long start = System.nanoTime();
    long deadline = start + TimeUnit.SECONDS.toNanos(limitS);
    // A master that was just restarted answers "initializing" for a while: ask again.
    while (true) {
      try (Admin admin = conn.getAdmin()) {
        admin.flush(TableName.valueOf("strata_chaos"));
        break;
      } catch (IOException e) {
        if (System.nanoTime() > deadline) {
          out.printf(Locale.ROOT, "placement: the table could not be flushed within %d s: %s%n",
            limitS, e);
          return -1;
        }
        Thread.sleep(5000);
      }
    }
    Path root = new Path(conf.get(HConstants.HBASE_DIR));
    while (System.nanoTime() < deadline) {
      PlacementReport report = new PlacementScanner(dfs, conf).scan(root);
      List<Path> placed = new ArrayList<>();
      for (PlacedFile f : report.files()) {
        if (f.kind() == FileKind.FLUSHED || f.kind() == FileKind.COMPACTED
          || f.kind() == FileKind.ARCHIVED) {
          placed.add(new Path(f.path()));
        }
      }
      // unsatisfied skips files archived or compacted away since the scan (HBase moves on).
      if (PlacementCheck.unsatisfied(dfs, placed).isEmpty()) {
        return (System.nanoTime() - start) / 1e9;
      }
      Thread.sleep(2000);
    }
    return -1;
  }

  /**
   * {@code snapshot-clone-cold}: the writes acknowledged so far noted, the table snapshotted
   * under load, then major-compacted, so that every file the snapshot holds is archived (and
   * Strata places archived files on the archive policy, COLD by default); once they are placed,
   * the snapshot is cloned into a new table, which then reads every noted write from those
   * archived files: each must be there with its value. The clone and the snapshot are deleted.
   */
  private ChaosResult.CloneCold snapshotCloneCold(VerifyingLoad load, Connection conn,
    DistributedFileSystem dfs, Configuration conf) throws Exception {
    TableName table = TableName.valueOf("strata_chaos");
    String stamp = Long.toString(System.currentTimeMillis(), 36);
    String snapshot = "strata_chaos_snap_" + stamp;
    TableName clone = TableName.valueOf("strata_chaos_clone_" + stamp);
    Map<String, Ledger.Expected> before = load.acknowledgedNow();
    try (Admin admin = conn.getAdmin()) {
      long t0 = System.nanoTime();
      admin.snapshot(snapshot, table);
      double snapshotS = (System.nanoTime() - t0) / 1e9;
      try {
        t0 = System.nanoTime();
        admin.majorCompact(table);
        // The request returns at once; the compactions end when the state is NONE again.
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(s.placementS());
        Thread.sleep(2000);
        while (admin.getCompactionState(table) != org.apache.hadoop.hbase.client.CompactionState.NONE
          && System.nanoTime() < until) {
          Thread.sleep(1000);
        }
        double compactionS = (System.nanoTime() - t0) / 1e9;
        // The archived files on their policy's types before the clone reads them.
        double placed = placementConverged(conn, dfs, conf, s.placementS());
        Path archive = new Path(new Path(conf.get(HConstants.HBASE_DIR)),
          "archive/data/default/strata_chaos");
        int archived = 0;
        int onArchive = 0;
        org.apache.hadoop.fs.RemoteIterator<org.apache.hadoop.fs.LocatedFileStatus> files =
          dfs.listFiles(archive, true);
        while (files.hasNext()) {
          org.apache.hadoop.fs.LocatedFileStatus f = files.next();
          archived++;
          boolean all = f.getBlockLocations().length > 0;
          for (org.apache.hadoop.fs.BlockLocation b : f.getBlockLocations()) {
            for (org.apache.hadoop.fs.StorageType t : b.getStorageTypes()) {
              all &= t == org.apache.hadoop.fs.StorageType.ARCHIVE;
            }
          }
          onArchive += all ? 1 : 0;
        }
        t0 = System.nanoTime();
        admin.cloneSnapshot(snapshot, clone);
        double cloneS = (System.nanoTime() - t0) / 1e9;
        Ledger.Verdict v = load.verify(clone, before, VerifyingLoad.VERIFY_PATIENCE_S);
        out.printf(Locale.ROOT, "snapshot-clone-cold: %d writes acknowledged before the snapshot; "
          + "%d archived files (%d with every replica on ARCHIVE); the clone read %d of them "
          + "back, lost %d, unreadable %d%n", before.size(), archived, onArchive, v.checked(),
          v.lost(), v.unreadable());
        return new ChaosResult.CloneCold(snapshot, before.size(), snapshotS, compactionS,
          placed, archived, onArchive, cloneS, v.checked(), v.lost(), v.duplicated(),
          v.unreadable(), new ArrayList<>(v.examples()), v.lost() == 0 && v.duplicated() == 0
            && v.unreadable() == 0 && v.checked() == before.size() && placed >= 0);
      } finally {
        if (admin.tableExists(clone)) {
          admin.disableTable(clone);
          admin.deleteTable(clone);
        }
        admin.deleteSnapshot(snapshot);
      }
    }
  }

  /** Seconds until no region of the cluster is in transition, or -1 after recoverS. */
  private double regionsSettled(Connection conn) throws InterruptedException {
    long start = System.nanoTime();
    long deadline = start + TimeUnit.SECONDS.toNanos(s.recoverS());
    while (System.nanoTime() < deadline) {
      if (AdminStorms.regionsInTransition(conn) == 0) {
        return (System.nanoTime() - start) / 1e9;
      }
      Thread.sleep(1000);
    }
    return -1;
  }

  private static double mean(long[] perSecond) {
    return perSecond.length == 0 ? 0 : Arrays.stream(perSecond).average().orElse(0);
  }

}
