package io.strata.tools.commands;

import io.strata.pcm.PcmKeys;
import io.strata.pcm.PcmTool;
import java.io.File;
import java.util.concurrent.Callable;
import org.apache.hadoop.hbase.HBaseConfiguration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code strata pcm classify|recommend|apply|watch|revert}: {@link PcmTool}, workload-aware
 * configuration of one table.
 */
@Command(name = "pcm", mixinStandardHelpOptions = true,
  description = {"Classifies a table's workload from the running cluster's request counters (the "
    + "PCM paper's classes), recommends the tuned policy of its class and applies it online: "
    + "descriptor changes through modifyTable, a written plan for what needs a RegionServer "
    + "restart. Dry run unless --execute; revert restores what apply changed.",
    "Exit status: 0 done, 1 no class found or a change failed, 2 bad input."},
  subcommands = {PcmCommand.Classify.class, PcmCommand.Recommend.class, PcmCommand.Apply.class,
    PcmCommand.Watch.class, PcmCommand.Revert.class})
public final class PcmCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    throw new ParameterException(spec.commandLine(), "a subcommand first: "
      + String.join(", ", PcmTool.SUBCOMMANDS));
  }

  /** The options every subcommand takes (each says which subcommands read it). */
  static final class PcmOptions {
    @Spec(Spec.Target.MIXEE)
    CommandSpec mixee;

    @Option(names = "--table", required = true, paramLabel = "T", description = "the table")
    String table;

    @Option(names = "--zk", paramLabel = "HOST:PORT",
      description = "ZooKeeper quorum (default: the configuration's)")
    String zk;

    @Option(names = "--class", paramLabel = "C", description = "recommend/apply: this class "
      + "instead of classifying (BL, WO-Insert, WO-Update, WM, MixW, MixRW, MixR, RM, RO-Read, "
      + "RO-Scan)")
    String workloadClass;

    @Option(names = "--execute", description = "apply/watch: apply the changes (default: dry run)")
    boolean execute;

    @Option(names = "--dry-run", description = "only show what would change (the default)")
    boolean dryRun;

    @Option(names = "--state", paramLabel = "DIR", description = "directory of revert files and "
      + "restart plans (default: the launcher's work directory, pcm/)")
    File state;

    @Option(names = "--policy-dir", paramLabel = "DIR",
      description = "operator policy files (default: " + PcmKeys.POLICY_DIR + ")")
    String policyDir;

    @Option(names = "--create", paramLabel = "FAMILIES", description = "recommend/apply with "
      + "--class: the table does not exist yet; create it with these column families "
      + "(comma-separated), pre-split into the policy's P regions and with its values set")
    String create;

    @Option(names = "--key-range", paramLabel = "START,END", description = "with --create: "
      + "first and last split keys (\\xNN escapes allowed; default \\x00,\\xFF), the split "
      + "points spread evenly between them in byte order, as HBase's UniformSplit")
    String keyRange;

    @Option(names = "--dataset-bytes", paramLabel = "N", description = "the table's expected "
      + "data size, for max.filesize (default: its size now)")
    Long datasetBytes;

    @Option(names = "--max-samples", paramLabel = "N", description = "classify/watch: stop "
      + "after this many reads (classify default: window + stable windows + 10; watch: no limit)")
    Long maxSamples;

    @Option(names = "--json", paramLabel = "FILE",
      description = "also write the result as JSON to this file")
    File json;

    int run(String sub) throws Exception {
      PcmTool.Request r = new PcmTool.Request();
      r.table = table;
      r.zk = zk;
      r.workloadClass = workloadClass;
      r.execute = execute;
      r.dryRun = dryRun;
      r.state = state;
      r.policyDir = policyDir;
      r.create = create;
      r.keyRange = keyRange;
      r.datasetBytes = datasetBytes;
      r.maxSamples = maxSamples;
      r.json = json;
      return PcmTool.run(sub, r, HBaseConfiguration.create());
    }
  }

  @Command(name = "classify", mixinStandardHelpOptions = true,
    description = "Watches the table's request rates until its workload class holds.")
  static final class Classify implements Callable<Integer> {
    @Mixin
    PcmOptions options;

    @Override
    public Integer call() throws Exception {
      return options.run("classify");
    }
  }

  @Command(name = "recommend", mixinStandardHelpOptions = true,
    description = "The policy of the table's class (or --class) worked out for the cluster, and "
      + "what applying it would change.")
  static final class Recommend implements Callable<Integer> {
    @Mixin
    PcmOptions options;

    @Override
    public Integer call() throws Exception {
      return options.run("recommend");
    }
  }

  @Command(name = "apply", mixinStandardHelpOptions = true,
    description = "As recommend; with --execute applies the descriptor changes online and writes "
      + "the restart plan; with --create, creates the table pre-split with the policy.")
  static final class Apply implements Callable<Integer> {
    @Mixin
    PcmOptions options;

    @Override
    public Integer call() throws Exception {
      return options.run("apply");
    }
  }

  @Command(name = "watch", mixinStandardHelpOptions = true,
    description = "The loop: observe, classify, and apply on each change of class.")
  static final class Watch implements Callable<Integer> {
    @Mixin
    PcmOptions options;

    @Override
    public Integer call() throws Exception {
      return options.run("watch");
    }
  }

  @Command(name = "revert", mixinStandardHelpOptions = true,
    description = "Restores the values from before the first apply.")
  static final class Revert implements Callable<Integer> {
    @Mixin
    PcmOptions options;

    @Override
    public Integer call() throws Exception {
      return options.run("revert");
    }
  }
}
