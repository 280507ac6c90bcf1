package io.strata.bench.common;

import io.strata.bench.monitor.BenchMonitor;
import java.io.File;
import java.util.Locale;
import picocli.CommandLine.Option;

/**
 * The options benches share, as picocli mixins ({@code @Mixin} in a {@link BenchCommand}): each
 * is named, described and checked the same in every bench that has it.
 */
public final class BenchOptions {
  private BenchOptions() {
  }

  /** How long a bench runs: a quick look or the figures kept in the docs. */
  public enum Scale {
    QUICK, FULL;

    /** The option's spelling, e.g. {@code quick}. */
    public String optionName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** {@code --json FILE}: also write the Result to this file. */
  public static final class JsonFile {
    @Option(names = "--json", paramLabel = "FILE",
      description = "also write the results as JSON to this file")
    private File json;

    /** The file, null when not asked for. */
    public File file() {
      return json;
    }
  }

  /** {@code --scale quick|full}. */
  public static final class ScaleOption {
    @Option(names = "--scale", paramLabel = "quick|full", defaultValue = "quick",
      description = "quick (default, about a minute) or full (about 5 minutes)")
    private Scale scale;

    public Scale scale() {
      return scale;
    }
  }

  /** {@code --monitor-ms MS}: the machine's sampling interval, 0 off. */
  public static final class Monitoring {
    @Option(names = "--" + BenchMonitor.OPTION, paramLabel = "MS",
      defaultValue = "" + BenchMonitor.DEFAULT_MS,
      description = "sample the machine's CPU, disk and network (/proc) and, where the bench "
        + "runs HBase, the RegionServers' metrics (/jmx) every this many ms through every phase, "
        + "for the JSON's " + BenchMonitor.SECTION + " section and " + BenchMonitor.PNG
        + " (default ${DEFAULT-VALUE}; 0: off; else at least " + BenchMonitor.MIN_MS + ")")
    private long monitorMs;

    /** The interval, checked: 0 (off) or at least {@link BenchMonitor#MIN_MS}. */
    public long intervalMs() {
      return BenchMonitor.intervalMs(monitorMs);
    }
  }
}
