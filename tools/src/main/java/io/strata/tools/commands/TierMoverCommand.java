package io.strata.tools.commands;

import io.strata.hdfs.DaemonOutput;
import io.strata.hdfs.HdfsKeys;
import io.strata.hdfs.tiermover.TierMoverTool;
import java.io.File;
import java.net.URI;
import java.util.concurrent.Callable;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code strata tier-mover}: {@link TierMoverTool}, until stopped. */
@Command(name = "tier-mover", mixinStandardHelpOptions = true,
  description = {"Follows the NameNode's renames (inotify; run it as an HDFS superuser) and "
    + "moves each renamed file's blocks to its new storage policy through the Storage Policy "
    + "Satisfier (dfs.storage.policy.satisfier.mode=external with an SPS running). Resumes from "
    + "its state file after a restart; runs until stopped (Ctrl-C/TERM) or for --duration.",
    "Exit status: 0 stopped, 1 could not start, 2 bad input."})
public final class TierMoverCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--hdfs", paramLabel = "URI",
    description = "NameNode URI (default: fs.defaultFS)")
  URI hdfs;

  @Option(names = "--state", paramLabel = "FILE",
    description = "state file (default $STRATA_WORK/tier-mover/state)")
  String state;

  @Option(names = "--paths", paramLabel = "P1,P2",
    description = "comma-separated path prefixes to follow (default /; " + HdfsKeys.TIERMOVER_PATHS
      + ")")
  String paths;

  @Option(names = "--report-interval", paramLabel = "S", defaultValue = "10",
    description = "seconds between progress lines (default ${DEFAULT-VALUE})")
  long reportInterval;

  @Option(names = "--duration", paramLabel = "S", defaultValue = "0",
    description = "stop after this many seconds (default 0: run until stopped)")
  long duration;

  @Option(names = "--json", paramLabel = "FILE",
    description = "write the status as JSON to FILE at each progress line and at exit")
  File json;

  @Override
  public Integer call() throws Exception {
    Options.requireHdfs(spec, hdfs, "--hdfs");
    Options.atLeast(spec, "--report-interval", reportInterval, 1);
    Options.atLeast(spec, "--duration", duration, 0);
    // Started by bin/ as a daemon: the status lines go to its (size-capped) log.
    return TierMoverTool.follow(new HdfsConfiguration(), hdfs, state, paths, reportInterval,
      duration, json, DaemonOutput.forTool(TierMoverTool.class));
  }
}
