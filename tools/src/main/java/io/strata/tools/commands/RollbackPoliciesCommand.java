package io.strata.tools.commands;

import io.strata.hdfs.overlay.PolicyRollback;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code strata rollback-policies}: {@link PolicyRollback}, the HDFS half of removing Strata. */
@Command(name = "rollback-policies", mixinStandardHelpOptions = true,
  description = {"Gives every directory and file that carries a configured (Strata-only) "
    + "storage policy, or an undefined policy id, a built-in policy; moves their blocks (HDFS's "
    + "Mover: stop bin/satisfier first, it holds the Mover's lock); checks the replicas' storage "
    + "types; with --checkpoint saves the namespace (safe mode for the time of the save). Run "
    + "with the overlay still in place, after HBase no longer sets the policies (INSTALL.md, "
    + "Rollback). Nothing is changed before every id found has a --map.",
    "Exit status: 0 done, 1 policies reassigned but some blocks not (yet) on their types, 2 bad "
      + "input or a refusal before any change."})
public final class RollbackPoliciesCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--map", arity = "1..*", paramLabel = "FROM=BUILTIN",
    description = "the built-in policy that files carrying FROM get (FROM: a configured "
      + "policy's name, e.g. RAM_SSD=ONE_SSD, or an undefined id, e.g. 3=ONE_SSD); one per "
      + "retiring policy")
  List<String> maps = new ArrayList<>();

  @Option(names = "--path", paramLabel = "P", defaultValue = "/",
    description = "where to look (default ${DEFAULT-VALUE})")
  String path;

  @Option(names = "--hdfs", paramLabel = "URI",
    description = "NameNode URI (default: fs.defaultFS)")
  URI hdfs;

  @Option(names = "--dry-run", description = "print the plan and change nothing")
  boolean dryRun;

  @Option(names = "--no-move", description = "reassign the policies only; move the blocks later")
  boolean noMove;

  @Option(names = "--checkpoint", description = "at the end, enter safe mode, save the namespace "
    + "and leave safe mode (hdfs dfsadmin; on HA it saves on every NameNode): writes wait "
    + "meanwhile, as at a NameNode restart")
  boolean checkpoint;

  @Option(names = "--timeout", paramLabel = "S", defaultValue = "600",
    description = "seconds to wait for the blocks to reach their types (default ${DEFAULT-VALUE})")
  long timeout;

  @Override
  public Integer call() throws Exception {
    Options.requireHdfs(spec, hdfs, "--hdfs");
    Options.atLeast(spec, "--timeout", timeout, 0);
    return PolicyRollback.rollback(new HdfsConfiguration(), hdfs, maps.isEmpty() ? null : maps,
      path, dryRun, !noMove, checkpoint, TimeUnit.SECONDS.toMillis(timeout), System.out,
      System.err);
  }
}
