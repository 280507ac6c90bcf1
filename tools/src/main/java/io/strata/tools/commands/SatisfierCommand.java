package io.strata.tools.commands;

import io.strata.hdfs.DaemonOutput;
import io.strata.hdfs.sps.SatisfierTool;
import java.net.URI;
import java.util.concurrent.Callable;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code strata satisfier}: {@link SatisfierTool}, until stopped. */
@Command(name = "satisfier", mixinStandardHelpOptions = true,
  description = {"Runs the Storage Policy Satisfier for a NameNode with "
    + "dfs.storage.policy.satisfier.mode=external, restarting it when its thread ends, until "
    + "stopped (Ctrl-C/TERM). The strata-hdfs-overlay jar goes before hadoop-hdfs on the class "
    + "path (patches/hdfs/0003), as it does on this one.",
    "Exit status: 0 stopped, 1 could not start, 2 bad input."})
public final class SatisfierCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--hdfs", paramLabel = "URI",
    description = "NameNode URI (default: fs.defaultFS)")
  URI hdfs;

  @Option(names = "--report-interval", paramLabel = "S", defaultValue = "60",
    description = "seconds between status lines (default ${DEFAULT-VALUE})")
  long reportInterval;

  @Override
  public Integer call() throws Exception {
    Options.requireHdfs(spec, hdfs, "--hdfs");
    Options.atLeast(spec, "--report-interval", reportInterval, 1);
    // Started by bin/ as a daemon: the status lines go to its (size-capped) log.
    return SatisfierTool.satisfy(new HdfsConfiguration(), hdfs, reportInterval,
      DaemonOutput.forTool(SatisfierTool.class));
  }
}
