package io.strata.hdfs;

import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CommonConfigurationKeysPublic;
import org.apache.hadoop.http.HttpServer2;
import org.apache.hadoop.http.PrometheusServlet;
import org.apache.hadoop.metrics2.MetricsSource;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;
import org.apache.hadoop.metrics2.sink.PrometheusMetricsSink;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP side of a Strata daemon ({@code strata satisfier}, {@code strata tier-mover}): Hadoop's
 * {@link HttpServer2} (which serves {@code /jmx}, {@code /conf}, {@code /stacks} and
 * {@code /logLevel}) and Hadoop metrics2, with the daemon's {@link MetricsSource} registered, so
 * that the same figures appear in {@code /jmx} and {@code /prometheus}.
 *
 * <p>{@code /prometheus} (and upstream's {@code /prom}) is upstream's {@link PrometheusServlet}
 * over an upstream {@link PrometheusMetricsSink} registered under a name of this daemon's own:
 * {@link HttpServer2} registers its sink as "prometheus", and a second server in one JVM (tests
 * run both daemons in one) would have its sink refused and serve nothing. It is on unless the
 * operator set {@code hadoop.prometheus.endpoint.enabled=false}.
 */
public final class DaemonHttp implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(DaemonHttp.class);
  /** {@code HttpServer2.PROMETHEUS_SINK}, the context attribute its servlet reads the sink from. */
  private static final String PROMETHEUS_SINK_ATTRIBUTE = "PROMETHEUS_SINK";

  private final HttpServer2 server;
  private final String sourceName;
  private final URI uri;

  private DaemonHttp(HttpServer2 server, String sourceName, URI uri) {
    this.server = server;
    this.sourceName = sourceName;
    this.uri = uri;
  }

  /**
   * Registers {@code source} as {@code sourceName} with the metrics system (initialised with
   * {@code prefix}, e.g. "StrataSatisfier") and serves HTTP at {@code address} (from the daemon's
   * key {@code addressKey}); null address: only the metrics source, logged at INFO.
   */
  public static DaemonHttp start(Configuration conf, String daemon, String addressKey,
    InetSocketAddress address, String prefix, String sourceName, MetricsSource source)
    throws IOException {
    DefaultMetricsSystem.initialize(prefix);
    DefaultMetricsSystem.instance().register(sourceName, daemon + " figures and health", source);
    if (address == null) {
      LOG.info("{}: no HTTP endpoint ({} is none); its figures are in JMX only", daemon,
        addressKey);
      return new DaemonHttp(null, sourceName, null);
    }
    boolean prometheus = prometheusEnabled(conf);
    // The server's own Prometheus sink is off: ours is registered under a name of its own.
    Configuration httpConf = new Configuration(conf);
    httpConf.setBoolean(CommonConfigurationKeysPublic.HADOOP_PROMETHEUS_ENABLED, false);
    HttpServer2 server;
    try {
      server = new HttpServer2.Builder().setName("strata").setConf(httpConf)
        .addEndpoint(URI.create("http://" + address.getHostString() + ":" + address.getPort()))
        .setFindPort(false).build();
      if (prometheus) {
        PrometheusMetricsSink sink = new PrometheusMetricsSink();
        server.setAttribute(PROMETHEUS_SINK_ATTRIBUTE, sink);
        server.addServlet("strata-prometheus", "/prometheus", PrometheusServlet.class);
        server.addServlet("strata-prom", "/prom", PrometheusServlet.class);
      }
      server.start();
      if (prometheus) {
        DefaultMetricsSystem.instance().register("prometheus-" + sourceName + "-"
          + server.getConnectorAddress(0).getPort(), daemon + " figures for /prometheus",
          (PrometheusMetricsSink) server.getAttribute(PROMETHEUS_SINK_ATTRIBUTE));
      }
    } catch (IOException | RuntimeException e) {
      DefaultMetricsSystem.instance().unregisterSource(sourceName);
      throw new IOException(daemon + ": cannot serve HTTP at " + address.getHostString() + ":"
        + address.getPort() + " (" + addressKey + "; 'none' turns it off): " + e, e);
    }
    InetSocketAddress bound = server.getConnectorAddress(0);
    String host = address.getHostString();
    if (host.equals("0.0.0.0")) {
      host = java.net.InetAddress.getLocalHost().getCanonicalHostName();
    }
    URI uri = URI.create("http://" + host + ":" + bound.getPort());
    LOG.info("{}: serving {}/jmx{} (figures and Healthy/HealthReason), /conf, /stacks, "
      + "/logLevel ({})", daemon, uri, prometheus ? ", " + uri + "/prometheus" : "", addressKey);
    return new DaemonHttp(server, sourceName, uri);
  }

  /**
   * Whether to serve {@code /prometheus}: yes unless the operator set
   * {@code hadoop.prometheus.endpoint.enabled} (core-default.xml's false is Hadoop's default for
   * its own daemons, not a choice made for these).
   */
  static boolean prometheusEnabled(Configuration conf) {
    String key = CommonConfigurationKeysPublic.HADOOP_PROMETHEUS_ENABLED;
    String[] sources = conf.getPropertySources(key);
    boolean operatorSet = false;
    if (sources != null) {
      for (String src : sources) {
        operatorSet |= !src.endsWith("-default.xml");
      }
    }
    return !operatorSet || conf.getBoolean(key, true);
  }

  /** http://host:port of the server, null when none runs. */
  public URI uri() {
    return uri;
  }

  /** Stops the server and unregisters the metrics source. */
  @Override
  public void close() throws IOException {
    try {
      if (server != null) {
        server.stop();
      }
    } catch (Exception e) {
      throw new IOException("stopping the HTTP server at " + uri + ": " + e, e);
    } finally {
      DefaultMetricsSystem.instance().unregisterSource(sourceName);
    }
  }

  /** A tag value safe in Prometheus's text format (its label values are not escaped upstream). */
  public static String tagValue(String s) {
    return s == null ? "" : s.replace('"', '\'').replace('\\', '/').replace('\n', ' ')
      .replace('\r', ' ');
  }
}
