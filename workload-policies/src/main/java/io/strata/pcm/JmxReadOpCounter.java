package io.strata.pcm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.hbase.ServerMetrics;
import org.apache.hadoop.hbase.TableName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads each RegionServer's per-table request metrics over its info server's {@code /jmx}
 * servlet: bean {@code Hadoop:service=HBase,name=RegionServer,sub=TableRequests_Namespace_NS_table_T}
 * (HBase 2.6's MetricsTableRequests, on unless {@code hbase.regionserver.enable.table.latencies}
 * is false), attributes {@code getTime_num_ops} and {@code scanTime_num_ops}. The servers refresh
 * these at their metrics period (10 s by default), so rates need a window of several periods.
 * Thread-safe: the HTTP client is, and nothing else is shared.
 */
public final class JmxReadOpCounter implements ReadOpCounter {
  private static final Logger LOG = LoggerFactory.getLogger(JmxReadOpCounter.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient http;
  private final Duration timeout;
  /** Whether the last read had the counts: a change either way is logged once, not each read. */
  private volatile boolean known = true;

  public JmxReadOpCounter(long timeoutMs) {
    this.timeout = Duration.ofMillis(timeoutMs);
    this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
  }

  /** The bean that carries {@code table}'s request metrics. */
  static String beanName(TableName table) {
    return "Hadoop:service=HBase,name=RegionServer,sub=TableRequests_Namespace_"
      + table.getNamespaceAsString() + "_table_" + table.getQualifierAsString();
  }

  /** Get and Scan operations in one {@code /jmx} answer; null when the bean is not in it. */
  static ReadOps parse(String json, TableName table) throws IOException {
    String bean = beanName(table);
    for (JsonNode b : JSON.readTree(json).path("beans")) {
      if (!bean.equals(b.path("name").asText())) {
        continue;
      }
      long gets = -1;
      long scans = -1;
      for (Iterator<Map.Entry<String, JsonNode>> it = b.fields(); it.hasNext();) {
        Map.Entry<String, JsonNode> e = it.next();
        String k = e.getKey().toLowerCase(Locale.ROOT);
        if (k.equals("gettime_num_ops")) {
          gets = e.getValue().asLong();
        } else if (k.equals("scantime_num_ops")) {
          scans = e.getValue().asLong();
        }
      }
      return gets < 0 || scans < 0 ? null : new ReadOps(gets, scans);
    }
    return null;
  }

  @Override
  public ReadOps readOps(TableName table, Collection<ServerMetrics> servers) {
    long gets = 0;
    long scans = 0;
    for (ServerMetrics sm : servers) {
      int port = sm.getInfoServerPort();
      String host = sm.getServerName().getHostname();
      if (port <= 0) {
        warnOnce("RegionServer " + sm.getServerName() + " has no info server; the Get/Scan "
          + "split of table " + table + " is unknown (read-only counts as RO-Read)");
        return null;
      }
      URI uri = URI.create("http://" + host + ":" + port + "/jmx?qry="
        + URLEncoder.encode(beanName(table), StandardCharsets.UTF_8));
      try {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri).timeout(timeout).build(),
          HttpResponse.BodyHandlers.ofString());
        ReadOps ops = r.statusCode() == 200 ? parse(r.body(), table) : null;
        if (ops == null) {
          warnOnce(uri + " gave no Get/Scan counts for table " + table + " (HTTP "
            + r.statusCode() + "; are hbase.regionserver.enable.table.latencies and the info "
            + "server on?); the split is unknown");
          return null;
        }
        gets += ops.gets();
        scans += ops.scans();
      } catch (IOException e) {
        warnOnce("cannot read " + uri + ": " + e + "; the Get/Scan split of table " + table
          + " is unknown");
        return null;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return null;
      }
    }
    if (!known) {
      known = true;
      LOG.info("Get/Scan split of table {} known again from the RegionServers' /jmx", table);
    }
    return new ReadOps(gets, scans);
  }

  private void warnOnce(String msg) {
    if (known) {
      known = false;
      LOG.warn(msg);
    } else {
      LOG.debug(msg);
    }
  }
}
