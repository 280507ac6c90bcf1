package io.strata.bench.monitor;

import com.fasterxml.jackson.databind.JsonNode;
import io.strata.metrics.JmxServlet;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.ServerMetrics;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.regionserver.MetricsRegionServerSource;

/**
 * The RegionServers' own metrics, read the way they are read from a remote cluster: the live
 * servers and their info ports from {@link Admin#getClusterMetrics()}, then each server's
 * {@code /jmx} servlet ({@link JmxServlet}) for its bean
 * {@code Hadoop:service=HBase,name=RegionServer,sub=Server} (memstore size, flush and compaction
 * queue lengths, store files, blocked requests, time updates were blocked) and
 * {@code Hadoop:service=HBase,name=JvmMetrics} ({@code GcTimeMillis}).
 *
 * <p>Several RegionServers in one JVM (an embedded cluster, or two clusters side by side) share
 * one MBean server: the first to register takes {@code sub=Server}, the others get a numbered
 * name ({@code sub=Server-1}, ...), and a stopped one may leave its bean behind. So the beans
 * {@code sub=Server*} are read and each live server's is the one whose {@code tag.serverName}
 * names it; a server whose own bean is not there is an error (a gap), never another server's
 * values. GC time is the JVM's: counted once per JVM (the servers whose answers list the same
 * live servers). Values are summed over servers. The servers refresh these values every
 * {@code hbase.regionserver.metrics.period} and {@code /jmx} caches them for the metrics
 * system's period ({@code *.period} of hadoop-metrics2.properties): samples finer than those
 * repeat a value. Thread-safe.
 */
public final class RegionServerJmx {
  static final String SERVER_BEAN = "Hadoop:service=HBase,name=RegionServer,sub="
    + MetricsRegionServerSource.METRICS_NAME;
  /** Every RegionServer's bean in a JVM: the first's and the numbered ones. */
  static final String SERVER_BEANS = SERVER_BEAN + "*";
  static final String JVM_BEAN = "Hadoop:service=HBase,name=JvmMetrics";
  /** Hadoop exposes a source's tags as "tag.<name>" attributes. */
  static final String SERVER_NAME_TAG = "tag." + MetricsRegionServerSource.SERVER_NAME_NAME;
  /** Tries of a bean that is not there: 50, 100, 200, 400 and 800 ms apart. */
  private static final int ATTEMPTS = 6;

  /** Gauges and counters summed over servers, in the order of {@link Monitor#HBASE_SERIES}. */
  record Reading(double memstoreMb, double flushQueue, double compactionQueue, double storeFiles,
    long blockedRequests, long updatesBlockedMs, long gcMs, int servers) {
  }

  private final Admin admin;
  private final JmxServlet jmx;

  public RegionServerJmx(Admin admin, Duration timeout) {
    this.admin = admin;
    this.jmx = new JmxServlet(timeout);
  }

  /** One reading of every live RegionServer; fails naming the server that could not be read. */
  Reading read() throws IOException {
    ClusterMetrics cm = admin.getClusterMetrics(EnumSet.of(ClusterMetrics.Option.LIVE_SERVERS));
    Set<String> live = new HashSet<>();
    cm.getLiveServerMetrics().keySet().forEach(n -> live.add(n.toString()));
    List<JsonNode> servers = new ArrayList<>();
    Map<Set<String>, JsonNode> jvms = new LinkedHashMap<>();
    for (ServerMetrics sm : cm.getLiveServerMetrics().values()) {
      int port = sm.getInfoServerPort();
      if (port <= 0) {
        throw new IOException("RegionServer " + sm.getServerName() + " runs no info server "
          + "(hbase.regionserver.info.port is -1), so its metrics cannot be read over /jmx");
      }
      String host = sm.getServerName().getHostname();
      String name = sm.getServerName().toString();
      List<JsonNode> beans = beans(host, port, SERVER_BEANS, b -> own(b, name) != null,
        "RegionServer " + name + " has no bean of its own", "its metrics source is not "
          + "registered, and another server's values are not reported for it");
      servers.add(own(beans, name));
      Set<String> jvm = liveIn(beans, live);
      if (!jvms.containsKey(jvm)) {
        jvms.put(jvm, JmxServlet.named(beans(host, port, JVM_BEAN,
          b -> JmxServlet.named(b, JVM_BEAN) != null, "RegionServer " + name + " has no bean "
            + JVM_BEAN, "its JVM's GC time is unknown"), JVM_BEAN));
      }
    }
    return sum(servers, List.copyOf(jvms.values()));
  }

