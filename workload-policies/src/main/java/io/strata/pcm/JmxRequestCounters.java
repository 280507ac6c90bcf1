package io.strata.pcm;

import com.fasterxml.jackson.databind.JsonNode;
import io.strata.metrics.JmxServlet;
import java.io.IOException;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
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
 * several periods. The servlet is read through {@link JmxServlet}. Thread-safe: the reader is,
 * and the only other state is the two "known" flags, which only decide what is logged.
 */
public final class JmxRequestCounters implements ReadOpCounter, InsertCounter {
  private static final Logger LOG = LoggerFactory.getLogger(JmxRequestCounters.class);
  static final String SAMPLER_BEAN = "Hadoop:service=HBase,name=RegionServer,sub=Coprocessor."
    + "Region.CP_" + InsertSampler.class.getName();

  private final JmxServlet jmx;
  /** Whether the last read had the counts: a change either way is logged once, not each read. */
  private final AtomicBoolean readsKnown = new AtomicBoolean(true);
  private final AtomicBoolean insertsKnown = new AtomicBoolean(true);

  public JmxRequestCounters(long timeoutMs) {
    this.jmx = new JmxServlet(Duration.ofMillis(timeoutMs));
  }

  /** The bean that carries {@code table}'s request metrics. */
  static String beanName(TableName table) {
    return "Hadoop:service=HBase,name=RegionServer,sub=TableRequests_Namespace_"
      + table.getNamespaceAsString() + "_table_" + table.getQualifierAsString();
  }

  /** Get and Scan operations in one {@code /jmx} answer; null when the bean is not in it. */
  static ReadOps parse(String json, TableName table) throws IOException {
    return parse(JmxServlet.beans(json), table);
  }

  private static ReadOps parse(List<JsonNode> beans, TableName table) {
    JsonNode b = JmxServlet.named(beans, beanName(table));
    if (b == null) {
      return null;
    }
    long gets = JmxServlet.attribute(b, "getTime_num_ops");
    long scans = JmxServlet.attribute(b, "scanTime_num_ops");
    return gets < 0 || scans < 0 ? null : new ReadOps(gets, scans);
  }

  /** Sampled and inserting Puts in one {@code /jmx} answer; null when they are not in it. */
  static InsertCounts parseInserts(String json, TableName table) throws IOException {
    return parseInserts(JmxServlet.beans(json), table);
  }

  private static InsertCounts parseInserts(List<JsonNode> beans, TableName table) {
    JsonNode b = JmxServlet.named(beans, SAMPLER_BEAN);
    if (b == null) {
      return null;
    }
    long sampled = JmxServlet.attribute(b, InsertSampler.counterName(table, "putsSampled"));
    long inserting = JmxServlet.attribute(b, InsertSampler.counterName(table, "putsInserting"));
    return sampled < 0 || inserting < 0 ? null : new InsertCounts(sampled, inserting);
  }

  @Override
  public ReadOps readOps(TableName table, Collection<ServerMetrics> servers) {
    long[] sum = sumOver(table, servers, beanName(table), "the Get/Scan split",
      "are hbase.regionserver.enable.table.latencies and the info server on?", readsKnown,
      (beans, t) -> {
        ReadOps o = parse(beans, t);
        return o == null ? null : new long[] {o.gets(), o.scans()};
      });
    return sum == null ? null : new ReadOps(sum[0], sum[1]);
  }

  @Override
  public InsertCounts insertCounts(TableName table, Collection<ServerMetrics> servers) {
    long[] sum = sumOver(table, servers, SAMPLER_BEAN, "the insert/update split",
      "is " + InsertSampler.class.getName() + " in hbase.coprocessor.region.classes?",
      insertsKnown, (beans, t) -> {
        InsertCounts c = parseInserts(beans, t);
        return c == null ? null : new long[] {c.sampled(), c.inserting()};
      });
    return sum == null ? null : new InsertCounts(sum[0], sum[1]);
  }

  /** Two counts from one {@code /jmx} answer's beans, or null. */
  private interface Parser {
    long[] parse(List<JsonNode> beans, TableName table);
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
      try {
        long[] counts = parser.parse(jmx.query(host, port, bean), table);
        if (counts == null) {
          warnOnce(known, JmxServlet.uri(host, port, bean) + " gave no counts for " + what
            + " of table " + table + " (" + hint + "); it is unknown");
          return null;
        }
        sum[0] += counts[0];
        sum[1] += counts[1];
      } catch (IOException e) {
        warnOnce(known, "cannot read " + JmxServlet.uri(host, port, bean) + ": " + e + "; "
          + what + " of table " + table + " is unknown");
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
