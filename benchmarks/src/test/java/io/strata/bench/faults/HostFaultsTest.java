package io.strata.bench.faults;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.nio.file.Files;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.Test;

/** The host faults' pure parts: the cluster's hosts, the hosts of live WALs, the RAM wipe. */
public class HostFaultsTest {
  /** {@code strata-cluster status --json} of the default layout, with or without --netns. */
  private static JsonNode status(boolean netns) throws Exception {
    StringBuilder b = new StringBuilder("{\"daemons\": [");
    String[] names = { "zookeeper", "namenode", "datanode-1", "datanode-2", "datanode-3",
      "satisfier", "tier-mover", "master", "regionserver-1", "regionserver-2" };
    for (int i = 0; i < names.length; i++) {
      String n = names[i];
      String ip = !netns ? "127.0.0.1" : n.matches(".*-\\d") ? "10.213.0."
        + (10 + Integer.parseInt(n.substring(n.length() - 1))) : "10.213.0.10";
      String port = n.startsWith("datanode-") ? Integer.toString(26100 + 10
        * Integer.parseInt(n.substring(9))) : n.startsWith("regionserver-")
        ? Integer.toString(26200 + 10 * Integer.parseInt(n.substring(13))) : "26001";
      String ns = !netns ? "" : n.matches(".*-\\d") ? "strata-h" + n.substring(n.length() - 1)
        : "strata-nn";
      b.append(i == 0 ? "" : ", ").append("{\"name\": \"").append(n).append("\", \"pid\": ")
        .append(1000 + i).append(", \"alive\": true, \"address\": \"").append(ip).append(':')
        .append(port).append("\", \"netns\": \"").append(ns).append("\"}");
    }
    return new ObjectMapper().readTree(b.append("], \"netns\": ").append(netns).append('}')
      .toString());
  }

  @Test
  public void eachHostRunsItsDataNodeAndRegionServerTheNameNodeHostTheRest() throws Exception {
    for (boolean netns : new boolean[] { false, true }) {
      JsonNode s = status(netns);
      Map<String, List<String>> hosts = HostFaults.hosts(s);
      assertEquals(List.of("strata-nn", "strata-h1", "strata-h2", "strata-h3"),
        List.copyOf(hosts.keySet()));
      assertEquals(List.of("datanode-1", "regionserver-1"), HostFaults.daemonsOf("strata-h1", s));
      assertEquals(List.of("datanode-3"), HostFaults.daemonsOf("strata-h3", s));
      assertEquals(List.of("zookeeper", "namenode", "satisfier", "tier-mover", "master"),
        hosts.get("strata-nn"));
    }
    assertEquals("strata-h12", HostFaults.hostOf("regionserver-12"));
    try {
      HostFaults.daemonsOf("strata-h9", status(false));
      fail("a host the cluster does not have");
    } catch (IllegalArgumentException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("strata-h9"));
    }
  }

  @Test
  public void aNamespaceThatContradictsTheLayoutIsAnError() throws Exception {
    JsonNode s = new ObjectMapper().readTree("{\"daemons\": [{\"name\": \"datanode-1\", "
      + "\"netns\": \"strata-h2\"}]}");
    try {
      HostFaults.hosts(s);
      fail("datanode-1 in host 2's namespace");
    } catch (IllegalStateException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("datanode-1"));
    }
  }

  @Test
  public void theHostsOfLiveWalsAreThoseOfTheirReplicasDataNodes() throws Exception {
    for (boolean netns : new boolean[] { false, true }) {
      String ip = netns ? "10.213.0.1" : "127.0.0.1";
      JsonNode s = status(netns);
      Map<String, List<String>> replicas = new LinkedHashMap<>();
      replicas.put("/hbase/WALs/rs1/wal.1", List.of((netns ? ip + "1" : ip) + ":26110",
        (netns ? ip + "3" : ip) + ":26130"));
      assertEquals(List.of("strata-h1", "strata-h3"),
        List.copyOf(HostFaults.walHosts(replicas, s)));
      replicas.put("/hbase/WALs/rs2/wal.2", List.of((netns ? ip + "2" : ip) + ":26120"));
      assertEquals(List.of("strata-h1", "strata-h2", "strata-h3"),
        List.copyOf(HostFaults.walHosts(replicas, s)));
    }
    assertTrue(HostFaults.walHosts(Map.of(), status(false)).isEmpty());
    // A RegionServer's address is no DataNode's: a replica there is an error, not ignored.
    try {
      HostFaults.walHosts(Map.of("/hbase/WALs/rs1/wal.1", List.of("127.0.0.1:26210")),
        status(false));
      fail("a replica on no DataNode of the cluster");
    } catch (IllegalStateException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("127.0.0.1:26210"));
    }
  }

  @Test
  public void aWipeEmptiesTheRamVolumeThroughItsLinkAndKeepsItsMountPoint() throws Exception {
    File cluster = Files.createTempDirectory("host-faults").toFile();
    File shm = new File(cluster, "shm/datanode-1");
    File blocks = new File(shm, "current/BP-1/current/finalized/subdir0/subdir0");
    assertTrue(blocks.mkdirs());
    Files.write(new File(blocks, "blk_1073741825").toPath(), new byte[4096]);
    Files.write(new File(blocks, "blk_1073741825_1001.meta").toPath(), new byte[39]);
    Files.write(new File(shm, "current/VERSION").toPath(), new byte[100]);
    // Outside the volume, reached through a link inside it: not followed, not wiped.
    File outside = new File(cluster, "keep");
    Files.write(outside.toPath(), new byte[7]);
    Files.createSymbolicLink(new File(shm, "link").toPath(), outside.toPath());
    File dnDir = new File(cluster, "data/datanode-1");
    assertTrue(dnDir.mkdirs());
    Files.createSymbolicLink(new File(dnDir, "ram").toPath(), shm.toPath());
    File ram = HostFaults.ramVolume(cluster, "datanode-1");
    assertEquals(new File(dnDir, "ram"), ram);

    HostFaults.Wiped w = HostFaults.wipe(ram);
    assertEquals(3, w.files);
    assertEquals(1, w.blockReplicas);
    assertEquals(4096 + 39 + 100, w.bytes);
    assertTrue(shm.isDirectory());
    assertEquals(0, shm.list().length);
    assertTrue(outside.isFile());
    assertEquals(0, HostFaults.wipe(ram).files);
    assertFalse(new File(cluster, "data/datanode-2/ram").exists());
    try {
      HostFaults.wipe(new File(cluster, "data/datanode-2/ram"));
      fail("no RAM volume to wipe");
    } catch (java.io.IOException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("datanode-2"));
    }
  }
}