  /** The bean among {@code beans} whose server name tag is {@code serverName}, or null. */
  static JsonNode own(List<JsonNode> beans, String serverName) {
    for (JsonNode b : beans) {
      if (serverName.equals(b.path(SERVER_NAME_TAG).asText(null))) {
        return b;
      }
    }
    return null;
  }

  /** The live servers that have a bean among {@code beans}: the JVM's identity. */
  static Set<String> liveIn(List<JsonNode> beans, Set<String> live) {
    Set<String> names = new TreeSet<>();
    for (JsonNode b : beans) {
      String n = b.path(SERVER_NAME_TAG).asText(null);
      if (n != null && live.contains(n)) {
        names.add(n);
      }
    }
    return names;
  }

  static Reading sum(List<JsonNode> servers, List<JsonNode> jvms) {
    double memstore = 0;
    double flushQ = 0;
    double compactQ = 0;
    double files = 0;
    long blocked = 0;
    long blockedMs = 0;
    long gc = 0;
    for (JsonNode b : servers) {
      memstore += b.path(MetricsRegionServerSource.MEMSTORE_SIZE).asDouble() / (1 << 20);
      flushQ += b.path(MetricsRegionServerSource.FLUSH_QUEUE_LENGTH).asDouble();
      compactQ += b.path(MetricsRegionServerSource.COMPACTION_QUEUE_LENGTH).asDouble();
      files += b.path(MetricsRegionServerSource.STOREFILE_COUNT).asDouble();
      blocked += b.path(MetricsRegionServerSource.BLOCKED_REQUESTS_COUNT).asLong();
      blockedMs += b.path(MetricsRegionServerSource.UPDATES_BLOCKED_TIME).asLong();
    }
    for (JsonNode j : jvms) {
      gc += j.path("GcTimeMillis").asLong();
    }
    return new Reading(memstore, flushQ, compactQ, files, blocked, blockedMs, gc, servers.size());
  }

  /**
   * The beans matching {@code pattern} once {@code found} holds for them; fails with
   * {@code missing} (what was there, and {@code consequence}) after {@value #ATTEMPTS} tries.
   */
  private List<JsonNode> beans(String host, int port, String pattern,
    Predicate<List<JsonNode>> found, String missing, String consequence) throws IOException {
    // Hadoop's metrics system unregisters a source's MBean and registers it again when the
    // source gains attributes (a RegionServer's first flush adds histograms): for a while (up
    // to half a second on a loaded machine) /jmx has no such bean. Asked again, it has.
    for (int attempt = 1;; attempt++) {
      List<JsonNode> beans = jmx.query(host, port, pattern);
      if (found.test(beans)) {
        return beans;
      }
      if (attempt == ATTEMPTS) {
        List<String> there = new ArrayList<>();
        beans.forEach(b -> there.add(b.path("name").asText()
          + (b.has(SERVER_NAME_TAG) ? " of " + b.path(SERVER_NAME_TAG).asText() : "")));
        throw new IOException(missing + " at " + JmxServlet.uri(host, port, pattern) + " (asked "
          + ATTEMPTS + " times in 1.5 s; there: " + there + "): " + consequence);
      }
      try {
        Thread.sleep(50L << (attempt - 1));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted reading " + JmxServlet.uri(host, port, pattern), e);
      }
    }
  }
}
