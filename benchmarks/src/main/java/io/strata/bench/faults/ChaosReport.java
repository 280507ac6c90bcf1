package io.strata.bench.faults;

import io.strata.bench.common.BenchJson;
import io.strata.bench.common.Charts;
import java.awt.Color;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.knowm.xchart.XYChart;

/**
 * The report of a fault campaign: {@code results.json} as {@link FaultCampaign} made it,
 * {@code throughput.png} (acknowledged writes per second over the run, each fault shaded from
 * its injection to its repair) and {@code report.md} (a row per fault, and whose behaviour each
 * recovery time is: upstream HBase's or HDFS's, or Strata's). Stateless; thread-safe.
 */
public final class ChaosReport {
  /** Whose machinery a fault's recovery runs through, for the report. */
  static final Map<String, String> WHOSE = Map.ofEntries(
    Map.entry("kill-regionserver", "HBase: its regions are reassigned once its ZooKeeper session "
      + "expires (`zookeeper.session.timeout`, 90 s by default) and its WAL is split and "
      + "replayed"),
    Map.entry("kill-master", "HBase: clients keep writing to the RegionServers; a new master "
      + "takes over its procedures"),
    Map.entry("kill-datanode", "HDFS: writers rebuild their pipelines without it; Strata: the "
      + "satisfier and tier mover place the files written meanwhile"),
    Map.entry("kill-namenode", "HDFS: metadata calls wait for it, then for its safe mode (30 s "
      + "extension); HBase aborts a server whose flush or procedure-store write fails, unless "
      + "its client retries (`dfs.client.retry.policy.enabled`, set by Strata's hbase-site)"),
    Map.entry("kill-tier-mover", "Strata: writes do not wait on it; it resumes from its saved "
      + "transaction"),
    Map.entry("kill-satisfier", "Strata: writes do not wait on it; the files it held are handed "
      + "out again"),
    Map.entry("kill-satisfier-mid-move", "Strata: the satisfier killed while it moves a set of "
      + "files from DISK to ARCHIVE; the restarted one takes the files it held from its journal "
      + "and ends the move, every block at full replication and every file intact (HDFS's "
      + "DataNodes finish or drop the block moves already handed to them)"),
    Map.entry("kill-zookeeper", "HBase and ZooKeeper: sessions reconnect within their timeout"),
    Map.entry("stop-regionserver", "HBase: calls to it time out (`hbase.rpc.timeout`) and are "
      + "retried; it keeps its regions while its ZooKeeper session lives"),
    Map.entry("stop-datanode", "HDFS: writers drop it from their pipelines after the socket "
      + "timeout"),
    Map.entry("partition-host", "HBase and HDFS: as a stopped RegionServer and DataNode of one "
      + "host"),
    Map.entry("slow-volume", "HDFS (upstream's): a write pipeline through the stalled volume "
      + "waits on it (every packet, flush and sync 4 s), and so do the HBase flushes and WAL "
      + "syncs it carries; Strata's: the latency-aware volume chooser gives new blocks to the "
      + "DataNode's other volumes of the type when it has any (`strata cluster up --ssd-volumes "
      + "2`), and the stall itself (`VolumeStallSwitch`, a flag file in the volume)"),
    Map.entry("ram-tier-full", "HDFS (upstream's): once heartbeats report the NVDIMM storages "
      + "full the NameNode places new blocks by the policy's creation fallback (ALL_NVDIMM's: "
      + "DISK), and a DataNode refuses a block on a volume without room, the writer rebuilding "
      + "its pipeline; Strata's: WALs on RAM_SSD (`hbase.wal.storage.policy`: one replica on "
      + "NVDIMM, two on SSD; its creation fallback SSD, then DISK), the RAM tier's size as a "
      + "reserve (`dfs.datanode.du.reserved.nvdimm`); a WAL replica that fell back stays off "
      + "NVDIMM until the WAL is rolled and archived (nothing moves it back)"),
    Map.entry("malformed-rpc", "HBase (upstream's): the RPC server's preamble, length and "
      + "header checks close a connection that breaks the framing; Strata's: the hybrid RPC "
      + "server's offer path, which only well-formed calls reach (the endpoint's own hostile "
      + "peers: the native hostile_* tests, on SoftRoCE)"),
    Map.entry("reboot-host", "HBase: the RegionServer's regions are reassigned once it comes "
      + "back with a new start code (or its ZooKeeper session expires) and its WAL is split "
      + "from the replicas on the other hosts; HDFS: the DataNode comes back without its RAM "
      + "tier's replicas and the NameNode re-replicates what they held; Strata's: the WAL "
      + "policy (`hbase.wal.storage.policy`) decides whether another host holds each WAL "
      + "block, which it does with 3 replicas on 3 hosts whatever the tier"),
    Map.entry("power-loss", "Strata's WAL policy: every host with a replica of a live WAL "
      + "loses its RAM tier at once, so the unflushed edits survive only in replicas on "
      + "durable media: none under ALL_NVDIMM (`strata.unsafe.wal.volatile.accept`), the SSD "
      + "replicas under a policy with one RAM and two SSD replicas; then HBase's WAL split and "
      + "replay, and HDFS's lease and block recovery of the WALs being written; an HMaster "
      + "whose store WAL loses all its DataNodes at once aborts (HBase's), and is started again "
      + "as a supervisor would (`observed.restarted_after_exit`)"),
    Map.entry("kill-meta-regionserver", "HBase: the master reassigns `hbase:meta` first, once "
      + "the server's ZooKeeper session expires or it comes back with a new start code, then "
      + "its other regions; clients find meta's new location and carry on"),
    Map.entry("kill-regionservers", "HBase: with every RegionServer gone at once no server can "
      + "take their regions until they are back; then every WAL is split and replayed"),
    Map.entry("rolling-restart-regionservers", "HBase: each server closes its regions (flushing "
      + "them) on TERM, the master moves them to the other server, and the restarted one takes "
      + "regions again from the balancer; the upgrade path"),
    Map.entry("lose-regionserver", "HBase: the master sees the lost server's ZooKeeper session "
      + "expire, splits its WAL and reopens its regions on the other servers (the slow path a "
      + "restart with a new start code skips)"),
    Map.entry("region-storm", "HBase: moves, splits, merges and balancer runs under load; the "
      + "client follows moved regions through RegionMovedException and `hbase:meta`; Strata's "
      + "placement keeps the files a split or merge writes on their policies"),
    Map.entry("flush-compaction-storm", "Strata: every flush and compaction output is pinned to "
      + "its policy before its first block, and the files the compactions archive go to "
      + "`strata.archive.storage.policy`; HBase's flush and compaction queues take the storm"),
    Map.entry("alter-under-load", "Strata: the validator refuses an unknown storage policy "
      + "before any region reopens; a valid `strata.*` change reopens every region under load "
      + "(HBase's modifyTable), and the new rule applies to files written after it"),
    Map.entry("snapshot-clone-cold", "Strata: the files a major compaction archives are placed "
      + "on `strata.archive.storage.policy` (COLD: every replica on ARCHIVE); HBase's snapshot "
      + "references them there and a clone reads them back from ARCHIVE"),
    Map.entry("volume-full", "HDFS: once heartbeats report the volume full the NameNode places "
      + "new replicas by the policy's fallbacks, and never moves them back; Strata: the "
      + "satisfier moves the files left off their policy once asked"),
    Map.entry("volume-io-errors", "Strata: the read-only volume watcher must find the volume "
      + "gone read-only, which HDFS's own volume check lets through, and fail it; HDFS then "
      + "drops it (`dfs.datanode.failed.volumes.tolerated`) and the NameNode re-replicates what "
      + "it held; writers' pipeline recovery avoids it meanwhile"),
    Map.entry("volume-stall", "HDFS: the DataNode's I/O threads block in the kernel on the "
      + "throttled device and pipelines through it wait; Strata: the latency-aware volume "
      + "chooser gives new blocks to other volumes of the type when the DataNode has any"));

