package io.strata.bench.faults;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;

/**
 * The running multi-process cluster as the campaign drives it: {@code bin/strata-cluster}'s
 * status, start, stop and kill of a daemon, what its status says about each daemon (address, pid,
 * log), the RegionServers and the one serving {@code hbase:meta}, and the loop volumes and block
 * files under its directory. Every fault's run goes through one of these.
 * Thread-safety: none needed (the campaign's thread, and flush threads that do not use it).
 */
final class ClusterControl {
  private final File clusterScript;
  private final File clusterDir;

  ClusterControl(File clusterScript, File clusterDir) {
    this.clusterScript = clusterScript;
    this.clusterDir = clusterDir;
  }

  /** The cluster's directory ({@code strata-cluster --dir}). */
  File clusterDir() {
    return clusterDir;
  }

  JsonNode status() throws Exception {
    File f = File.createTempFile("strata-chaos-status", ".json");
    try {
      runScript(List.of("status", "--dir", clusterDir.getPath(), "--json", f.getPath()), true);
      return new ObjectMapper().readTree(f);
    } finally {
      f.delete();
    }
  }

  static void ip(String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("ip"));
    cmd.addAll(Arrays.asList(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException(String.join(" ", cmd) + " failed: " + output);
    }
  }

  void cluster(String... args) throws Exception {
    List<String> cmd = new ArrayList<>(Arrays.asList(args));
    cmd.add("--dir");
    cmd.add(clusterDir.getPath());
    runScript(cmd, false);
  }

  void runScript(List<String> args, boolean statusMayFail) throws Exception {
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
  /** A status field of daemon {@code name}. */
  String daemonField(String name, String field) throws Exception {
    for (JsonNode d : status().get("daemons")) {
      if (d.get("name").asText().equals(name)) {
        return d.path(field).asText();
      }
    }
    throw new IOException("no daemon " + name + " in the cluster's status");
  }

  String daemonLog(String daemon) throws Exception {
    for (JsonNode d : status().get("daemons")) {
      if (d.get("name").asText().equals(daemon)) {
        return d.get("log").asText();
      }
    }
    throw new IOException("no daemon " + daemon + " in the cluster's status");
  }

  /** The cluster's RegionServers, by daemon name. */
  List<String> regionServers() throws Exception {
    List<String> out = new ArrayList<>();
    for (JsonNode d : status().get("daemons")) {
      if (d.get("name").asText().startsWith("regionserver-")) {
        out.add(d.get("name").asText());
      }
    }
    return out;
  }

  /** The RegionServer daemon serving hbase:meta, matched by its RPC port. */
  String metaServer(Connection conn) throws Exception {
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

  /** {@code DIR/media/volumes}: the loop volumes {@code bin/strata-media.sh} set up. */
  File mediaState() {
    return new File(clusterDir, "media/volumes");
  }

  VolumeFaults.Volume mediaVolume(String fault) throws IOException {
    VolumeFaults.Volume v = VolumeFaults.find(VolumeFaults.parse(
      java.nio.file.Files.readAllLines(mediaState().toPath())), 1,
      FaultCampaign.volumeOf(fault));
    if (v == null) {
      throw new IOException(mediaState() + " records no volume datanode-1-"
        + FaultCampaign.volumeOf(fault));
    }
    return v;
  }

  /** Blocks written since {@code fromMs} to each SSD and DISK volume of every DataNode. */
  Map<String, Integer> blocksSince(long fromMs) throws IOException {
    Map<String, Integer> n = new LinkedHashMap<>();
    for (int dn = 1; new File(clusterDir, "data/datanode-" + dn).isDirectory(); dn++) {
      for (String v : List.of("ssd", "disk")) {
        n.put("datanode-" + dn + "-" + v, TierFaults.blocksWrittenSince(
          new File(clusterDir, "data/datanode-" + dn + "/" + v), fromMs));
      }
    }
    return n;
  }
}
