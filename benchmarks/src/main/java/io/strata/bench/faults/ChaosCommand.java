package io.strata.bench.faults;

import io.strata.bench.common.BenchCommand;
import io.strata.bench.common.BenchOptions;
import java.io.File;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code strata chaos}'s command line, turned into the campaign's {@link Options}: which faults
 * in which schedule, against which running cluster, and where the reports go. A fault that is
 * not one of {@link FaultCampaign#ALL}, {@code --quick} with {@code --faults}, or {@code --seed}
 * without {@code --random} is refused before anything starts.
 */
@Command(name = "strata chaos", sortOptions = false, description = FaultCampaign.HEADER)
final class ChaosCommand extends BenchCommand<ChaosCommand.Options> {
  /**
   * What the campaign is told.
   *
   * @param distHome  the unpacked distribution (its {@code bin/strata-cluster})
   * @param dir       the running cluster's directory
   * @param faults    the faults asked for (all, the quick ones, or those named)
   * @param named     whether {@code faults} were named with {@code --faults}
   * @param random    faults to draw at random, 0 for the fixed schedule
   * @param seed      the seed of the draw, null for the clock's
   * @param threads   writer threads of the load
   * @param walPolicy the WAL storage policy the cluster must run with, null for any
   * @param maxWritesPerS the bound on the load's writes per second over all its threads, 0 none
   * @param minFreeBytes the free space below which no further fault is injected, 0 no check
   * @param json      where results.json goes, null for nowhere
   * @param report    where results.json, report.md and throughput.png go, null for nowhere
   */
  record Options(File distHome, File dir, List<String> faults, boolean named, int random,
    Long seed, int threads, String walPolicy, int maxWritesPerS, long minFreeBytes, File json,
    File report) {
  }

  /** {@code --max-writes-per-s}'s default. */
  static final int DEFAULT_MAX_WRITES_PER_S = 2000;
  /** {@code --min-free-gb}'s default. */
  static final int DEFAULT_MIN_FREE_GB = 10;

  @Option(names = "--dist-home", paramLabel = "DIR", required = true,
    description = "the unpacked distribution (the launcher passes it)")
  private File distHome;

  @Option(names = "--dir", paramLabel = "DIR", required = true,
    description = "the running cluster's directory (bin/strata-cluster --dir)")
  private File dir;

  /** The faults' names, for the help's list. */
  static final class FaultNames implements Iterable<String> {
    @Override
    public java.util.Iterator<String> iterator() {
      return FaultCampaign.ALL.iterator();
    }
  }

  @Option(names = "--faults", paramLabel = "F,...", split = ",",
    completionCandidates = FaultNames.class,
    description = "the faults to inject, in this order (default: all): ${COMPLETION-CANDIDATES}")
  private List<String> faults;

  @Option(names = "--quick", description = "only the quick faults: kill-regionserver, "
    + "kill-datanode, kill-tier-mover")
  private boolean quick;

  @Option(names = "--random", paramLabel = "N", defaultValue = "0",
    description = "N faults drawn at random (with repeats) from --faults or all that apply to "
      + "this cluster, each after 5 to 20 s of load: the random schedule")
  private int random;

  @Option(names = "--seed", paramLabel = "S",
    description = "seed of --random (default: the clock; the report names it)")
  private Long seed;

  @Option(names = "--threads", paramLabel = "N", defaultValue = "4",
    description = "writer threads (default ${DEFAULT-VALUE})")
  private int threads;

  @Option(names = "--max-writes-per-s", paramLabel = "N",
    defaultValue = "" + DEFAULT_MAX_WRITES_PER_S,
    description = "at most N writes per second over all writer threads together, a row of a "
      + "batch counting as one (default ${DEFAULT-VALUE}); 0 = unbounded: the writers write as "
      + "fast as the cluster takes it, and the cluster's disk and the ledger in memory grow "
      + "without bound")
  private int maxWritesPerS;

  @Option(names = "--min-free-gb", paramLabel = "G", defaultValue = "" + DEFAULT_MIN_FREE_GB,
    description = "before each fault, the free space of the file system holding --dir must be "
      + "at least G GiB (default ${DEFAULT-VALUE}); below it no further fault is injected, the "
      + "final pass reads every write back and the run ends with an error (exit 1) naming the "
      + "faults not run; 0 = no check")
  private int minFreeGb;

  @Option(names = "--wal-policy", paramLabel = "POLICY",
    description = "the WAL storage policy the cluster must run with (hbase.wal.storage.policy of "
      + "its hbase-site; set by 'strata cluster up --wal-policy POLICY'): the run stops with an "
      + "error when the cluster has another")
  private String walPolicy;

  @Mixin
  private BenchOptions.JsonFile json;

  @Option(names = "--report", paramLabel = "DIR",
    description = "write results.json, report.md and throughput.png (writes per second, faults "
      + "shaded) into this directory")
  private File report;

  @Override
  protected Options settings() {
    if (quick && faults != null) {
      throw new IllegalArgumentException("--quick and --faults both name the faults: give one");
    }
    if (seed != null && random == 0) {
      throw new IllegalArgumentException("--seed is the seed of --random N: give --random too");
    }
    List<String> chosen = quick ? FaultCampaign.QUICK : faults != null ? faults
      : FaultCampaign.ALL;
    for (String f : chosen) {
      if (!FaultCampaign.ALL.contains(f)) {
        throw new IllegalArgumentException("unknown fault '" + f + "'; one of "
          + FaultCampaign.ALL);
      }
    }
    if (random != 0) {
      atLeast("--random", random, 1);
    }
    return new Options(distHome, dir, new ArrayList<>(chosen), faults != null, random, seed,
      atLeast("--threads", threads, 1), walPolicy, atLeast("--max-writes-per-s", maxWritesPerS, 0),
      (long) atLeast("--min-free-gb", minFreeGb, 0) << 30, json.file(), report);
  }
}
