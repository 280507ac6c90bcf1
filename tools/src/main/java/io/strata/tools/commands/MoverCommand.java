package io.strata.tools.commands;

import io.strata.hdfs.mover.FileMover;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code strata mover}: {@link FileMover}. */
@Command(name = "mover", mixinStandardHelpOptions = true,
  description = {"Moves the blocks of the given files, and of the files below the given "
    + "directories, to their storage policy (HDFS's Storage Policy Satisfier must run), showing "
    + "progress. Unlike HDFS's Mover it never scans the namespace.",
    "Exit status: 0 in place (or queued, with --no-wait), 1 a path missing or the blocks not in "
      + "place before the timeout, 2 bad input."})
public final class MoverCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = {"-p", "--path"}, required = true, arity = "1..*", paramLabel = "PATH",
    description = "files or directories to move (repeatable)")
  List<String> paths = new ArrayList<>();

  @Option(names = "--hdfs", paramLabel = "URI",
    description = "NameNode URI (default: fs.defaultFS)")
  URI hdfs;

  @Option(names = "--timeout", paramLabel = "S", defaultValue = "300",
    description = "seconds to wait for the blocks (default ${DEFAULT-VALUE})")
  long timeout;

  @Option(names = "--no-wait", description = "queue the moves and return")
  boolean noWait;

  @Override
  public Integer call() throws Exception {
    Options.requireHdfs(spec, hdfs, "--hdfs");
    Options.atLeast(spec, "--timeout", timeout, 0);
    return FileMover.move(new HdfsConfiguration(), paths, hdfs, timeout, noWait, System.out);
  }
}
