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
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.hbase.ServerMetrics;
import org.apache.hadoop.hbase.TableName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads each RegionServer's per-table counters over its info server's {@code /jmx} servlet:
 * <ul>
 * <li>Get and Scan operations from bean
 * {@code Hadoop:service=HBase,name=RegionServer,sub=TableRequests_Namespace_NS_table_T} (HBase
 * 2.6's MetricsTableRequests, on unless {@code hbase.regionserver.enable.table.latencies} is
 * false), attributes {@code getTime_num_ops} and {@code scanTime_num_ops};</li>
 * <li>sampled and inserting Puts from {@link InsertSampler}'s coprocessor bean, attributes
 * {@code Namespace_NS_table_T_putsSampled} and {@code ..._putsInserting}.</li>
 * </ul>
 * The servers refresh these at their metrics period (10 s by default), so rates need a window of
 * several periods. Thread-safe: the HTTP client is, and the only other state is the two
 * "known" flags, which only decide what is logged.
 */
public final class JmxRequestCounters implements ReadOpCounter, InsertCounter {
  private static final Logger LOG = LoggerFactory.getLogger(JmxRequestCounters.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  static final String SAMPLER_BEAN = "Hadoop:service=HBase,name=RegionServer,sub=Coprocessor."
    + "Region.CP_" + InsertSampler.class.getName();

  private final HttpClient http;
  private final Duration timeout;
  /** Whether the last read had the counts: a change either way is logged once, not each read. */
  private final AtomicBoolean readsKnown = new AtomicBoolean(true);
  private final AtomicBoolean insertsKnown = new AtomicBoolean(true);

  public JmxRequestCounters(long timeoutMs) {
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
    JsonNode b = bean(json, beanName(table));
    if (b == null) {
      return null;
    }
    long gets = attribute(b, "getTime_num_ops");
    long scans = attribute(b, "scanTime_num_ops");
    return gets < 0 || scans < 0 ? null : new ReadOps(gets, scans);
  }

  /** Sampled and inserting Puts in one {@code /jmx} answer; null when they are not in it. */
  static InsertCounts parseInserts(String json, TableName table) throws IOException {
    JsonNode b = bean(json, SAMPLER_BEAN);
    if (b == null) {
      return null;
    }
    long sampled = attribute(b, InsertSampler.counterName(table, "putsSampled"));
    long inserting = attribute(b, InsertSampler.counterName(table, "putsInserting"));
    return sampled < 0 || inserting < 0 ? null : new InsertCounts(sampled, inserting);
  }

  private static JsonNode bean(String json, String name) throws IOException {
    for (JsonNode b : JSON.readTree(json).path("beans")) {
      if (name.equals(b.path("name").asText())) {
        return b;
      }
    }
    return null;
  }

  /** A whole-number attribute, matched without case (metrics2 keeps the registry's spelling). */
  private static long attribute(JsonNode bean, String name) {
    for (Iterator<Map.Entry<String, JsonNode>> it = bean.fields(); it.hasNext();) {
      Map.Entry<String, JsonNode> e = it.next();
      if (e.getKey().toLowerCase(Locale.ROOT).equals(name.toLowerCase(Locale.ROOT))) {
        return e.getValue().asLong(-1);
      }
    }
    return -1;
  }

  @Override
  public ReadOps readOps(TableName table, Collection<ServerMetrics> servers) {
    long[] sum = sumOver(table, servers, beanName(table), "the Get/Scan split",
      "are hbase.regionserver.enable.table.latencies and the info server on?", readsKnown,
      (json, t) -> {
        ReadOps o = parse(json, t);
        return o == null ? null : new long[] {o.gets(), o.scans()};
      });
    return sum == null ? null : new ReadOps(sum[0], sum[1]);
  }

  @Override
  public InsertCounts insertCounts(TableName table, Collection<ServerMetrics> servers) {
    long[] sum = sumOver(table, servers, SAMPLER_BEAN, "the insert/update split",
      "is " + InsertSampler.class.getName() + " in hbase.coprocessor.region.classes?",
      insertsKnown, (json, t) -> {
        InsertCounts c = parseInserts(json, t);
        return c == null ? null : new long[] {c.sampled(), c.inserting()};
      });
    return sum == null ? null : new InsertCounts(sum[0], sum[1]);
  }

  /** Two counts from one {@code /jmx} answer, or null; may throw on bad JSON. */
  private interface Parser {
    long[] parse(String json, TableName table) throws IOException;
  }

  /**
   * The two counts {@code parser} finds in {@code bean}, summed over {@code servers}; null when
   * any server cannot give them, so that a partial sum is never taken for the whole.
   */
  private long[] sumOver(TableName table, Collection<ServerMetrics> servers, String bean,
    String what, String hint, AtomicBoolean known, Parser parser) {
    long[] sum = new long[2];
    for (ServerMetrics sm : servers) {
      int port = sm.getInfoServerPort();
      String host = sm.getServerName().getHostname();
      if (port <= 0) {
        warnOnce(known, "RegionServer " + sm.getServerName() + " has no info server; " + what
          + " of table " + table + " is unknown");
        return null;
      }
      URI uri = URI.create("http://" + host + ":" + port + "/jmx?qry="
        + URLEncoder.encode(bean, StandardCharsets.UTF_8));
      try {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri).timeout(timeout).build(),
          HttpResponse.BodyHandlers.ofString());
        long[] counts = r.statusCode() == 200 ? parser.parse(r.body(), table) : null;
        if (counts == null) {
          warnOnce(known, uri + " gave no counts for " + what + " of table " + table + " (HTTP "
            + r.statusCode() + "; " + hint + "); it is unknown");
          return null;
        }
        sum[0] += counts[0];
        sum[1] += counts[1];
      } catch (IOException e) {
        warnOnce(known, "cannot read " + uri + ": " + e + "; " + what + " of table " + table
          + " is unknown");
        return null;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return null;
      }
    }
    if (known.compareAndSet(false, true)) {
      LOG.info("{} of table {} known again from the RegionServers' /jmx", what, table);
    }
    return sum;
  }

  private static void warnOnce(AtomicBoolean known, String msg) {
    if (known.compareAndSet(true, false)) {
      LOG.warn(msg);
    } else {
      LOG.debug(msg);
    }
  }
}
