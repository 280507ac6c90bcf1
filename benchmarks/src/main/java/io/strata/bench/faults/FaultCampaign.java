package io.strata.bench.faults;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.strata.cli.CommandLines;
import io.strata.cli.JsonReports;
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
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
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
    Map.entry("volume-io-errors", "HDFS"), Map.entry("volume-stall", "Strata"),
    Map.entry("kill-satisfier-mid-move", "Strata"));
  /** The WAL storage policy's key (upstream's). */
  static final String WAL_POLICY_KEY = "hbase.wal.storage.policy";
  /** The key that accepts every replica of a live WAL on the RAM tier (ALL_NVDIMM). */
  static final String WAL_VOLATILE_KEY = "strata.unsafe.wal.volatile.accept";
  /** How long a rebooted host's DataNode may take to report its blocks again. */
  private static final int DATANODE_BACK_S = 120;
  /** Faults that need a cluster started with {@code --netns}. */
  static final List<String> NETNS_ONLY = List.of("partition-host");
  /** How long a stopped daemon or a cut-off host stays so: longer than the 20 s RPC timeout. */
  private static final int OUTAGE_S = 25;
  /** Load between two RegionServers of a rolling restart. */
  private static final int ROLL_PAUSE_S = 10;
  /** Concurrent malformed peers of {@code malformed-rpc}. */
  private static final int MALFORMED_PEERS = 4;
  /** How often slow-volume flushes the table while the volume is stalled. */
  private static final int STALL_FLUSH_S = 8;

  static final String HEADER = "Injects faults into the multi-process cluster under a "
    + "load that records every acknowledged write, and reads it all back after each recovery.\n\n";

  private final File clusterScript;
  private final File clusterDir;
  private final PrintStream out;
  private final Settings s;

  /**
   * What one run is given. {@code impatientTimeoutMs}: the operation timeout of the connection
   * every second writer uses, shorter than a kill's outage ({@code downS}) so that calls time out
   * while their writes may still land, which the ledger must resolve.
   */
  public record Settings(int threads, int baselineS, int downS, int recoverS, int placementS,
    int valueBytes, int impatientTimeoutMs) {
    public Settings {
      if (impatientTimeoutMs <= 0 || impatientTimeoutMs >= downS * 1000) {
        throw new IllegalArgumentException("impatientTimeoutMs " + impatientTimeoutMs
          + " must be above 0 and below the outage of " + downS + " s");
      }
    }

    public static Settings quick() {
      return new Settings(4, 10, 5, 240, 120, 512, 2000);
    }
  }

  public FaultCampaign(File clusterScript, File clusterDir, Settings settings, PrintStream out) {
    this.clusterScript = clusterScript;
    this.clusterDir = clusterDir;
    this.s = settings;
    this.out = out;
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
      base.recoverS(), base.placementS(), base.valueBytes(), base.impatientTimeoutMs());
    FaultCampaign c = new FaultCampaign(new File(o.distHome(), "bin/strata-cluster"), o.dir(),
      settings, out);
    JsonNode clusterStatus = c.status();
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
    ObjectNode results = c.run(schedule);
    if (o.json() != null) {
      JsonReports.write(o.json(), results);
      out.println("results written to " + o.json());
    }
    if (o.report() != null) {
      ChaosReport.write(o.report(), results,
        "strata chaos " + String.join(" ", args).replaceAll("--(dist-home|dir) \\S+ ?", "")
          .trim());
      out.println("report written to " + o.report() + "/report.md");
    }
    return allRecovered(results) ? 0 : 1;
  }

  /** The WAL storage policy an hbase-site sets (upstream's default when it sets none). */
  static String walPolicy(File hbaseSite) {
    Configuration c = new Configuration(false);
    c.addResource(new Path(hbaseSite.toURI()));
    return c.get(WAL_POLICY_KEY, "NONE");
  }

  static boolean allRecovered(JsonNode results) {
    for (JsonNode f : results.get("faults")) {
      if (f.path("skipped").asBoolean()) {
        continue;
      }
      if (!f.get("recovered").asBoolean() || f.get("lost").asLong() != 0
        || f.get("duplicated").asLong() != 0 || f.path("unreadable").asLong(0) != 0
        || f.path("read_problems").asLong(0) != 0) {
        return false;
      }
    }
    // The final pass, after the load stopped, when the campaign got to it.
    return results.path("final_verified").asBoolean(true);
  }

  /**
   * A verification's ledger into {@code r}: acknowledged writes, those read back, ambiguous ones
   * (failed or timed-out calls) and how they resolved, lost, duplicated, unreadable.
   */
  static void putLedger(ObjectNode r, Ledger.Verdict v) {
    r.put("acked_writes", v.acked());
    r.put("checked", v.checked());
    r.put("ambiguous", v.ambiguous());
    r.put("ambiguous_landed", v.ambiguousLanded());
    r.put("ambiguous_not_landed", v.ambiguousNotLanded());
    r.put("ambiguous_unresolved", v.ambiguousUnresolved());
    r.put("lost", v.lost());
    r.put("duplicated", v.duplicated());
    r.put("unreadable", v.unreadable());
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

  /** Runs the faults one after the other under one load; the JSON document of the results. */
  public ObjectNode run(List<String> faults) throws Exception {
    return run(Schedule.fixed(faults, s.baselineS()));
  }

  /** Runs a schedule under one load; the JSON document of the results. */
  public ObjectNode run(Schedule schedule) throws Exception {
    JsonNode status = status();
    Configuration conf = HBaseConfiguration.create();
    conf.addResource(new Path(new File(status.get("conf").asText(), "hbase-site.xml").toURI()));
    conf.addResource(new Path(new File(status.get("conf").asText(), "hdfs-site.xml").toURI()));
    // A call blocked by a fault gives up (and counts as not acknowledged) rather than hang.
    conf.setInt(HConstants.HBASE_CLIENT_OPERATION_TIMEOUT, 60_000);
    conf.setInt(HConstants.HBASE_RPC_TIMEOUT_KEY, 20_000);
    ObjectMapper json = new ObjectMapper();
    ObjectNode doc = json.createObjectNode();
    // Whose durability the host faults show: the WAL policy the RegionServers write with.
    doc.put("wal_policy", conf.get(WAL_POLICY_KEY, "NONE"));
    doc.put("wal_volatile_accepted", conf.getBoolean(WAL_VOLATILE_KEY, false));
    ArrayNode results = doc.putArray("faults");
    TableName table = TableName.valueOf("strata_chaos");
    // Every second writer's connection: it gives up on a call before a killed daemon is back,
    // so that calls end while their writes may still land (ambiguous writes, resolved by the
    // verifications).
    Configuration impatientConf = new Configuration(conf);
    impatientConf.setInt(HConstants.HBASE_CLIENT_OPERATION_TIMEOUT, s.impatientTimeoutMs());
    impatientConf.setInt(HConstants.HBASE_RPC_TIMEOUT_KEY, s.impatientTimeoutMs());
    doc.put("impatient_timeout_ms", s.impatientTimeoutMs());
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
      ArrayNode markers = doc.putArray("markers");
      try (VerifyingLoad load = new VerifyingLoad(conn, impatient, table, s.threads(),
        s.valueBytes())) {
        load.start();
        for (int i = 0; i < schedule.faults().size(); i++) {
          String fault = schedule.faults().get(i);
          try {
            results.add(inject(fault, schedule.loadBeforeS().get(i), load, conn, dfs, conf,
              markers));
          } catch (IOException e) {
            // The campaign goes on: this fault counts as not recovered, with why.
            out.printf(Locale.ROOT, "%s: %s%n", fault, e);
            ObjectNode r = results.addObject();
            r.put("fault", fault);
            r.put("daemon", "");
            r.put("acked_writes", load.ackedWrites());
            try {
              putLedger(r, load.verify());
            } catch (IOException verifyError) {
              // Not known: -1, which no check takes for 0.
              r.put("lost", -1);
              r.put("duplicated", -1);
            }
            r.putNull("writes_resumed_s");
            r.putNull("placement_converged_s");
            r.put("recovered", false);
            r.put("error", e.toString());
          }
        }
        // Acknowledged writes per second over the whole run, for the plot with the markers.
        ArrayNode perSecond = doc.putArray("acked_per_s");
        for (long n : load.ackedPerSecond(0, (int) load.elapsedS())) {
          perSecond.add(n);
        }
        // The final pass: the load stopped, every write it recorded read back, those acknowledged
        // after the last fault's verification included, every ambiguous one resolved.
        out.printf(Locale.ROOT, "final pass: load stopped, reading back every write%n");
        ObjectNode fin = doc.putObject("final");
        boolean verified;
        try {
          Ledger.Verdict v = load.stopAndVerify();
          putLedger(fin, v);
          v.examples().forEach(fin.withArray("problems")::add);
          verified = v.verified();
          out.printf(Locale.ROOT, "final pass: acknowledged %d, checked %d, ambiguous %d (landed "
            + "%d, not landed %d, unresolved %d), lost %d, duplicated %d, unreadable %d%n",
            v.acked(), v.checked(), v.ambiguous(), v.ambiguousLanded(), v.ambiguousNotLanded(),
            v.ambiguousUnresolved(), v.lost(), v.duplicated(), v.unreadable());
        } catch (IOException e) {
          fin.put("error", e.toString());
          verified = false;
        }
        fin.put("reads_checked", load.readsChecked());
        fin.put("read_problems", load.readProblems());
        // Read problems after the last fault's verification: not in any fault's examples.
        load.takeReadExamples().forEach(fin.withArray("problems")::add);
        doc.put("final_verified", verified);
      }
    }
    ObjectNode sched = doc.putObject("schedule");
    sched.put("random", schedule.seed() != null);
    if (schedule.seed() != null) {
      sched.put("seed", schedule.seed());
    }
    schedule.faults().forEach(sched.withArray("faults")::add);
    schedule.loadBeforeS().forEach(sched.withArray("load_before_s")::add);
    doc.put("all_recovered", allRecovered(doc));
    return doc;
  }

  private ObjectNode inject(String fault, int loadBeforeS, VerifyingLoad load, Connection conn,
    DistributedFileSystem dfs, Configuration conf, ArrayNode markers) throws Exception {
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
      String why = VolumeFaults.skipReason(status().path("emulation").asText("none"),
        mediaState(), 1, volumeOf(fault));
      if (why != null) {
        out.printf(Locale.ROOT, "%s: skipped: %s%n", fault, why);
        ObjectNode r = new ObjectMapper().createObjectNode();
        r.put("fault", fault);
        r.put("daemon", name);
        r.put("shows", SHOWS.get(fault));
        r.put("skipped", true);
        r.put("skip_reason", why);
        r.put("recovered", true);
        return r;
      }
    }
    ObjectNode observed = new ObjectMapper().createObjectNode();
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
    if (fault.equals("kill-satisfier-mid-move")) {
      // Killed while it moves: files written on DISK, their policy changed to COLD and handed to
      // it, and the kill once some of their replicas, not all, are on ARCHIVE.
      name = "satisfier";
      midMove = new SatisfierMidMove(dfs, out);
      observed.put("move_bytes", midMove.write());
      midMove.ask();
      double share = midMove.awaitMidMove(s.recoverS());
      observed.put("caught_mid_move", share >= 0);
      if (share >= 0) {
        observed.put("moved_share_when_killed", share);
      }
      restartLog = new File(daemonLog(name));
      restartLogFrom = restartLog.length();
      cluster("kill", name);
      observed.put("moved_share_after_kill", (double) midMove.archived()[0]
        / Math.max(1, midMove.archived()[1]));
      Thread.sleep(TimeUnit.SECONDS.toMillis(s.downS()));
      restartNanos = System.nanoTime();
      cluster("start", name);
    } else if (fault.equals("kill-regionservers")) {
      // Every RegionServer at once (hbase-it's batch kill): no server left to take the regions
      // until they are back, so every region goes through WAL splitting.
      List<String> servers = regionServers();
      for (String rs : servers) {
        cluster("kill", rs);
      }
      Thread.sleep(TimeUnit.SECONDS.toMillis(s.downS()));
      for (String rs : servers) {
        cluster("start", rs);
      }
      name = String.join(", ", servers);
    } else if (fault.equals("rolling-restart-regionservers")) {
      // The upgrade path: each RegionServer stopped gracefully (TERM: it closes its regions,
      // flushing them, and the master moves them) and started again, one after the other.
      List<String> servers = regionServers();
      for (String rs : servers) {
        cluster("stop", rs);
        cluster("start", rs);
        Thread.sleep(TimeUnit.SECONDS.toMillis(ROLL_PAUSE_S));
      }
      name = String.join(", ", servers) + " (one at a time)";
    } else if (fault.equals("lose-regionserver")) {
      // Not back until this fault's verification has run: the master must notice the loss (the
      // server's ZooKeeper session expiring) and reassign its regions to the others, the slow
      // path a restart with a new start code skips.
      name = "regionserver-1";
      lost = name;
      cluster("kill", name);
    } else if (fault.startsWith("kill-")) {
      if (fault.equals("kill-meta-regionserver")) {
        name = metaServer(conn);
        observed.put("meta_server", name);
      }
      cluster("kill", name);
      Thread.sleep(TimeUnit.SECONDS.toMillis(s.downS()));
      restartLog = new File(daemonLog(name));
      restartLogFrom = restartLog.length();
      restartNanos = System.nanoTime();
      cluster("start", name);
    } else if (STORMS.contains(fault)) {
      AdminStorms storms = new AdminStorms(conn, TableName.valueOf("strata_chaos"), out);
      if (fault.equals("region-storm")) {
        storms.regionStorm(OUTAGE_S, observed);
      } else if (fault.equals("flush-compaction-storm")) {
        storms.flushCompactionStorm(OUTAGE_S, observed);
      } else if (fault.equals("snapshot-clone-cold")) {
        snapshotCloneCold(load, conn, dfs, conf, observed);
      } else {
        storms.alterUnderLoad(OUTAGE_S, observed);
      }
    } else if (fault.equals("slow-volume")) {
      slowVolume(observed, conn);
    } else if (fault.equals("ram-tier-full")) {
      ramTierFull(observed, conn, dfs, conf);
    } else if (fault.equals("volume-full")) {
      volumeFull(observed, conn, dfs, conf);
    } else if (fault.equals("volume-io-errors")) {
      volumeIoErrors(observed, conn, dfs, conf);
    } else if (fault.equals("volume-stall")) {
      volumeStall(observed, conn);
    } else if (fault.equals("malformed-rpc")) {
      malformedRpc(observed);
    } else if (fault.equals("reboot-host") || fault.equals("power-loss")) {
      name = reboot(fault, observed, dfs, conf);
    } else if (fault.equals("partition-host")) {
      // Host 1 (DataNode 1 and RegionServer 1) loses its network, its processes live on.
      ip("link", "set", "st-h1", "down");
      Thread.sleep(TimeUnit.SECONDS.toMillis(OUTAGE_S));
      ip("link", "set", "st-h1", "up");
    } else {
      // Stopped for longer than the client's RPC timeout, then continued.
      cluster("kill", name, "--signal", "STOP");
      Thread.sleep(TimeUnit.SECONDS.toMillis(OUTAGE_S));
      cluster("kill", name, "--signal", "CONT");
    }
    int repairedAt = (int) load.elapsedS();
    ObjectNode marker = markers.addObject();
    marker.put("fault", fault);
    marker.put("at_s", faultAt);
    marker.put("repaired_at_s", repairedAt);
    // Writes resumed: the first second after the fault at half the rate before it or more.
    double resumedS = -1;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(s.recoverS());
    boolean hostFault = fault.equals("reboot-host") || fault.equals("power-loss");
    long nextSupervision = System.nanoTime();
    while (resumedS < 0 && System.nanoTime() < deadline) {
      Thread.sleep(1000);
      if (hostFault && System.nanoTime() >= nextSupervision) {
        superviseAfterReboot(fault, observed);
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
      superviseAfterReboot(fault, observed);
    }
    Ledger.Verdict v = load.verify();
    // Reads checked from this fault's load before it until its verification.
    long readsChecked = load.readsChecked() - readsFrom;
    long readProblems = load.readProblems() - readProblemsFrom;
    List<String> readExamples = load.takeReadExamples();
    if (lost != null) {
      observed.put("regions_served_without_it", true);
      cluster("start", lost);
    }
    double placementS = placementConverged(conn, dfs, conf);
    // After a storm every region is open again: none left in transition.
    boolean settled = true;
    if (STORMS.contains(fault)) {
      double clearedS = regionsSettled(conn);
      settled = clearedS >= 0;
      if (settled) {
        observed.put("regions_in_transition_cleared_s", clearedS);
      } else {
        observed.put("regions_in_transition_cleared_s", "not within " + s.recoverS() + " s");
      }
      if (fault.equals("alter-under-load")) {
        settled &= observed.path("invalid_alter_refused").asBoolean()
          && observed.path("restored").asBoolean();
      }
      if (fault.equals("snapshot-clone-cold")) {
        settled &= observed.path("clone_verified").asBoolean();
      }
    }
    // The move cut short must end: every file on ARCHIVE at full replication, and intact.
    if (midMove != null) {
      double inPlace = midMove.awaitInPlace(s.placementS());
      List<String> corrupted = midMove.corrupted();
      if (inPlace >= 0) {
        observed.put("moved_files_in_place_s", inPlace);
      } else {
        observed.put("moved_files_in_place_s", "not within " + s.placementS() + " s");
      }
      observed.put("moved_files_corrupted", corrupted.size());
      corrupted.forEach(observed.withArray("moved_files_problems")::add);
      settled &= observed.path("caught_mid_move").asBoolean() && inPlace >= 0
        && corrupted.isEmpty();
      midMove.delete();
    }
    // A volume fault must also have done what it is about (the NameNode saw the volume full;
    // the DataNode found the failed volume and the replicas were re-replicated).
    if (VolumeFaults.FAULTS.contains(fault)) {
      settled &= observed.path("fault_effect_seen").asBoolean(false);
    }
    // A satisfier restarted while the killed one's lease lives waits (up to 2 min) before it
    // serves, and may still give up: it is back once it says it started.
    boolean notStarted = false;
    if (name.equals("satisfier") && restartLog != null) {
      double readyS = satisfierStarted(restartLog, restartLogFrom, restartNanos);
      if (readyS >= 0) {
        observed.put("satisfier_started_after_restart_s", readyS);
      } else {
        notStarted = true;
        observed.put("satisfier_started_after_restart_s", "not within "
          + SATISFIER_START_S + " s");
      }
    }
    List<String> notBack = new ArrayList<>();
    for (JsonNode d : status().get("daemons")) {
      if (!d.get("alive").asBoolean()) {
        notBack.add(d.get("name").asText());
      }
    }
    boolean recovered = resumedS >= 0 && placementS >= 0 && notBack.isEmpty() && !notStarted
      && v.unreadable() == 0 && settled;
    ObjectNode r = new ObjectMapper().createObjectNode();
    r.put("fault", fault);
    r.put("daemon", name);
    r.put("shows", SHOWS.getOrDefault(fault, "Strata"));
    // The ledger: every write acknowledged before the verification began (before and during
    // the fault) was read back (checked), or its row could not be (unreadable); every failed
    // call's write (ambiguous) was read back to see whether it landed.
    putLedger(r, v);
    r.put("failed_calls", load.failedCalls());
    r.put("reads_checked", readsChecked);
    r.put("read_problems", readProblems);
    if (resumedS >= 0) {
      r.put("writes_resumed_s", resumedS);
    } else {
      r.putNull("writes_resumed_s");
    }
    if (placementS >= 0) {
      r.put("placement_converged_s", placementS);
    } else {
      r.putNull("placement_converged_s");
    }
    r.put("throughput_before", before);
    r.put("throughput_during", during);
    r.put("throughput_after", after);
    ArrayNode nb = r.putArray("daemons_not_back");
    notBack.forEach(nb::add);
    // Why each one is down, from its own logs, so that a run on another machine explains itself.
    ObjectNode why = new ObjectMapper().createObjectNode();
    for (String d : notBack) {
      String reason = whyDown(d);
      why.put(d, reason);
      out.printf(Locale.ROOT, "%s: why %s is down, from its logs:%n%s%n", fault, d, reason);
    }
    if (!notBack.isEmpty()) {
      r.set("why_not_back", why);
    }
    // Started again, as a supervisor (systemd, an operator) would, so that the next fault meets
    // a whole cluster; the fault still counts as not recovered.
    for (String d : notBack) {
      out.printf(Locale.ROOT, "%s: %s did not come back (its log: why); starting it again%n",
        fault, d);
      cluster("start", d);
    }
    r.put("recovered", recovered);
    if (!observed.isEmpty()) {
      r.set("observed", observed);
    }
    v.examples().forEach(r.withArray("problems")::add);
    readExamples.forEach(r.withArray("problems")::add);
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
  private void malformedRpc(ObjectNode observed) throws Exception {
    String address = null;
    for (JsonNode d : status().get("daemons")) {
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
    observed.put("rpc_address", address);
    observed.put("connections", peers.connections());
    observed.put("closed_by_server", peers.closedByServer());
    observed.put("left_open_after_ms", peers.leftOpen());
    observed.put("wait_ms", MalformedRpc.WAIT_MS);
    observed.put("refused", peers.refused());
    ObjectNode kinds = observed.putObject("connections_per_kind");
    peers.sentPerKind().forEach((k, v) -> kinds.put(k.name().toLowerCase(Locale.ROOT), v));
    out.printf(Locale.ROOT, "malformed-rpc: %d connections to %s, %d closed by the server "
      + "within %d ms, %d left open, %d refused%n", peers.connections(), address,
      peers.closedByServer(), MalformedRpc.WAIT_MS, peers.leftOpen(), peers.refused());
  }

  /**
   * {@code slow-volume}: the first SSD volume of DataNode 1 stalled at {@link TierFaults#STALL_MS}
   * per operation for {@link TierFaults#HOLD_S}, through the DataNode's
   * {@code VolumeStallSwitch} flag file; then released. Records the blocks written to it and to
   * its SSD peers on that DataNode before and during the stall, and what the latency-aware
   * volume chooser logged. The load's writes go to the WAL (on the RAM tier) until a flush:
   * the table is flushed just before the stall and every {@link #STALL_FLUSH_S} s meanwhile, on a thread of its own (a
   * flush through the stalled volume takes as long as it takes), so that HFile blocks (ALL_SSD)
   * are written while the volume is stalled.
   */
  private void slowVolume(ObjectNode observed, Connection conn) throws Exception {
    List<File> ssd = TierFaults.ssdVolumes(clusterDir, 1);
    File slow = ssd.get(0);
    File log = new File(daemonLog("datanode-1"));
    long logFrom = log.length();
    // A flush first: the chooser probes a volume only while it is offered blocks (and for a
    // minute after), so it watches the SSD volumes when the stall begins, as it would on a
    // cluster that flushes all the time.
    try (Admin admin = conn.getAdmin()) {
      admin.flush(TableName.valueOf("strata_chaos"));
    }
    long startMs = System.currentTimeMillis();
    long holdMs = TimeUnit.SECONDS.toMillis(TierFaults.HOLD_S);
    observed.put("stalled_volume", slow.getPath());
    observed.put("stall_ms_per_op", TierFaults.STALL_MS);
    observed.put("stall_s", TierFaults.HOLD_S);
    observed.put("ssd_peers_on_datanode", ssd.size() - 1);
    observed.put("blocks_on_stalled_before", TierFaults.blocksWrittenSince(slow, startMs - holdMs));
    int peersBefore = 0;
    for (File f : ssd.subList(1, ssd.size())) {
      peersBefore += TierFaults.blocksWrittenSince(f, startMs - holdMs);
    }
    observed.put("blocks_on_peers_before", peersBefore);
    java.util.concurrent.atomic.AtomicInteger flushes = new java.util.concurrent.atomic
      .AtomicInteger();
    java.util.concurrent.atomic.AtomicLong longestFlushMs = new java.util.concurrent.atomic
      .AtomicLong();
    Thread flusher = new Thread(() -> {
      long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(holdMs - 5000);
      try (Admin admin = conn.getAdmin()) {
        while (System.nanoTime() < end) {
          Thread.sleep(TimeUnit.SECONDS.toMillis(STALL_FLUSH_S));
          long t0 = System.nanoTime();
          admin.flush(TableName.valueOf("strata_chaos"));
          flushes.incrementAndGet();
          longestFlushMs.accumulateAndGet((System.nanoTime() - t0) / 1_000_000, Math::max);
        }
      } catch (IOException e) {
        out.printf(Locale.ROOT, "slow-volume: a flush failed: %s%n", e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "slow-volume-flusher");
    flusher.setDaemon(true);
    try {
      TierFaults.stall(slow, TierFaults.STALL_MS);
      flusher.start();
      Thread.sleep(holdMs);
      observed.put("blocks_on_stalled_during", TierFaults.blocksWrittenSince(slow, startMs));
      int peers = 0;
      for (File f : ssd.subList(1, ssd.size())) {
        peers += TierFaults.blocksWrittenSince(f, startMs);
      }
      observed.put("blocks_on_peers_during", peers);
      observed.put("flushes_done_during", flushes.get());
    } finally {
      TierFaults.unstall(slow);
    }
    flusher.join(TimeUnit.SECONDS.toMillis(120));
    observed.put("flushes_done", flushes.get());
    observed.put("longest_flush_ms", longestFlushMs.get());
    // The switch reads its flag files once a second; its log line says the volume is released.
    Thread.sleep(2000);
    List<String> events = TierFaults.volumeEvents(TierFaults.logSince(log, logFrom));
    boolean excluded = events.stream().anyMatch(e -> e.contains(") is slow: "));
    observed.put("chooser_excluded_volume", excluded);
    events.forEach(observed.withArray("datanode_log")::add);
    out.printf(Locale.ROOT, "slow-volume: %s stalled %d ms per operation for %d s; chooser "
      + "excluded it: %s; blocks before/during: stalled %d/%d, peers %d/%d%n", slow,
      TierFaults.STALL_MS, TierFaults.HOLD_S, excluded,
      observed.get("blocks_on_stalled_before").asInt(),
      observed.path("blocks_on_stalled_during").asInt(), peersBefore,
      observed.path("blocks_on_peers_during").asInt());
  }

  /**
   * {@code ram-tier-full}: the RAM tier filled through HDFS while the load runs: files of
   * {@link TierFaults#FILL_FILE_MB} MB with storage policy ALL_NVDIMM (3 replicas, one on each
   * DataNode's NVDIMM volume) written until the NameNode places one elsewhere (the tier is full
   * as HDFS sees it) or the NVDIMM space it sees left is below two WAL blocks; held for
   * {@link TierFaults#HOLD_S}, then deleted. Every RegionServer's WAL is rolled while it is full
   * and again after it is freed; records the storage types of the new WALs' blocks each time,
   * and the NVDIMM space the NameNode saw left.
   */
  private void ramTierFull(ObjectNode observed, Connection conn, DistributedFileSystem dfs,
    Configuration conf) throws Exception {
    Path fillDir = new Path("/strata-chaos-fill");
    long walBlock = conf.getLong("hbase.regionserver.hlog.blocksize", 64L << 20);
    long fillBytes = (long) TierFaults.FILL_FILE_MB << 20;
    observed.put("nvdimm_remaining_seen_before_mb", nvdimmRemaining(dfs) >> 20);
    long holdMs = TimeUnit.SECONDS.toMillis(TierFaults.HOLD_S);
    long start = System.nanoTime();
    long fillMs = System.currentTimeMillis();
    try {
      dfs.mkdirs(fillDir);
      dfs.setStoragePolicy(fillDir, "ALL_NVDIMM");
      byte[] chunk = new byte[1 << 20];
      java.util.Arrays.fill(chunk, (byte) 0x5a);
      int files = 0;
      long onRam = 0;
      String stoppedBecause = "the limit of " + TierFaults.FILL_MAX_FILES + " files";
      for (int i = 0; i < TierFaults.FILL_MAX_FILES; i++) {
        Path f = new Path(fillDir, "fill-" + i);
        try (org.apache.hadoop.fs.FSDataOutputStream o = dfs.create(f, true, 1 << 16,
          (short) 3, fillBytes)) {
          for (int mb = 0; mb < TierFaults.FILL_FILE_MB; mb++) {
            o.write(chunk);
          }
        }
        files++;
        boolean allOnRam = true;
        for (org.apache.hadoop.fs.BlockLocation bl : dfs.getFileBlockLocations(f, 0,
          fillBytes)) {
          for (org.apache.hadoop.fs.StorageType t : bl.getStorageTypes()) {
            if (t == org.apache.hadoop.fs.StorageType.NVDIMM) {
              onRam += fillBytes;
            } else {
              allOnRam = false;
            }
          }
        }
        if (!allOnRam) {
          stoppedBecause = "a fill file placed off NVDIMM (the tier is full)";
          break;
        }
        // Heartbeats (3 s) tell the NameNode what is left; look again once it may know.
        if (nvdimmRemaining(dfs) < 2 * walBlock) {
          Thread.sleep(4000);
          if (nvdimmRemaining(dfs) < 2 * walBlock) {
            stoppedBecause = "NVDIMM left below two WAL blocks on every DataNode";
            break;
          }
        }
      }
      observed.put("fill_files", files);
      observed.put("fill_on_nvdimm_mb", onRam >> 20);
      observed.put("fill_stopped_at", stoppedBecause);
      observed.put("fill_took_s", (System.currentTimeMillis() - fillMs) / 1000);
      Thread.sleep(4000);
      observed.put("nvdimm_remaining_seen_full_mb", nvdimmRemaining(dfs) >> 20);
      rollWals(conn, observed, "roll_while_full");
      Thread.sleep(5000);
      walStorage(dfs, conf, fillMs, observed.putObject("wal_blocks_while_full"));
      Thread.sleep(Math.max(0, holdMs - (System.nanoTime() - start) / 1_000_000));
    } finally {
      dfs.delete(fillDir, true);
    }
    long freedMs = System.currentTimeMillis();
    // The DataNodes delete the replicas when the NameNode tells them (heartbeats).
    Thread.sleep(8000);
    observed.put("nvdimm_remaining_seen_freed_mb", nvdimmRemaining(dfs) >> 20);
    rollWals(conn, observed, "roll_after_free");
    Thread.sleep(5000);
    walStorage(dfs, conf, freedMs, observed.putObject("wal_blocks_after_free"));
    out.printf(Locale.ROOT, "ram-tier-full: %d MB on NVDIMM in %d files (%s); NVDIMM left as "
      + "the NameNode saw it: %d MB before, %d MB full, %d MB freed; WAL blocks while full %s, "
      + "after %s%n", observed.get("fill_on_nvdimm_mb").asLong(),
      observed.get("fill_files").asInt(), observed.get("fill_stopped_at").asText(),
      observed.get("nvdimm_remaining_seen_before_mb").asLong(),
      observed.get("nvdimm_remaining_seen_full_mb").asLong(),
      observed.get("nvdimm_remaining_seen_freed_mb").asLong(),
      observed.get("wal_blocks_while_full"), observed.get("wal_blocks_after_free"));
  }

  /** The volume a block-layer fault acts on: DataNode 1's SSD (HFiles are flushed to SSD). */
  static String volumeOf(String fault) {
    return "ssd";
  }

  /** {@code DIR/media/volumes}: the loop volumes {@code bin/strata-media.sh} set up. */
  private File mediaState() {
    return new File(clusterDir, "media/volumes");
  }

  private VolumeFaults.Volume mediaVolume(String fault) throws IOException {
    VolumeFaults.Volume v = VolumeFaults.find(VolumeFaults.parse(
      java.nio.file.Files.readAllLines(mediaState().toPath())), 1, volumeOf(fault));
    if (v == null) {
      throw new IOException(mediaState() + " records no volume datanode-1-" + volumeOf(fault));
    }
    return v;
  }

  /** A status field of daemon {@code name}. */
  private String daemonField(String name, String field) throws Exception {
    for (JsonNode d : status().get("daemons")) {
      if (d.get("name").asText().equals(name)) {
        return d.path(field).asText();
      }
    }
    throw new IOException("no daemon " + name + " in the cluster's status");
  }

  /**
   * The storage reports the NameNode holds for the DataNode at {@code xferAddr} (from its
   * heartbeats); empty when it is not live.
   */
  private static List<org.apache.hadoop.hdfs.server.protocol.StorageReport> storagesOf(
    DistributedFileSystem dfs, String xferAddr) throws IOException {
    for (org.apache.hadoop.hdfs.server.protocol.DatanodeStorageReport d : dfs.getClient()
      .getDatanodeStorageReport(org.apache.hadoop.hdfs.protocol.HdfsConstants.DatanodeReportType
        .LIVE)) {
      if (d.getDatanodeInfo().getXferAddr().equals(xferAddr)) {
        return Arrays.asList(d.getStorageReports());
      }
    }
    return List.of();
  }

  /** The SSD space the NameNode sees left on a DataNode; -1 when it reports no healthy SSD. */
  private static long ssdRemainingSeen(DistributedFileSystem dfs, String xferAddr)
    throws IOException {
    long left = -1;
    for (org.apache.hadoop.hdfs.server.protocol.StorageReport r : storagesOf(dfs, xferAddr)) {
      if (r.getStorage().getStorageType() == org.apache.hadoop.fs.StorageType.SSD
        && !r.isFailed()) {
        left = Math.max(left, 0) + r.getRemaining();
      }
    }
    return left;
  }

  /**
   * Flushes the table every {@link #STALL_FLUSH_S} s for {@code holdMs} on a thread of its own
   * (a flush through a faulty volume takes as long as it takes), so that HFile blocks are
   * written while the fault lasts; counts the flushes.
   */
  private Thread flusher(Connection conn, long holdMs, java.util.concurrent.atomic.AtomicInteger
    flushes, String fault) {
    Thread t = new Thread(() -> {
      long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(holdMs);
      try (Admin admin = conn.getAdmin()) {
        while (System.nanoTime() < end) {
          Thread.sleep(TimeUnit.SECONDS.toMillis(STALL_FLUSH_S));
          admin.flush(TableName.valueOf("strata_chaos"));
          flushes.incrementAndGet();
        }
      } catch (IOException e) {
        out.printf(Locale.ROOT, "%s: a flush failed: %s%n", fault, e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, fault + "-flusher");
    t.setDaemon(true);
    t.start();
    return t;
  }

  /** Blocks written since {@code fromMs} to each SSD and DISK volume of every DataNode. */
  private ObjectNode blocksSince(long fromMs) throws IOException {
    ObjectNode n = new ObjectMapper().createObjectNode();
    for (int dn = 1; new File(clusterDir, "data/datanode-" + dn).isDirectory(); dn++) {
      for (String v : List.of("ssd", "disk")) {
        n.put("datanode-" + dn + "-" + v, TierFaults.blocksWrittenSince(
          new File(clusterDir, "data/datanode-" + dn + "/" + v), fromMs));
      }
    }
    return n;
  }

  /**
   * {@code volume-full}: DataNode 1's SSD loop volume filled with a file of its own
   * ({@code fallocate}, at the root of the file system, outside the DataNode's current/) until
   * {@link VolumeFaults#FULL_LEFT_BYTES} are left, held {@link VolumeFaults#HOLD_S} s under the
   * load with the table flushed meanwhile, then removed. HDFS must place new blocks elsewhere (the
   * NameNode sees the volume full; the policies' fallbacks take over) and lose nothing. Records
   * the bytes free before, full and after (the file system's and the NameNode's view) and where
   * the blocks written while it was full went.
   */
  private void volumeFull(ObjectNode observed, Connection conn, DistributedFileSystem dfs,
    Configuration conf) throws Exception {
    VolumeFaults.Volume v = mediaVolume("volume-full");
    File mnt = new File(v.mount());
    File filler = new File(mnt, VolumeFaults.FILLER);
    String addr = daemonField("datanode-1", "address");
    observed.put("volume", v.mount());
    observed.put("device", v.device());
    observed.put("fs_free_before_bytes", mnt.getUsableSpace());
    observed.put("namenode_ssd_remaining_before_bytes", ssdRemainingSeen(dfs, addr));
    long holdMs = TimeUnit.SECONDS.toMillis(VolumeFaults.HOLD_S);
    java.util.concurrent.atomic.AtomicInteger flushes = new java.util.concurrent.atomic
      .AtomicInteger();
    long fromMs = System.currentTimeMillis();
    Thread flusher = null;
    try {
      long size = mnt.getUsableSpace() - VolumeFaults.FULL_LEFT_BYTES;
      if (size > 0) {
        VolumeFaults.must(120, "fallocate", "-l", Long.toString(size), filler.getPath());
      }
      observed.put("filler_bytes", Math.max(0, size));
      observed.put("fs_free_full_bytes", mnt.getUsableSpace());
      // The NameNode learns the free space from heartbeats (3 s).
      long seenFull = -1;
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      long t0 = System.nanoTime();
      while (System.nanoTime() < until) {
        long left = ssdRemainingSeen(dfs, addr);
        if (left >= 0 && left < (128L << 20)) {
          seenFull = left;
          break;
        }
        Thread.sleep(1000);
      }
      observed.put("namenode_saw_full_s", seenFull >= 0 ? (System.nanoTime() - t0) / 1e9 : -1);
      observed.put("fault_effect_seen", seenFull >= 0);
      observed.put("namenode_ssd_remaining_full_bytes", ssdRemainingSeen(dfs, addr));
      flusher = flusher(conn, holdMs, flushes, "volume-full");
      Thread.sleep(holdMs);
      observed.put("fs_free_end_of_hold_bytes", mnt.getUsableSpace());
      observed.set("blocks_written_while_full", blocksSince(fromMs));
    } finally {
      java.nio.file.Files.deleteIfExists(filler.toPath());
    }
    flusher.join(TimeUnit.SECONDS.toMillis(120));
    observed.put("flushes_done", flushes.get());
    Thread.sleep(8000);
    observed.put("fs_free_after_bytes", mnt.getUsableSpace());
    observed.put("namenode_ssd_remaining_after_bytes", ssdRemainingSeen(dfs, addr));
    // HDFS leaves a replica placed on a fallback type where it is (the NameNode never moves it
    // back once the preferred type has room again; measured: 9 of 17 flushed files stayed
    // {SSD=2, DISK=1}): the undo asks the satisfier to move each such store file.
    satisfyOffPolicy(observed, dfs, conf, "volume-full");
    List<String> events = VolumeFaults.volumeFailureEvents(TierFaults.logSince(
      new File(daemonLog("datanode-1")), 0));
    observed.put("datanode_volume_failure_lines", events.size());
    out.printf(Locale.ROOT, "volume-full: %s filled (%d bytes); free before %d, full %d, after "
      + "%d; the NameNode saw %d SSD bytes left while full; blocks written while full: %s%n",
      v.mount(), observed.get("filler_bytes").asLong(),
      observed.get("fs_free_before_bytes").asLong(), observed.get("fs_free_full_bytes").asLong(),
      observed.get("fs_free_after_bytes").asLong(),
      observed.get("namenode_ssd_remaining_full_bytes").asLong(),
      observed.get("blocks_written_while_full"));
  }

  /**
   * {@code volume-io-errors}: DataNode 1's SSD loop volume gets an ext4 error
   * ({@code /sys/fs/ext4/DEV/trigger_fs_error}; mounted {@code errors=remount-ro}, the file
   * system turns read-only), under the load with the table flushed meanwhile. The DataNode's
   * writes there fail, its volume checker finds the volume failed and (with
   * {@code dfs.datanode.failed.volumes.tolerated} 1, the cluster's) drops it and serves on; the
   * NameNode re-replicates the replicas it held. Then the repair: the DataNode stopped, the file
   * system unmounted, checked ({@code e2fsck -fy}), mounted again, the DataNode started.
   */
  private void volumeIoErrors(ObjectNode observed, Connection conn, DistributedFileSystem dfs,
    Configuration conf) throws Exception {
    VolumeFaults.Volume v = mediaVolume("volume-io-errors");
    String addr = daemonField("datanode-1", "address");
    File log = new File(daemonLog("datanode-1"));
    long logFrom = log.length();
    String opts = VolumeFaults.mountOptions(v.mount());
    observed.put("volume", v.mount());
    observed.put("device", v.device());
    observed.put("mount_options_before", opts);
    if (!opts.contains("errors=remount-ro")) {
      // A cluster mounted before the option was added: set it on the live mount.
      VolumeFaults.must(30, "mount", "-o", "remount,errors=remount-ro", v.mount());
      observed.put("remounted_errors_remount_ro", true);
    }
    observed.put("low_redundancy_blocks_before", dfs.getLowRedundancyBlocksCount());
    long holdMs = TimeUnit.SECONDS.toMillis(VolumeFaults.HOLD_S);
    java.util.concurrent.atomic.AtomicInteger flushes = new java.util.concurrent.atomic
      .AtomicInteger();
    java.nio.file.Files.writeString(java.nio.file.Path.of("/sys/fs/ext4", v.deviceName(),
      "trigger_fs_error"), "1\n", StandardCharsets.UTF_8);
    long t0 = System.nanoTime();
    String after = VolumeFaults.mountOptions(v.mount());
    observed.put("mount_options_after_error", after);
    observed.put("read_only_after_error", VolumeFaults.readOnly(after));
    Thread flusher = flusher(conn, holdMs, flushes, "volume-io-errors");
    // Detected: the NameNode no longer holds a healthy SSD storage of DataNode 1.
    double detectedS = -1;
    long maxLow = 0;
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (System.nanoTime() < until) {
      maxLow = Math.max(maxLow, dfs.getLowRedundancyBlocksCount());
      if (ssdRemainingSeen(dfs, addr) < 0 && !storagesOf(dfs, addr).isEmpty()) {
        detectedS = (System.nanoTime() - t0) / 1e9;
        break;
      }
      Thread.sleep(1000);
    }
    observed.put("failed_volume_seen_by_namenode_s", detectedS);
    observed.put("datanode_alive_after_failure",
      Boolean.parseBoolean(daemonField("datanode-1", "alive")));
    // Re-replication: low-redundancy blocks back to 0.
    double rereplicatedS = -1;
    until = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
    while (System.nanoTime() < until) {
      long low = dfs.getLowRedundancyBlocksCount();
      maxLow = Math.max(maxLow, low);
      if (low == 0 && System.nanoTime() - t0 > TimeUnit.SECONDS.toNanos(10)) {
        rereplicatedS = (System.nanoTime() - t0) / 1e9;
        break;
      }
      Thread.sleep(2000);
    }
    flusher.join(TimeUnit.SECONDS.toMillis(120));
    observed.put("flushes_done", flushes.get());
    observed.put("low_redundancy_blocks_max_seen", maxLow);
    observed.put("rereplicated_s", rereplicatedS);
    List<String> events = VolumeFaults.volumeFailureEvents(TierFaults.logSince(log, logFrom));
    events.subList(0, Math.min(events.size(), 12)).forEach(
      observed.withArray("datanode_log")::add);
    // The repair: the DataNode down, the file system checked and mounted again, the DataNode up.
    cluster("stop", "datanode-1");
    VolumeFaults.must(60, "umount", v.mount());
    VolumeFaults.Result fsck = VolumeFaults.run(600, "e2fsck", "-fy", v.device());
    // e2fsck: 0 clean, 1 errors corrected; more is not a usable file system.
    observed.put("e2fsck_exit", fsck.code());
    if (fsck.code() > 1) {
      throw new IOException("e2fsck -fy " + v.device() + " exited " + fsck.code() + ": "
        + fsck.output());
    }
    VolumeFaults.must(60, "mount", "-t", "ext4", "-o", "noatime,errors=remount-ro", v.device(),
      v.mount());
    observed.put("mount_options_repaired", VolumeFaults.mountOptions(v.mount()));
    cluster("start", "datanode-1");
    double backS = -1;
    long r0 = System.nanoTime();
    until = r0 + TimeUnit.SECONDS.toNanos(120);
    while (System.nanoTime() < until) {
      if (ssdRemainingSeen(dfs, addr) >= 0) {
        backS = (System.nanoTime() - r0) / 1e9;
        break;
      }
      Thread.sleep(1000);
    }
    observed.put("ssd_volume_back_after_restart_s", backS);
    // Blocks the pipelines placed on a fallback type while the volume failed stay there.
    satisfyOffPolicy(observed, dfs, conf, "volume-io-errors");
    observed.put("fault_effect_seen", detectedS >= 0 && rereplicatedS >= 0 && backS >= 0);
    out.printf(Locale.ROOT, "volume-io-errors: %s read-only after the error: %s; the NameNode saw "
      + "the failed volume after %.1f s (DataNode alive: %s); low-redundancy blocks at most %d, "
      + "0 again after %.1f s; e2fsck exit %d; SSD volume back %.1f s after the restart%n",
      v.mount(), VolumeFaults.readOnly(after), detectedS,
      observed.get("datanode_alive_after_failure").asBoolean(), maxLow, rereplicatedS,
      fsck.code(), backS);
  }

  /**
   * {@code volume-stall}: the blkio throttle of DataNode 1's SSD loop device dropped to
   * {@link VolumeFaults#STALL_IOPS} request and {@link VolumeFaults#STALL_BPS} bytes a second for
   * {@link VolumeFaults#HOLD_S} s under the load, with the table flushed meanwhile; then the
   * profile's throttle restored. The DataNode's I/O threads block in the kernel (state D,
   * sampled from /proc/PID/task/TID/stat); pipeline recovery and the latency-aware volume chooser
   * must keep writes going.
   */
  private void volumeStall(ObjectNode observed, Connection conn) throws Exception {
    VolumeFaults.Volume v = mediaVolume("volume-stall");
    long pid = Long.parseLong(daemonField("datanode-1", "pid"));
    File log = new File(daemonLog("datanode-1"));
    long logFrom = log.length();
    Map<String, Long> profile = VolumeFaults.throttleOf(v.majMin());
    observed.put("volume", v.mount());
    observed.put("device", v.device() + " (" + v.majMin() + ")");
    ObjectNode before = observed.putObject("throttle_before");
    profile.forEach(before::put);
    Map<String, Long> stall = new LinkedHashMap<>();
    for (String f : VolumeFaults.THROTTLE_FILES) {
      stall.put(f, f.contains("iops") ? VolumeFaults.STALL_IOPS : VolumeFaults.STALL_BPS);
    }
    long holdMs = TimeUnit.SECONDS.toMillis(VolumeFaults.HOLD_S);
    java.util.concurrent.atomic.AtomicInteger flushes = new java.util.concurrent.atomic
      .AtomicInteger();
    try (Admin admin = conn.getAdmin()) {
      admin.flush(TableName.valueOf("strata_chaos"));
    }
    long fromMs = System.currentTimeMillis();
    int maxD = 0;
    int samples = 0;
    int samplesWithD = 0;
    java.util.Set<String> namesInD = new java.util.TreeSet<>();
    Thread flusher = null;
    try {
      VolumeFaults.throttle(v.majMin(), stall);
      flusher = flusher(conn, holdMs, flushes, "volume-stall");
      long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(holdMs);
      while (System.nanoTime() < end) {
        List<String> d = VolumeFaults.threadsInD(pid);
        samples++;
        samplesWithD += d.isEmpty() ? 0 : 1;
        maxD = Math.max(maxD, d.size());
        namesInD.addAll(d);
        Thread.sleep(250);
      }
      observed.set("blocks_written_while_stalled", blocksSince(fromMs));
    } finally {
      VolumeFaults.throttle(v.majMin(), profile);
    }
    ObjectNode restored = observed.putObject("throttle_restored");
    VolumeFaults.throttleOf(v.majMin()).forEach(restored::put);
    // Threads still blocked drain once the device is fast again.
    long drain = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    int dAfter = VolumeFaults.threadsInD(pid).size();
    while (dAfter > 0 && System.nanoTime() < drain) {
      Thread.sleep(500);
      dAfter = VolumeFaults.threadsInD(pid).size();
    }
    flusher.join(TimeUnit.SECONDS.toMillis(120));
    observed.put("flushes_done", flushes.get());
    observed.put("datanode_pid", pid);
    observed.put("d_state_samples", samples);
    observed.put("d_state_samples_with_any", samplesWithD);
    observed.put("d_state_threads_max_at_once", maxD);
    namesInD.forEach(observed.withArray("d_state_thread_names")::add);
    observed.put("d_state_threads_after_restore", dAfter);
    // What a stall shows is its effect on the load (the ledger, writes resumed); the D-state
    // threads are an observation, not a condition.
    observed.put("fault_effect_seen", true);
    List<String> events = TierFaults.volumeEvents(TierFaults.logSince(log, logFrom));
    observed.put("chooser_excluded_volume", events.stream().anyMatch(
      e -> e.contains(") is slow: ")));
    events.subList(0, Math.min(events.size(), 12)).forEach(
      observed.withArray("datanode_log")::add);
    out.printf(Locale.ROOT, "volume-stall: %s throttled to %d IOPS / %d B/s for %d s; DataNode "
      + "threads in D: at most %d at once (%d of %d samples), %s; after the restore %d; blocks "
      + "written meanwhile %s%n", v.device(), VolumeFaults.STALL_IOPS, VolumeFaults.STALL_BPS,
      VolumeFaults.HOLD_S, maxD, samplesWithD, samples, namesInD, dAfter,
      observed.get("blocks_written_while_stalled"));
  }

  /**
   * Hands every store file off its storage policy to the satisfier
   * ({@code satisfyStoragePolicy}), as an operator would ({@code hdfs storagepolicies
   * -satisfyStoragePolicy}); records how many there were and were handed over.
   */
  private void satisfyOffPolicy(ObjectNode observed, DistributedFileSystem dfs,
    Configuration conf, String fault) throws IOException {
    List<Path> off = PlacementCheck.unsatisfied(dfs, storeFiles(dfs, conf));
    observed.put("off_policy_store_files_after_undo", off.size());
    int asked = 0;
    for (Path p : off) {
      try {
        dfs.satisfyStoragePolicy(p);
        asked++;
      } catch (IOException e) {
        // compacted or archived away since the scan, or already queued
        out.printf(Locale.ROOT, "%s: satisfyStoragePolicy %s: %s%n", fault, p, e);
      }
    }
    observed.put("satisfier_asked_files", asked);
  }

  /** The flushed, compacted and archived files under the HBase root (what placement checks). */
  private static List<Path> storeFiles(DistributedFileSystem dfs, Configuration conf)
    throws IOException {
    PlacementReport report = new PlacementScanner(dfs, conf).scan(
      new Path(conf.get(HConstants.HBASE_DIR)));
    List<Path> placed = new ArrayList<>();
    for (PlacedFile f : report.files()) {
      if (f.kind() == FileKind.FLUSHED || f.kind() == FileKind.COMPACTED
        || f.kind() == FileKind.ARCHIVED) {
        placed.add(new Path(f.path()));
      }
    }
    return placed;
  }

  /** The most NVDIMM space any live DataNode reports left to the NameNode, in bytes. */
  private static long nvdimmRemaining(DistributedFileSystem dfs) throws IOException {
    long most = 0;
    for (org.apache.hadoop.hdfs.server.protocol.DatanodeStorageReport d : dfs.getClient()
      .getDatanodeStorageReport(org.apache.hadoop.hdfs.protocol.HdfsConstants.DatanodeReportType
        .LIVE)) {
      for (org.apache.hadoop.hdfs.server.protocol.StorageReport r : d.getStorageReports()) {
        if (r.getStorage().getStorageType() == org.apache.hadoop.fs.StorageType.NVDIMM) {
          most = Math.max(most, r.getRemaining());
        }
      }
    }
    return most;
  }

  private void rollWals(Connection conn, ObjectNode observed, String key) {
    try (Admin admin = conn.getAdmin()) {
      for (org.apache.hadoop.hbase.ServerName sn : admin.getRegionServers()) {
        admin.rollWALWriter(sn);
      }
      observed.put(key, "ok");
    } catch (IOException | RuntimeException e) {
      observed.put(key, e.toString());
    }
  }

  /** Storage types of the blocks of the WALs created from {@code sinceMs} on, counted. */
  private static void walStorage(DistributedFileSystem dfs, Configuration conf, long sinceMs,
    ObjectNode counts) throws IOException {
    Path walRoot = new Path(conf.get("hbase.wal.dir", conf.get(HConstants.HBASE_DIR)),
      HConstants.HREGION_LOGDIR_NAME);
    int files = 0;
    org.apache.hadoop.fs.RemoteIterator<org.apache.hadoop.fs.LocatedFileStatus> it =
      dfs.listFiles(walRoot, true);
    while (it.hasNext()) {
      Path p = it.next().getPath();
      if (TierFaults.walCreatedMs(p.getName()) < sinceMs) {
        continue;
      }
      files++;
      org.apache.hadoop.hdfs.protocol.LocatedBlocks lbs = dfs.getClient()
        .getLocatedBlocks(p.toUri().getPath(), 0, Long.MAX_VALUE);
      List<org.apache.hadoop.hdfs.protocol.LocatedBlock> blocks = new ArrayList<>(
        lbs.getLocatedBlocks());
      if (lbs.getLastLocatedBlock() != null && blocks.stream().noneMatch(
        b -> b.getBlock().getBlockId() == lbs.getLastLocatedBlock().getBlock().getBlockId())) {
        blocks.add(lbs.getLastLocatedBlock());
      }
      for (org.apache.hadoop.hdfs.protocol.LocatedBlock b : blocks) {
        for (org.apache.hadoop.fs.StorageType t : b.getStorageTypes()) {
          counts.put(t.name(), counts.path(t.name()).asInt(0) + 1);
        }
      }
    }
    counts.put("wal_files", files);
  }

  /**
   * {@code reboot-host} (host 1) and {@code power-loss} (every host with a replica of a block of
   * a live WAL, all at once): what a reboot does to a host. With {@code --netns} the host's
   * veth goes down first (its peers hear nothing more, as from a machine that lost power);
   * every daemon of the host is killed with SIGKILL, together; each of its DataNodes' RAM tier
   * volume is emptied as a reboot empties a tmpfs; after the fault's down time the veth comes
   * up, the DataNodes start and report their blocks, then the host's other daemons start.
   * Records the hosts, daemons, the live WALs' replicas by storage type and those of their
   * blocks with every replica in the RAM tiers wiped (whose edits the WAL can no longer give
   * back), and what each wipe removed. The daemons' names, for the report.
   */
  private String reboot(String fault, ObjectNode observed, DistributedFileSystem dfs,
    Configuration conf) throws Exception {
    JsonNode status = status();
    Map<String, List<String>> replicas = new LinkedHashMap<>();
    List<List<String[]>> blocks = new ArrayList<>();
    liveWalReplicas(dfs, conf, replicas, blocks);
    java.util.SortedSet<String> hosts = fault.equals("reboot-host")
      ? new java.util.TreeSet<>(List.of("strata-h1")) : HostFaults.walHosts(replicas, status);
    if (hosts.isEmpty()) {
      throw new IOException(fault + ": no live WAL under " + walRoot(conf)
        + " has a replica: no host to power off");
    }
    List<String> daemons = new ArrayList<>();
    for (String h : hosts) {
      daemons.addAll(HostFaults.daemonsOf(h, status));
    }
    observed.put("wal_policy", conf.get(WAL_POLICY_KEY, "NONE"));
    hosts.forEach(observed.withArray("hosts")::add);
    daemons.forEach(observed.withArray("daemons")::add);
    observed.put("live_wals", replicas.size());
    ObjectNode types = observed.putObject("wal_replicas_by_type");
    int blocksOnlyInWipedRam = 0;
    for (List<String[]> block : blocks) {
      boolean allWiped = !block.isEmpty();
      for (String[] replica : block) {
        types.put(replica[1], types.path(replica[1]).asInt(0) + 1);
        allWiped &= replica[1].equals("NVDIMM") && hosts.contains(replica[2]);
      }
      blocksOnlyInWipedRam += allWiped ? 1 : 0;
    }
    observed.put("wal_blocks", blocks.size());
    observed.put("wal_blocks_only_in_wiped_ram", blocksOnlyInWipedRam);
    Map<String, ProcessHandle> running = new LinkedHashMap<>();
    for (JsonNode d : status.get("daemons")) {
      String n = d.get("name").asText();
      if (daemons.contains(n) && d.get("alive").asBoolean() && d.get("pid").canConvertToLong()) {
        ProcessHandle.of(d.get("pid").asLong()).ifPresent(ph -> running.put(n, ph));
      }
    }
    boolean netns = status.path("netns").asBoolean(false);
    if (netns) {
      for (String h : hosts) {
        ip("link", "set", veth(h), "down");
      }
    }
    running.values().forEach(ProcessHandle::destroyForcibly);
    for (Map.Entry<String, ProcessHandle> e : running.entrySet()) {
      try {
        e.getValue().onExit().get(30, TimeUnit.SECONDS);
      } catch (java.util.concurrent.TimeoutException te) {
        throw new IOException(e.getKey() + " (pid " + e.getValue().pid() + ") still runs 30 s "
          + "after SIGKILL");
      }
    }
    out.printf(Locale.ROOT, "%s: hosts %s down (SIGKILL: %s)%n", fault, hosts, running.keySet());
    ObjectNode wiped = observed.putObject("ram_wiped");
    Map<String, Long> logFrom = new LinkedHashMap<>();
    for (String d : daemons) {
      if (d.startsWith("datanode-")) {
        HostFaults.Wiped w = HostFaults.wipe(HostFaults.ramVolume(clusterDir, d));
        ObjectNode o = wiped.putObject(d);
        o.put("files", w.files);
        o.put("block_replicas", w.blockReplicas);
        o.put("mb", w.bytes >> 20);
        logFrom.put(d, new File(daemonLog(d)).length());
      }
    }
    Thread.sleep(TimeUnit.SECONDS.toMillis(s.downS()));
    if (netns) {
      for (String h : hosts) {
        ip("link", "set", veth(h), "up");
      }
    }
    long restartNanos = System.nanoTime();
    for (String d : logFrom.keySet()) {
      cluster("start", d);
    }
    // The NameNode must know the DataNodes' blocks (and the lack of those wiped) before a
    // RegionServer asks it for a WAL's pipeline or replays one.
    ObjectNode reported = observed.putObject("datanode_block_report_after_s");
    for (Map.Entry<String, Long> e : logFrom.entrySet()) {
      File log = new File(daemonLog(e.getKey()));
      long deadline = restartNanos + TimeUnit.SECONDS.toNanos(DATANODE_BACK_S);
      double after = -1;
      while (after < 0 && System.nanoTime() < deadline) {
        for (String l : TierFaults.logSince(log, e.getValue())) {
          if (l.contains("Successfully sent block report")) {
            after = (System.nanoTime() - restartNanos) / 1e9;
            break;
          }
        }
        if (after < 0) {
          Thread.sleep(1000);
        }
      }
      if (after >= 0) {
        reported.put(e.getKey(), after);
      } else {
        reported.put(e.getKey(), "not within " + DATANODE_BACK_S + " s");
      }
    }
    for (String d : daemons) {
      if (!d.startsWith("datanode-")) {
        cluster("start", d);
      }
    }
    out.printf(Locale.ROOT, "%s: %d live WALs, %d blocks (%d with every replica in the RAM "
      + "tiers wiped), replicas %s; wiped %s; restarted %s%n", fault, replicas.size(),
      blocks.size(), blocksOnlyInWipedRam, types, wiped, daemons);
    return String.join(", ", hosts) + " (" + String.join(", ", daemons) + ")";
  }

  /**
   * After a host fault, what a supervisor (systemd) of each machine does: a daemon of the
   * cluster that exited since (a master whose own store WAL lost every DataNode aborts, as a
   * real one does) is started again, and counted under {@code observed.restarted_after_exit}
   * (per daemon: how many times).
   */
  private void superviseAfterReboot(String fault, ObjectNode observed) throws Exception {
    for (JsonNode d : status().get("daemons")) {
      if (!d.get("alive").asBoolean()) {
        String n = d.get("name").asText();
        out.printf(Locale.ROOT, "%s: %s exited after the reboot (its log: why); starting it "
          + "again as a supervisor would%n", fault, n);
        ObjectNode restarts = observed.has("restarted_after_exit")
          ? (ObjectNode) observed.get("restarted_after_exit")
          : observed.putObject("restarted_after_exit");
        restarts.put(n, restarts.path(n).asInt(0) + 1);
        cluster("start", n);
      }
    }
  }

  /** The veth of a host on the cluster's bridge ({@code strata-h1}: {@code st-h1}). */
  private static String veth(String host) {
    return "st-" + host.substring("strata-".length());
  }

  private static Path walRoot(Configuration conf) {
    return new Path(conf.get("hbase.wal.dir", conf.get(HConstants.HBASE_DIR)),
      HConstants.HREGION_LOGDIR_NAME);
  }

  /**
   * The live WALs (every file under the WAL root, those of servers being split too: their
   * edits are not in HFiles yet) and their blocks' replicas as the NameNode lists them, the
   * last block being written included: {@code replicas} maps each WAL to the transfer addresses
   * of its DataNodes; {@code blocks} gets per block its replicas as {address, storage type,
   * host}.
   */
  private void liveWalReplicas(DistributedFileSystem dfs, Configuration conf,
    Map<String, List<String>> replicas, List<List<String[]>> blocks) throws Exception {
    JsonNode status = status();
    Map<String, String> hostByAddress = new LinkedHashMap<>();
    for (JsonNode d : status.get("daemons")) {
      hostByAddress.put(d.path("address").asText(), HostFaults.hostOf(d.get("name").asText()));
    }
    Path root = walRoot(conf);
    if (!dfs.exists(root)) {
      return;
    }
    org.apache.hadoop.fs.RemoteIterator<org.apache.hadoop.fs.LocatedFileStatus> it =
      dfs.listFiles(root, true);
    while (it.hasNext()) {
      String p = it.next().getPath().toUri().getPath();
      org.apache.hadoop.hdfs.protocol.LocatedBlocks lbs;
      try {
        lbs = dfs.getClient().getLocatedBlocks(p, 0, Long.MAX_VALUE);
      } catch (java.io.FileNotFoundException gone) {
        continue; // rolled and archived since the listing
      }
      List<org.apache.hadoop.hdfs.protocol.LocatedBlock> bs = new ArrayList<>(
        lbs.getLocatedBlocks());
      if (lbs.getLastLocatedBlock() != null && bs.stream().noneMatch(
        b -> b.getBlock().getBlockId() == lbs.getLastLocatedBlock().getBlock().getBlockId())) {
        bs.add(lbs.getLastLocatedBlock());
      }
      List<String> addrs = replicas.computeIfAbsent(p, k -> new ArrayList<>());
      for (org.apache.hadoop.hdfs.protocol.LocatedBlock b : bs) {
        List<String[]> block = new ArrayList<>();
        org.apache.hadoop.hdfs.protocol.DatanodeInfo[] locs = b.getLocations();
        org.apache.hadoop.fs.StorageType[] st = b.getStorageTypes();
        for (int i = 0; i < locs.length; i++) {
          String addr = locs[i].getXferAddr();
          addrs.add(addr);
          block.add(new String[] { addr, i < st.length ? st[i].name() : "?",
            hostByAddress.getOrDefault(addr, "?") });
        }
        blocks.add(block);
      }
    }
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
      for (JsonNode d : status().get("daemons")) {
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
      return whyDown(daemon, new File(daemonLog(daemon)));
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

  /** The cluster's RegionServers, by daemon name. */
  private List<String> regionServers() throws Exception {
    List<String> out = new ArrayList<>();
    for (JsonNode d : status().get("daemons")) {
      if (d.get("name").asText().startsWith("regionserver-")) {
        out.add(d.get("name").asText());
      }
    }
    return out;
  }

  /** The RegionServer daemon serving hbase:meta, matched by its RPC port. */
  private String metaServer(Connection conn) throws Exception {
    int port;
    try (org.apache.hadoop.hbase.client.RegionLocator meta =
      conn.getRegionLocator(TableName.META_TABLE_NAME)) {
      port = meta.getRegionLocation(HConstants.EMPTY_START_ROW, true).getServerName().getPort();
    }
    for (JsonNode d : status().get("daemons")) {
      if (d.get("name").asText().startsWith("regionserver-")
        && d.path("address").asText().endsWith(":" + port)) {
        return d.get("name").asText();
      }
    }
    throw new IOException("no RegionServer of the cluster's status listens on port " + port
      + ", where hbase:meta is served");
  }

  private String daemonLog(String daemon) throws Exception {
    for (JsonNode d : status().get("daemons")) {
      if (d.get("name").asText().equals(daemon)) {
        return d.get("log").asText();
      }
    }
    throw new IOException("no daemon " + daemon + " in the cluster's status");
  }

  /**
   * Flushes the table and waits until every flushed, compacted and archived file of the root is
   * where its storage policy wants its blocks; seconds waited, or -1 after the limit.
   */
  private double placementConverged(Connection conn, DistributedFileSystem dfs,
    Configuration conf) throws Exception {
    long start = System.nanoTime();
    long deadline = start + TimeUnit.SECONDS.toNanos(s.placementS());
    // A master that was just restarted answers "initializing" for a while: ask again.
    while (true) {
      try (Admin admin = conn.getAdmin()) {
        admin.flush(TableName.valueOf("strata_chaos"));
        break;
      } catch (IOException e) {
        if (System.nanoTime() > deadline) {
          out.printf(Locale.ROOT, "placement: the table could not be flushed within %d s: %s%n",
            s.placementS(), e);
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
  private void snapshotCloneCold(VerifyingLoad load, Connection conn, DistributedFileSystem dfs,
    Configuration conf, ObjectNode observed) throws Exception {
    TableName table = TableName.valueOf("strata_chaos");
    String stamp = Long.toString(System.currentTimeMillis(), 36);
    String snapshot = "strata_chaos_snap_" + stamp;
    TableName clone = TableName.valueOf("strata_chaos_clone_" + stamp);
    Map<String, Ledger.Expected> before = load.acknowledgedNow();
    observed.put("snapshot", snapshot);
    observed.put("acked_before_snapshot", before.size());
    try (Admin admin = conn.getAdmin()) {
      long t0 = System.nanoTime();
      admin.snapshot(snapshot, table);
      observed.put("snapshot_s", (System.nanoTime() - t0) / 1e9);
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
        observed.put("major_compaction_s", (System.nanoTime() - t0) / 1e9);
        // The archived files on their policy's types before the clone reads them.
        double placed = placementConverged(conn, dfs, conf);
        observed.put("archive_placed_s", placed);
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
        observed.put("archived_files", archived);
        observed.put("archived_files_all_on_archive", onArchive);
        t0 = System.nanoTime();
        admin.cloneSnapshot(snapshot, clone);
        observed.put("clone_s", (System.nanoTime() - t0) / 1e9);
        Ledger.Verdict v = load.verify(clone, before, VerifyingLoad.VERIFY_PATIENCE_S);
        observed.put("clone_checked", v.checked());
        observed.put("clone_lost", v.lost());
        observed.put("clone_duplicated", v.duplicated());
        observed.put("clone_unreadable", v.unreadable());
        v.examples().forEach(observed.withArray("clone_problems")::add);
        observed.put("clone_verified", v.lost() == 0 && v.duplicated() == 0
          && v.unreadable() == 0 && v.checked() == before.size() && placed >= 0);
        out.printf(Locale.ROOT, "snapshot-clone-cold: %d writes acknowledged before the snapshot; "
          + "%d archived files (%d with every replica on ARCHIVE); the clone read %d of them "
          + "back, lost %d, unreadable %d%n", before.size(), archived, onArchive, v.checked(),
          v.lost(), v.unreadable());
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

  private JsonNode status() throws Exception {
    File f = File.createTempFile("strata-chaos-status", ".json");
    try {
      runScript(List.of("status", "--dir", clusterDir.getPath(), "--json", f.getPath()), true);
      return new ObjectMapper().readTree(f);
    } finally {
      f.delete();
    }
  }

  private static void ip(String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("ip"));
    cmd.addAll(Arrays.asList(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException(String.join(" ", cmd) + " failed: " + output);
    }
  }

  private void cluster(String... args) throws Exception {
    List<String> cmd = new ArrayList<>(Arrays.asList(args));
    cmd.add("--dir");
    cmd.add(clusterDir.getPath());
    runScript(cmd, false);
  }

  private void runScript(List<String> args, boolean statusMayFail) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(clusterScript.getPath());
    cmd.addAll(args);
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(300, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException(String.join(" ", cmd) + ": no exit within 300 s");
    }
    // status exits 3 while a daemon is down: its JSON is what is wanted.
    if (p.exitValue() != 0 && !(statusMayFail && p.exitValue() == 3)) {
      throw new IOException(String.join(" ", cmd) + " exited " + p.exitValue() + ": " + output);
    }
  }
}
