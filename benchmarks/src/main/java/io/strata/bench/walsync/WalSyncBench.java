package io.strata.bench.walsync;

import io.strata.bench.common.BenchCommand;
import io.strata.bench.common.BenchJson;
import io.strata.bench.common.BenchOptions;
import io.strata.cli.CommandLines;
import io.strata.local.LocalClusterConfig;
import io.strata.local.TieredDfsCluster;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code strata bench wal-sync}: what a WAL sync costs under each WAL placement a user can choose,
 * next to what that placement keeps after a reboot. One embedded tiered HDFS (3 DataNodes, each
 * with a RAM tier on tmpfs and SSD, DISK, ARCHIVE directories), one run of {@link WalSyncRun};
 * the report ({@link WalSyncResult#markdown}) is rendered from its {@link WalSyncResult}.
 */
public final class WalSyncBench {
  static final String COMMAND = "strata bench wal-sync";
  /** The placements compared: the all-RAM one, Strata's default, all-SSD, upstream's default. */
  static final List<String> POLICIES = List.of("ALL_NVDIMM", "RAM_SSD", "ALL_SSD", "HOT");
  static final List<String> MODES = List.of("hflush", "hsync");
  private static final String HEADER = "Latency of a WAL append+sync under each WAL storage "
    + "policy (ALL_NVDIMM, Strata's default RAM_SSD, ALL_SSD, HOT) with hflush and hsync, on one "
    + "embedded tiered HDFS, in rotated rounds; and where each policy's replicas were.";

  private WalSyncBench() {
  }

  /** The command line: picocli's options, turned into {@link Settings}. */
  @Command(name = COMMAND, sortOptions = false, description = HEADER)
  static final class Cli extends BenchCommand<Settings> {
    @Option(names = "--entries", paramLabel = "N", defaultValue = "3000",
      description = "appends+syncs per policy, mode and round (default ${DEFAULT-VALUE})")
    int entries;
    @Option(names = "--entry-bytes", paramLabel = "N", defaultValue = "1024",
      description = "bytes per append (default ${DEFAULT-VALUE})")
    int entryBytes;
    @Option(names = "--rounds", paramLabel = "N", defaultValue = "3",
      description = "rounds, the policies' order rotated (default ${DEFAULT-VALUE})")
    int rounds;
    @Option(names = "--policies", paramLabel = "P,P", split = ",",
      description = "a subset of ALL_NVDIMM,RAM_SSD,ALL_SSD,HOT (default all)")
    List<String> policies;
    @Mixin
    BenchOptions.JsonFile json;
    @Option(names = "--out", paramLabel = "DIR",
      description = "write report.md and results.json to this directory")
    File out;
    @Option(names = "--work-dir", paramLabel = "DIR",
      description = "directory of the cluster's data, wiped per run (default "
        + "$STRATA_WORK/bench/wal-sync)")
    File workDir;
    @Option(names = "--ram-dir", paramLabel = "DIR",
      description = "directory of the RAM tier, on tmpfs (default "
        + "/dev/shm/strata-$USER-wal-sync)")
    File ramDir;

    @Override
    protected Settings settings() {
      List<String> chosen = policies == null ? POLICIES : List.copyOf(policies);
      for (String p : chosen) {
        if (!POLICIES.contains(p)) {
          throw new IllegalArgumentException("--policies: unknown policy '" + p + "'; known: "
            + POLICIES);
        }
      }
      File work = workDir != null ? workDir : CommandLines.workDir("bench/wal-sync");
      File ram = ramDir != null ? ramDir
        : new File("/dev/shm/strata-" + System.getProperty("user.name") + "-wal-sync");
      return new Settings(atLeast("--entries", entries, 10),
        atLeast("--entry-bytes", entryBytes, 1), atLeast("--rounds", rounds, 1),
        work.getAbsoluteFile(), ram.getAbsoluteFile(), chosen, json.file(), out);
    }
  }

  /** What one run is given. */
  record Settings(int entries, int entryBytes, int rounds, File workDir, File ramDir,
    List<String> policies, File json, File out) {
  }

  public static void main(String[] args) {
    CommandLines.runAndHalt(COMMAND, () -> run(args, System.out));
  }

  static int run(String[] args, PrintStream out) throws Exception {
    List<String> command = new ArrayList<>(List.of("./strata", "bench", "wal-sync"));
    command.addAll(Arrays.asList(args));
    return BenchCommand.run(new Cli(), args, out, s -> run(s, String.join(" ", command), out));
  }

  static int run(Settings s, String command, PrintStream out) throws Exception {
    LocalClusterConfig config = new LocalClusterConfig().workDir(s.workDir()).ramDir(s.ramDir())
      .dataNodes(3).startSatisfier(false).startTierMover(false)
      .ramBytesPerDataNode(1024L << 20).blockSizeBytes(64L << 20);
    WalSyncResult result;
    try (TieredDfsCluster cluster = TieredDfsCluster.start(config)) {
      result = new WalSyncRun(cluster, s, out).measure(command);
    }
    String md = WalSyncResult.markdown(result);
    out.println();
    out.print(md);
    if (s.json() != null) {
      BenchJson.write(s.json(), result);
      out.println("JSON written to " + s.json());
    }
    if (s.out() != null) {
      BenchJson.write(new File(s.out(), "results.json"), result);
      Files.writeString(new File(s.out(), "report.md").toPath(), md, StandardCharsets.UTF_8);
      out.println("report written to " + s.out());
    }
    return 0;
  }
}