  private ChaosReport() {
  }

  /** {@code ChaosReport RESULTS.json DIR COMMAND}: the report of a campaign run earlier. */
  public static void main(String[] args) throws IOException {
    if (args.length != 3) {
      System.err.println("usage: ChaosReport RESULTS.json DIR 'the strata chaos command'");
      System.exit(2);
    }
    write(new File(args[1]), BenchJson.read(new File(args[0]), ChaosResult.class), args[2]);
  }

  /** Writes results.json, throughput.png and report.md into {@code dir}. */
  public static void write(File dir, ChaosResult results, String command) throws IOException {
    if (!dir.isDirectory() && !dir.mkdirs()) {
      throw new IOException("cannot create " + dir);
    }
    BenchJson.write(new File(dir, "results.json"), results);
    plot(results, new File(dir, "throughput.png"));
    Files.writeString(new File(dir, "report.md").toPath(), markdown(results, command),
      StandardCharsets.UTF_8);
  }

  static void plot(ChaosResult results, File png) throws IOException {
    List<Long> perSecond = orEmpty(results.ackedPerS());
    double[] x = new double[perSecond.size()];
    double[] y = new double[perSecond.size()];
    for (int i = 0; i < x.length; i++) {
      x[i] = i;
      y[i] = perSecond.get(i);
    }
    XYChart chart = Charts.line("Acknowledged writes per second under faults", "seconds",
      "writes/s");
    Charts.series(chart, "acknowledged writes", new Color(40, 90, 170), x, y);
    List<double[]> faults = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (ChaosResult.Marker m : orEmpty(results.markers())) {
      faults.add(new double[] { m.atS(), m.repairedAtS() });
      names.add(m.fault());
    }
    Charts.bands(chart, "fault until repaired", null, faults, names);
    Charts.write(chart, png);
  }

