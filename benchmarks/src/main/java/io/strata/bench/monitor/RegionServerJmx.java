package io.strata.bench.monitor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.ServerMetrics;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.regionserver.MetricsRegionServerSource;

/**
 * The RegionServers' own metrics, read the way they are read from a remote cluster: the live
 * servers and their info ports from {@link Admin#getClusterMetrics()}, then each server's
 * {@code /jmx} servlet for bean {@code Hadoop:service=HBase,name=RegionServer,sub=Server}
 * (memstore size, flush and compaction queue lengths, store files, blocked requests, time
 * updates were blocked) and {@code Hadoop:service=HBase,name=JvmMetrics} ({@code GcTimeMillis}).
 * Values are summed over servers; servers that answer with the same {@code serverName} are one
 * process (several RegionServers of an embedded cluster share one JVM and one MBean server) and
 * count once; a bean that names a server no longer live (one that ran earlier in the same JVM
 * left it registered) is refused rather than reported. The servers refresh these values every {@code hbase.regionserver.metrics.period}
 * and {@code /jmx} caches them for the metrics system's period ({@code *.period} of
 * hadoop-metrics2.properties): samples finer than those repeat a value. Thread-safe.
 */
public final class RegionServerJmx {
  static final String SERVER_BEAN = "Hadoop:service=HBase,name=RegionServer,sub="
    + MetricsRegionServerSource.METRICS_NAME;
  static final String JVM_BEAN = "Hadoop:service=HBase,name=JvmMetrics";
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Tries of a bean that is not there: 50, 100, 200, 400 and 800 ms apart. */
  private static final int ATTEMPTS = 6;

  /** Gauges and counters summed over servers, in the order of {@link Monitor#HBASE_SERIES}. */
  record Reading(double memstoreMb, double flushQueue, double compactionQueue, double storeFiles,
    long blockedRequests, long updatesBlockedMs, long gcMs, int servers) {
  }

  private final Admin admin;
  private final HttpClient http;
  private final Duration timeout;

  public RegionServerJmx(Admin admin, Duration timeout) {
    this.admin = admin;
    this.timeout = timeout;
    this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
  }

  /** One reading of every live RegionServer; fails naming the server that could not be read. */
  Reading read() throws IOException {
    ClusterMetrics cm = admin.getClusterMetrics(
      java.util.EnumSet.of(ClusterMetrics.Option.LIVE_SERVERS));
    List<JsonNode[]> beans = new ArrayList<>();
    Set<String> liveNames = new HashSet<>();
    cm.getLiveServerMetrics().keySet().forEach(n -> liveNames.add(n.toString()));
    Set<String> seen = new HashSet<>();
    for (ServerMetrics sm : cm.getLiveServerMetrics().values()) {
      int port = sm.getInfoServerPort();
      if (port <= 0) {
        throw new IOException("RegionServer " + sm.getServerName() + " runs no info server "
          + "(hbase.regionserver.info.port is -1), so its metrics cannot be read over /jmx");
      }
      String base = "http://" + sm.getServerName().getHostname() + ":" + port + "/jmx?qry=";
      JsonNode server = bean(base, SERVER_BEAN, sm);
      // Hadoop exposes a source's tags as "tag.<name>" attributes.
      String servedFor = server.path("tag." + MetricsRegionServerSource.SERVER_NAME_NAME)
        .asText(null);
      if (servedFor != null && !servedFor.equals(sm.getServerName().toString())
        && !liveNames.contains(servedFor)) {
        // A RegionServer that ran earlier in this JVM left its source registered, and the live
        // one's could not take the name: its values are a stopped server's, not to be reported.
        throw new IOException("RegionServer " + sm.getServerName() + "'s /jmx serves the "
          + "metrics of " + servedFor + ", a RegionServer no longer live");
      }
      if (seen.add(servedFor != null ? servedFor : sm.getServerName().toString())) {
        beans.add(new JsonNode[] { server, bean(base, JVM_BEAN, sm) });
      }
    }
    return sum(beans);
  }

  static Reading sum(List<JsonNode[]> beans) {
    double memstore = 0;
    double flushQ = 0;
    double compactQ = 0;
    double files = 0;
    long blocked = 0;
    long blockedMs = 0;
    long gc = 0;
    for (JsonNode[] b : beans) {
      memstore += b[0].path(MetricsRegionServerSource.MEMSTORE_SIZE).asDouble() / (1 << 20);
      flushQ += b[0].path(MetricsRegionServerSource.FLUSH_QUEUE_LENGTH).asDouble();
      compactQ += b[0].path(MetricsRegionServerSource.COMPACTION_QUEUE_LENGTH).asDouble();
      files += b[0].path(MetricsRegionServerSource.STOREFILE_COUNT).asDouble();
      blocked += b[0].path(MetricsRegionServerSource.BLOCKED_REQUESTS_COUNT).asLong();
      blockedMs += b[0].path(MetricsRegionServerSource.UPDATES_BLOCKED_TIME).asLong();
      gc += b[1].path("GcTimeMillis").asLong();
    }
    return new Reading(memstore, flushQ, compactQ, files, blocked, blockedMs, gc, beans.size());
  }

  private JsonNode bean(String base, String name, ServerMetrics sm) throws IOException {
    URI uri = URI.create(base + java.net.URLEncoder.encode(name,
      java.nio.charset.StandardCharsets.UTF_8));
    // Hadoop's metrics system unregisters a source's MBean and registers it again when the
    // source gains attributes (a RegionServer's first flush adds histograms): for a while (up
    // to half a second on a loaded machine) /jmx has no such bean. Asked again, it has.
    for (int attempt = 1;; attempt++) {
      JsonNode b = beanOnce(uri, name, sm, attempt == ATTEMPTS);
      if (b != null) {
        return b;
      }
      try {
        Thread.sleep(50L << (attempt - 1));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted reading " + uri, e);
      }
    }
  }

  /** The bean, or null when /jmx has none of that name and {@code last} is false. */
  private JsonNode beanOnce(URI uri, String name, ServerMetrics sm, boolean last)
    throws IOException {
    HttpResponse<String> r;
    try {
      r = http.send(HttpRequest.newBuilder(uri).timeout(timeout).build(),
        HttpResponse.BodyHandlers.ofString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted reading " + uri, e);
    }
    if (r.statusCode() != 200) {
      throw new IOException("RegionServer " + sm.getServerName() + ": " + uri + " answered HTTP "
        + r.statusCode());
    }
    JsonNode beans = JSON.readTree(r.body()).path("beans");
    if (!beans.isArray() || beans.isEmpty()) {
      if (!last) {
        return null;
      }
      throw new IOException("RegionServer " + sm.getServerName() + " has no bean " + name
        + " at " + uri + " (asked " + ATTEMPTS + " times in 1.5 s)");
    }
    return beans.get(0);
  }
}
