package io.strata.bench.monitor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.strata.bench.common.BenchJson;
import io.strata.cli.CommandLines;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.Options;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every bench does with a {@link Monitor}: its {@code --monitor-ms} option (default
 * {@value #DEFAULT_MS}, 0 off, else at least {@value #MIN_MS}), the RegionServer keys monitoring
 * needs, following the cluster that is running (an {@link Admin} of its own per cluster, closed
 * when the next is followed), and at the end the {@code monitoring} section of the bench's JSON,
 * {@value #PNG} in its output directory and the per-phase means on the console. Off
 * ({@code --monitor-ms 0}), every method but {@link #write} does nothing and {@link #write}
 * returns null. Not thread-safe: the bench's main thread drives it (the {@link Monitor} inside
 * samples on its own thread).
 */
public final class BenchMonitor implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(BenchMonitor.class);
  public static final String OPTION = "monitor-ms";
  public static final long DEFAULT_MS = 1000;
  public static final long MIN_MS = 100;
  /** The plot's file name, in the bench's output directory. */
  public static final String PNG = "monitor.png";
  /** The section of the bench's JSON. */
  public static final String SECTION = "monitoring";

  private final long intervalMs;
  private final Monitor monitor;
  private Admin admin;
  private Connection followed;

  private BenchMonitor(long intervalMs, Monitor monitor) {
    this.intervalMs = intervalMs;
    this.monitor = monitor;
  }

  /**
   * Adds {@code --monitor-ms}; {@code hbase} whether the bench runs HBase (its RegionServers'
   * metrics are sampled too).
   */
  public static Options addOption(Options o, boolean hbase) {
    return o.addOption(null, OPTION, true, "sample the machine's CPU, disk and network (/proc)"
      + (hbase ? " and the RegionServers' metrics (/jmx)" : "") + " every this many ms through "
      + "every phase, for the JSON's " + SECTION + " section and " + PNG + " (default "
      + DEFAULT_MS + "; 0: off; else at least " + MIN_MS + ")");
  }

  /** The sampling interval of {@code --monitor-ms}, 0 for off; refuses 1 to 99 and negatives. */
  public static long intervalMs(CommandLine cl) {
    return intervalMs(CommandLines.wholeNumber(cl, OPTION, DEFAULT_MS, 0));
  }

  /** {@code --monitor-ms ms} checked: 0 for off; refuses 1 to 99 and negatives. */
  public static long intervalMs(long ms) {
    if (ms < 0) {
      throw new IllegalArgumentException("--" + OPTION + " must be at least 0, not " + ms);
    }
    if (ms > 0 && ms < MIN_MS) {
      throw new IllegalArgumentException("--" + OPTION + " takes 0 (off) or at least " + MIN_MS
        + ", not " + ms + ": finer samples would mostly add the sampler's own load to what the "
        + "bench measures");
    }
    return ms;
  }

  /**
   * RegionServer keys monitoring needs: an info server on a free port (its {@code /jmx} is what
   * is read, as from a remote cluster) and metrics refreshed at the sampling interval (HBase
   * refreshes them every 5 s by default). None when off.
   */
  public static Map<String, String> hbaseKeys(long intervalMs) {
    if (intervalMs <= 0) {
      return Map.of();
    }
    return Map.of(HConstants.REGIONSERVER_INFO_PORT, "0", "hbase.regionserver.metrics.period",
      Long.toString(Math.min(5000, intervalMs)));
  }

  /**
   * Starts sampling (nothing when {@code intervalMs} is 0); {@code hbase}: with the HBase series,
   * gaps until {@link #follow} names a cluster.
   */
  public static BenchMonitor start(long intervalMs, boolean hbase) {
    if (intervalMs <= 0) {
      return new BenchMonitor(0, null);
    }
    Duration d = Duration.ofMillis(intervalMs);
    return new BenchMonitor(intervalMs, hbase ? Monitor.startFollowing(d, Path.of("/"))
      : Monitor.start(d, Path.of("/"), null));
  }

  public boolean on() {
    return monitor != null;
  }

  /** Ends the current phase and starts {@code name}. */
  public void phase(String name) {
    if (monitor != null) {
      monitor.phase(name);
    }
  }

  /**
   * Reads the RegionServers of the cluster behind {@code connection} from now on (null: no
   * cluster, gaps); call with null, or with the next cluster, before shutting one down.
   */
  public void follow(Connection connection) throws IOException {
    if (monitor == null || connection == followed) {
      return;
    }
    Admin next = connection == null ? null : connection.getAdmin();
    monitor.follow(next == null ? null : new RegionServerJmx(next, Duration.ofSeconds(5)));
    closeAdmin();
    admin = next;
    followed = connection;
  }

  private void closeAdmin() {
    if (admin != null) {
      try {
        admin.close();
      } catch (IOException e) {
        LOG.debug("Closing the monitor's Admin", e);
      }
      admin = null;
    }
    followed = null;
  }

  /** {@link #write(ObjectNode, File, String, PrintStream)} to {@value #PNG} in {@code dir}. */
  public String writeIn(ObjectNode doc, File dir, String title, PrintStream out)
    throws IOException {
    return write(doc, new File(dir, PNG), title, out);
  }

  /**
   * Stops sampling and writes the timeline: {@code monitoring} in {@code doc}, the plot to
   * {@code png} (titled {@code title}), the per-phase means and the report line on {@code out}.
   * Returns that line (samples, interval, plot), or null when off. Throws if the sampler died.
   */
  public String write(ObjectNode doc, File png, String title, PrintStream out)
    throws IOException {
    if (monitor == null) {
      return null;
    }
    Timeline t;
    try {
      t = monitor.stop();
    } finally {
      closeAdmin();
    }
    doc.set(SECTION, BenchJson.tree(t.monitoring()));
    File dir = png.getAbsoluteFile().getParentFile();
    if (!dir.isDirectory() && !dir.mkdirs()) {
      throw new IOException("Cannot create " + dir + " for " + png.getName());
    }
    t.plot(title, png);
    String line = line(t, intervalMs, png);
    out.println();
    out.println(summary(t));
    out.println(line);
    return line;
  }

  /** The report's line: samples, interval, what could not be read, the plot. */
  static String line(Timeline t, long intervalMs, File png) {
    StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "monitoring: %d samples every "
      + "%d ms over %d phases", t.t().length, intervalMs, t.phases().size()));
    t.missing().forEach((source, n) -> {
      if (n > 0) {
        b.append(String.format(Locale.ROOT, ", %d %s samples missing", n, source));
      }
    });
    return b.append(", plot: ").append(png).toString();
  }

  /**
   * A report's monitoring section in Markdown, from the {@code monitoring} section of
   * {@code doc} (so a report written again from an earlier results.json has it too), read into
   * {@link Monitoring}: one line and {@value #PNG}, which the report's directory holds. Empty
   * when the run was not monitored.
   */
  public static String markdown(JsonNode doc) {
    JsonNode m = doc.path(SECTION);
    return m.isObject() ? markdown(BenchJson.convert(m, Monitoring.class)) : "";
  }

  /** A report's monitoring section in Markdown; empty when {@code m} is null (not monitored). */
  public static String markdown(Monitoring m) {
    if (m == null) {
      return "";
    }
    StringBuilder missing = new StringBuilder();
    Map<String, Integer> missed = m.missingSamples() == null ? Map.of() : m.missingSamples();
    missed.forEach((source, n) -> {
      if (n > 0) {
        missing.append(String.format(Locale.ROOT, ", %d %s samples missing (gaps)", n, source));
      }
    });
    return String.format(Locale.ROOT, "## Monitoring%n%nThe machine's CPU, disk and network and "
      + "the RegionServers' metrics over the run, one sample every %d ms (%d samples, %d phases "
      + "marked%s; the values and per-phase means are in results.json's `%s`).%n%n"
      + "![monitoring](%s)%n%n", m.intervalMs(), m.tS() == null ? 0 : m.tS().size(),
      m.phases() == null ? 0 : m.phases().size(), missing, SECTION, PNG);
  }

  /**
   * Per phase, the means the media study's resource tables give, one line each; the
   * RegionServer columns only when the timeline has them.
   */
  public static String summary(Timeline t) {
    boolean hbase = t.series().containsKey("memstore_mb");
    StringBuilder b = new StringBuilder(String.format(Locale.ROOT,
      "%-28s %7s %7s %7s %9s %9s %9s", "phase (means)", "s", "user%", "sys%", "diskR MB/s",
      "diskW MB/s", "lo MB/s"));
    b.append(hbase ? String.format(Locale.ROOT, " %9s %8s %7s%n", "memstore", "flushQ", "GC ms")
      : "\n");
    for (Timeline.Phase p : t.phases()) {
      Map<String, Double> m = t.means(p);
      b.append(String.format(Locale.ROOT, "%-28s %7.1f %7.1f %7.1f %9.1f %9.1f %9.1f", p.name(),
        p.endS() - p.startS(), m.get("cpu_user_pct"), m.get("cpu_system_pct"),
        m.get("disk_read_mb_s"), m.get("disk_write_mb_s"), m.get("loopback_mb_s")));
      b.append(hbase ? String.format(Locale.ROOT, " %9.1f %8.1f %7.1f%n", m.get("memstore_mb"),
        m.get("flush_queue"), m.get("gc_ms")) : "\n");
    }
    return b.toString().stripTrailing();
  }

  /** Stops sampling if {@link #write} did not (a bench that failed), and closes the Admin. */
  @Override
  public void close() {
    if (monitor != null) {
      monitor.close();
    }
    closeAdmin();
  }
}
