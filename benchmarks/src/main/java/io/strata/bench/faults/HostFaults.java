package io.strata.bench.faults;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * The host faults of {@link FaultCampaign} ({@code reboot-host}, {@code power-loss}) and their
 * pure parts: which daemons run on which host of {@code bin/strata-cluster}'s layout, which hosts
 * hold a replica of a live WAL, and the wipe of a DataNode's RAM tier that a reboot does to a
 * tmpfs. Stateless.
 *
 * <p>The layout is the cluster script's: host N ({@code strata-hN}, its network namespace with
 * {@code --netns}) runs DataNode N and RegionServer N; the NameNode host ({@code strata-nn})
 * runs ZooKeeper, the NameNode, the satisfier, the tier mover and the HMaster. Without
 * {@code --netns} every daemon binds 127.0.0.1, but the hosts are the same groups: a reboot
 * takes down what would share a machine.
 */
final class HostFaults {
  /** The NameNode host's name, as the cluster script names its namespace. */
  static final String NN_HOST = "strata-nn";

  private HostFaults() {
  }

  /** The host a daemon of the cluster runs on: {@code strata-hN} or {@link #NN_HOST}. */
  static String hostOf(String daemon) {
    for (String role : List.of("datanode-", "regionserver-")) {
      if (daemon.startsWith(role)) {
        String n = daemon.substring(role.length());
        if (!n.matches("[1-9][0-9]*")) {
          throw new IllegalArgumentException("daemon '" + daemon + "' has no host number");
        }
        return "strata-h" + n;
      }
    }
    return NN_HOST;
  }

  /**
   * Host to its daemons, in the status's order (the cluster's start order: DataNodes before
   * RegionServers), from {@code strata-cluster status --json}. A daemon's {@code netns}, when
   * the cluster has one, is its host; else the layout's ({@link #hostOf}). The two agree on a
   * cluster the script started; a disagreement is an error naming the daemon.
   */
  static Map<String, List<String>> hosts(JsonNode status) {
    Map<String, List<String>> hosts = new LinkedHashMap<>();
    for (JsonNode d : status.path("daemons")) {
      String name = d.get("name").asText();
      String host = hostOf(name);
      String ns = d.path("netns").asText("");
      if (!ns.isEmpty() && !ns.equals(host)) {
        throw new IllegalStateException("daemon " + name + " runs in namespace " + ns
          + ", not on host " + host + " of the cluster's layout");
      }
      hosts.computeIfAbsent(host, h -> new ArrayList<>()).add(name);
    }
    return hosts;
  }

  /** The daemons of one host, in start order; an error naming the hosts there are if none. */
  static List<String> daemonsOf(String host, JsonNode status) {
    Map<String, List<String>> hosts = hosts(status);
    List<String> d = hosts.get(host);
    if (d == null) {
      throw new IllegalArgumentException("no host " + host + " in the cluster; hosts: "
        + hosts.keySet());
    }
    return d;
  }

  /**
   * The hosts holding a replica of any block of the given WALs: {@code replicas} maps each WAL
   * to the transfer addresses ({@code ip:port}) of the DataNodes with its blocks' replicas, as
   * the NameNode lists them; a DataNode is found by its address in the cluster's status. An
   * address no DataNode of the cluster has is an error (a replica the fault could not take down).
   */
  static SortedSet<String> walHosts(Map<String, ? extends Collection<String>> replicas,
    JsonNode status) {
    Map<String, String> dnByAddress = new LinkedHashMap<>();
    for (JsonNode d : status.path("daemons")) {
      String name = d.get("name").asText();
      if (name.startsWith("datanode-")) {
        dnByAddress.put(d.path("address").asText(), name);
      }
    }
    SortedSet<String> hosts = new TreeSet<>();
    for (Map.Entry<String, ? extends Collection<String>> wal : replicas.entrySet()) {
      for (String addr : wal.getValue()) {
        String dn = dnByAddress.get(addr);
        if (dn == null) {
          throw new IllegalStateException("WAL " + wal.getKey() + " has a replica on " + addr
            + ", which is no DataNode of this cluster (its DataNodes: " + dnByAddress + ")");
        }
        hosts.add(hostOf(dn));
      }
    }
    return hosts;
  }

  /** The RAM tier's volume of DataNode {@code dn}: {@code data/datanode-N/ram} (a link). */
  static File ramVolume(File clusterDir, String dn) {
    return new File(clusterDir, "data/" + dn + "/ram");
  }

  /** What a wipe removed. */
  static final class Wiped {
    final int files;
    final int blockReplicas;
    final long bytes;

    Wiped(int files, int blockReplicas, long bytes) {
      this.files = files;
      this.blockReplicas = blockReplicas;
      this.bytes = bytes;
    }
  }

  /**
   * Empties a directory as a reboot empties a tmpfs: everything under it goes, the directory
   * itself (the mount point) stays. Follows the directory when it is a symbolic link (the RAM
   * volume links to /dev/shm), not links inside it. A directory that is missing is an error:
   * the fault would otherwise claim a wipe it did not do.
   */
  static Wiped wipe(File dir) throws IOException {
    Path root = dir.toPath().toRealPath();
    if (!Files.isDirectory(root)) {
      throw new IOException(dir + " is not a directory: no RAM tier to wipe");
    }
    int files = 0;
    int blocks = 0;
    long bytes = 0;
    List<Path> all;
    try (Stream<Path> s = Files.walk(root)) {
      all = new ArrayList<>(s.filter(p -> !p.equals(root)).toList());
    }
    // Deepest first: a directory is empty when its turn comes.
    all.sort(Comparator.comparingInt(Path::getNameCount).reversed());
    for (Path p : all) {
      if (Files.isRegularFile(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
        files++;
        bytes += Files.size(p);
        if (p.getFileName().toString().matches("blk_-?\\d+")) {
          blocks++;
        }
      }
      Files.delete(p);
    }
    return new Wiped(files, blocks, bytes);
  }
}