  static String markdown(ChaosResult results, String command) {
    StringBuilder b = new StringBuilder("# Fault campaign\n\n");
    b.append("`").append(command).append("`");
    ChaosResult.Schedule sched = results.schedule();
    if (sched != null && sched.random()) {
      b.append(" (random schedule, seed ").append(n(sched.seed()))
        .append(": `--random ").append(orEmpty(sched.faults()).size()).append(" --seed ")
        .append(n(sched.seed())).append("` repeats it)");
    }
    if (results.commit() != null) {
      b.append("\n\nMeasured on: commit `").append(results.commit())
        .append("`, ").append(text(results.date())).append(" · transport `")
        .append(text(results.transport())).append("` · media emulation `")
        .append(text(results.emulation())).append("`");
    }
    if (results.walPolicy() != null) {
      b.append("\n\nWAL storage policy: `").append(results.walPolicy())
        .append("`").append(Boolean.TRUE.equals(results.walVolatileAccepted())
          ? " (`strata.unsafe.wal.volatile.accept=true`: every replica of a live WAL may be in "
            + "RAM)" : "");
    }
    b.append("\n\nEach fault after its load (").append(sched == null ? ""
        : BenchJson.tree(sched.loadBeforeS()).toString())
      .append(" s); lost, duplicated and read problems must be 0. Acknowledged: the writes "
        + "acknowledged before the verification after the fault; checked: those read back (the "
        + "rest unreadable: their regions did not open); ambiguous: writes whose calls failed or "
        + "timed out (every second writer's connection gives up after ")
      .append(results.impatientTimeoutMs() == null ? 0 : results.impatientTimeoutMs())
      .append(" ms), read back to see whether they landed (landed in brackets, the others did "
        + "not; an unreadable one is unresolved); reads: reads made while the fault happened, "
        + "checked never to return a value never written nor to go back before a write "
        + "acknowledged before them. Ops/s are acknowledged writes per second.\n\n")
      .append("![throughput](throughput.png)\n\n")
      .append("| fault | daemon | acknowledged | checked | ambiguous (landed) | lost | duplicated "
        + "| reads checked / problems | writes resumed (s) | placement converged (s) | ops/s "
        + "before / during / after | not back | recovered |\n")
      .append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|\n");
    List<ChaosResult.Fault> faults = orEmpty(results.faults());
    for (ChaosResult.Fault f : faults) {
      if (f.isSkipped()) {
        b.append(String.format(Locale.ROOT, "| %s | %s | skipped: %s | | | | | | | | | | |%n",
          text(f.fault()), text(f.daemon()), text(f.skipReason()).replace('|', '/')));
        continue;
      }
      String checked = f.checked() == null ? "" : n(f.unreadable()) == 0
        ? Long.toString(f.checked()) : f.checked() + " (**" + f.unreadable() + " unreadable**)";
      b.append(String.format(Locale.ROOT, "| %s | %s | %d | %s | %s | %d | %d | %s | %s | %s "
        + "| %.0f / %.0f / %.0f | %s | %s |%n", text(f.fault()), text(f.daemon()),
        n(f.ackedWrites()), checked, ambiguous(f.ambiguous(), f.ambiguousLanded(),
          f.ambiguousUnresolved()), n(f.lost()), n(f.duplicated()), reads(f.readsChecked(),
          f.readProblems()), cell(f.writesResumedS()), cell(f.placementConvergedS()),
        d(f.throughputBefore()), d(f.throughputDuring()), d(f.throughputAfter()),
        orEmpty(f.daemonsNotBack()).isEmpty() ? text(f.error())
          : BenchJson.tree(f.daemonsNotBack()).toString(),
        Boolean.TRUE.equals(f.recovered()) ? "yes" : "**no**"));
    }
    ChaosResult.Final fin = results.fin();
    if (fin != null) {
      b.append(String.format(Locale.ROOT, "\nFinal pass (the load stopped, every write it "
        + "recorded read back, those acknowledged after the last fault's verification "
        + "included): %d acknowledged, %d checked, %s ambiguous, %d lost, %d duplicated, %d "
        + "unreadable; reads checked over the run %d, read problems %d. Final pass verified: "
        + "%s%n", n(fin.ackedWrites()), n(fin.checked()),
        ambiguous(fin.ambiguous(), fin.ambiguousLanded(), fin.ambiguousUnresolved()),
        n(fin.lost()), n(fin.duplicated()), n(fin.unreadable()), n(fin.readsChecked()),
        n(fin.readProblems()), Boolean.TRUE.equals(results.finalVerified()) ? "yes" : "**no**"));
      for (String p : orEmpty(fin.problems())) {
        b.append("  - ").append(p.replace('`', '\'')).append('\n');
      }
      if (fin.error() != null) {
        b.append("  - ").append(fin.error().replace('`', '\'')).append('\n');
      }
    }
    if (results.stopped() != null) {
      b.append("\n**Stopped early**, no further fault injected (the final pass still ran): ")
        .append(results.stopped().replace('`', '\'')).append('\n');
    }
    b.append("\n## Whose behaviour the recovery is\n\n");
    java.util.Set<String> seen = new java.util.LinkedHashSet<>();
    for (ChaosResult.Fault f : faults) {
      seen.add(f.fault());
    }
    for (String fault : seen) {
      b.append("- `").append(fault).append("`: ").append(WHOSE.getOrDefault(fault, "?"))
        .append('\n');
    }
    b.append("\n## What was lost\n\n");
    for (ChaosResult.Fault f : faults) {
      long unreadable = n(f.unreadable());
      if (unreadable > 0) {
        // Not read is not known: the count lost is a lower bound.
        b.append(String.format(Locale.ROOT, "- `%s`: at least %d of %d acknowledged writes "
          + "lost; %d could not be read (not known whether kept)",
          f.fault(), n(f.lost()), n(f.ackedWrites()), unreadable));
      } else {
        b.append(String.format(Locale.ROOT, "- `%s`: %s of %d acknowledged writes lost",
          f.fault(), n(f.lost()) < 0 ? "not known how many" : Long.toString(n(f.lost())),
          n(f.ackedWrites())));
      }
      if (f.checked() != null) {
        b.append(String.format(Locale.ROOT, " (checked %d, duplicated %d, unreadable %d)",
          f.checked(), n(f.duplicated()), n(f.unreadable())));
      }
      b.append('\n');
      for (String p : orEmpty(f.problems())) {
        b.append("  - ").append(p.replace('`', '\'')).append('\n');
      }
    }
    boolean anyObserved = false;
    for (ChaosResult.Fault f : faults) {
      if (f.observed() != null) {
        if (!anyObserved) {
          b.append("\n## What the faults did\n\n");
          anyObserved = true;
        }
        b.append("- `").append(f.fault()).append("`: ");
        // Every field the fault's parts hold, as results.json has it; the DataNode's log apart.
        List<String> parts = new ArrayList<>();
        BenchJson.tree(f.observed()).fields().forEachRemaining(e -> {
          if (!e.getKey().equals("datanode_log")) {
            parts.add(e.getKey() + " " + (e.getValue().isTextual() ? e.getValue().asText()
              : e.getValue().toString()));
          }
        });
        b.append(String.join("; ", parts)).append('\n');
        ChaosResult.DataNodeSide dn = f.observed().dataNode();
        for (String l : dn == null ? List.<String>of() : orEmpty(dn.datanodeLog())) {
          b.append("  - DataNode log: `").append(l.replace('`', '\'')).append("`\n");
        }
      }
    }
    b.append("\nAll recovered: ").append(Boolean.TRUE.equals(results.allRecovered()) ? "yes"
      : "**no**").append('\n');
    return b.toString();
  }

  /** "12 (5)": ambiguous writes (those that landed); "3 (1, **2 unresolved**)"; "" unknown. */
  private static String ambiguous(Long ambiguous, Long landed, Long unresolved) {
    if (ambiguous == null) {
      return "";
    }
    return ambiguous + " (" + n(landed) + (n(unresolved) == 0 ? ""
      : ", **" + unresolved + " unresolved**") + ")";
  }

  /** "1200 / 0": reads checked and read problems; "" unknown. */
  private static String reads(Long checked, Long problems) {
    if (checked == null) {
      return "";
    }
    return checked + " / " + (n(problems) == 0 ? "0" : "**" + problems + "**");
  }

  private static String cell(Seconds s) {
    return s == null ? "(not)" : s.cell();
  }

  /** A count the report shows as 0 when the run did not record it. */
  private static long n(Long v) {
    return v == null ? 0 : v;
  }

  private static double d(Double v) {
    return v == null ? 0 : v;
  }

  private static String text(String s) {
    return s == null ? "" : s;
  }

  private static <T> List<T> orEmpty(List<T> l) {
    return l == null ? List.of() : l;
  }
}
