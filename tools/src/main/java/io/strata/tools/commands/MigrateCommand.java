package io.strata.tools.commands;

import io.strata.hbase.tiering.MigrateTool;
import java.util.concurrent.Callable;
import org.apache.hadoop.hbase.HBaseConfiguration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code strata migrate}: {@link MigrateTool}. */
@Command(name = "migrate", mixinStandardHelpOptions = true,
  description = {"Moves the existing HFiles of a table (or one family) to the storage policy "
    + "their kind has now (after an alter of strata.* keys), and waits until their blocks are "
    + "there.",
    "Exit status: 0 in place (or queued, with --no-wait), 1 not in place before the timeout, 2 "
      + "bad input."})
public final class MigrateCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--table", required = true, paramLabel = "T",
    description = "table, as [namespace:]name")
  String table;

  @Option(names = "--family", paramLabel = "CF", description = "only this column family")
  String family;

  @Option(names = "--zk", paramLabel = "HOST:PORT",
    description = "ZooKeeper quorum (default: hbase-site on the class path)")
  String zk;

  @Option(names = "--root", paramLabel = "URI",
    description = "HBase root directory URI (default: hbase.rootdir of the configuration)")
  String root;

  @Option(names = "--timeout", paramLabel = "S", defaultValue = "300",
    description = "seconds to wait for the blocks to move (default ${DEFAULT-VALUE})")
  long timeout;

  @Option(names = "--no-wait", description = "queue the moves and return")
  boolean noWait;

  @Override
  public Integer call() throws Exception {
    Options.atLeast(spec, "--timeout", timeout, 0);
    return MigrateTool.migrate(HBaseConfiguration.create(), table, family, zk, root, timeout,
      noWait, System.out);
  }
}
