package io.strata.tools.commands;

import io.strata.hdfs.overlay.UndefinedPolicyFiles;
import java.net.URI;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.Callable;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code strata undefined-policies}: {@link UndefinedPolicyFiles}. */
@Command(name = "undefined-policies", mixinStandardHelpOptions = true,
  description = {"Lists the directories and files under PATH whose storage policy id the "
    + "NameNode does not define (a configured policy removed from strata.storage.policies), or "
    + "that carry policy NAME (a policy about to be removed).",
    "Exit status: 0 none, 1 some listed, 2 bad input."})
public final class UndefinedPoliciesCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--hdfs", paramLabel = "URI",
    description = "NameNode URI (default: fs.defaultFS)")
  URI hdfs;

  @Option(names = "--policy", paramLabel = "NAME",
    description = "also list what carries this defined policy, before removing it (repeatable)")
  Set<String> retiring = new LinkedHashSet<>();

  @Parameters(arity = "0..1", paramLabel = "PATH", defaultValue = "/",
    description = "where to look (default ${DEFAULT-VALUE})")
  String path;

  @Override
  public Integer call() throws Exception {
    Options.requireHdfs(spec, hdfs, "--hdfs");
    return UndefinedPolicyFiles.list(new HdfsConfiguration(), hdfs, retiring, path, System.out,
      System.err);
  }
}
