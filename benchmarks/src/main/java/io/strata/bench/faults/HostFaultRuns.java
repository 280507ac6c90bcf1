package io.strata.bench.faults;

import com.fasterxml.jackson.databind.JsonNode;
import io.strata.bench.common.BenchJson;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hdfs.DistributedFileSystem;

/**
 * The host faults' runs ({@code reboot-host}, {@code power-loss}): what a reboot does to a host,
 * and the supervision that follows it; {@link HostFaults} holds the pieces that need no cluster.
 * Not thread-safe: the campaign's thread runs them.
 */
final class HostFaultRuns {
  private final ClusterControl ctl;
  private final PrintStream out;
  /** Seconds a killed host stays down. */
  private final int downS;

  HostFaultRuns(ClusterControl ctl, PrintStream out, int downS) {
    this.ctl = ctl;
    this.out = out;
    this.downS = downS;
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
   * back), and what each wipe removed.
   */
  Rebooted reboot(String fault, DistributedFileSystem dfs, Configuration conf)
    throws Exception {
    JsonNode status = ctl.status();
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
    Map<String, Integer> types = new LinkedHashMap<>();
    int blocksOnlyInWipedRam = 0;
    for (List<String[]> block : blocks) {
      boolean allWiped = !block.isEmpty();
      for (String[] replica : block) {
        types.merge(replica[1], 1, Integer::sum);
        allWiped &= replica[1].equals("NVDIMM") && hosts.contains(replica[2]);
      }
      blocksOnlyInWipedRam += allWiped ? 1 : 0;
    }
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
        ClusterControl.ip("link", "set", veth(h), "down");
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
    Map<String, ChaosResult.Wiped> wiped = new LinkedHashMap<>();
    Map<String, Long> logFrom = new LinkedHashMap<>();
    for (String d : daemons) {
      if (d.startsWith("datanode-")) {
        HostFaults.Wiped w = HostFaults.wipe(HostFaults.ramVolume(ctl.clusterDir(), d));
        wiped.put(d, new ChaosResult.Wiped(w.files, w.blockReplicas, w.bytes >> 20));
        logFrom.put(d, new File(ctl.daemonLog(d)).length());
      }
    }
    Thread.sleep(TimeUnit.SECONDS.toMillis(downS));
    if (netns) {
      for (String h : hosts) {
        ClusterControl.ip("link", "set", veth(h), "up");
      }
    }
    long restartNanos = System.nanoTime();
    for (String d : logFrom.keySet()) {
      ctl.cluster("start", d);
    }
    // The NameNode must know the DataNodes' blocks (and the lack of those wiped) before a
    // RegionServer asks it for a WAL's pipeline or replays one.
    Map<String, Seconds> reported = new LinkedHashMap<>();
    for (Map.Entry<String, Long> e : logFrom.entrySet()) {
      File log = new File(ctl.daemonLog(e.getKey()));
      long deadline = restartNanos + TimeUnit.SECONDS.toNanos(FaultCampaign.DATANODE_BACK_S);
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
      reported.put(e.getKey(), Seconds.orNotWithin(after, FaultCampaign.DATANODE_BACK_S));
    }
    for (String d : daemons) {
      if (!d.startsWith("datanode-")) {
        ctl.cluster("start", d);
      }
    }
    out.printf(Locale.ROOT, "%s: %d live WALs, %d blocks (%d with every replica in the RAM "
      + "tiers wiped), replicas %s; wiped %s; restarted %s%n", fault, replicas.size(),
      blocks.size(), blocksOnlyInWipedRam, BenchJson.tree(types), BenchJson.tree(wiped),
      daemons);
    return new Rebooted(String.join(", ", hosts) + " (" + String.join(", ", daemons) + ")",
      new ChaosResult.HostFault(conf.get(FaultCampaign.WAL_POLICY_KEY, "NONE"),
        new ArrayList<>(hosts), daemons, replicas.size(), types, blocks.size(),
        blocksOnlyInWipedRam, wiped, reported, null));
  }

  /** A host fault's daemons' names, for the report, and what it did. */
  record Rebooted(String name, ChaosResult.HostFault observed) {
  }

  /**
   * After a host fault, what a supervisor (systemd) of each machine does: a daemon of the
   * cluster that exited since (a master whose own store WAL lost every DataNode aborts, as a
   * real one does) is started again, and counted in {@code restarts} (per daemon: how many
   * times; {@code observed.restarted_after_exit}).
   */
  void superviseAfterReboot(String fault, Map<String, Integer> restarts) throws Exception {
    for (JsonNode d : ctl.status().get("daemons")) {
      if (!d.get("alive").asBoolean()) {
        String n = d.get("name").asText();
        out.printf(Locale.ROOT, "%s: %s exited after the reboot (its log: why); starting it "
          + "again as a supervisor would%n", fault, n);
        restarts.merge(n, 1, Integer::sum);
        ctl.cluster("start", n);
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
    JsonNode status = ctl.status();
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
}
