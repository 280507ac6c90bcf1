package io.strata.tools.commands;

import io.strata.hbase.placement.PlacementReportTool;
import java.io.File;
import java.net.URI;
import java.util.concurrent.Callable;
import org.apache.hadoop.hbase.HBaseConfiguration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code strata placement}: {@link PlacementReportTool}. */
@Command(name = "placement", mixinStandardHelpOptions = true,
  description = {"Placement report of an HBase root directory on HDFS: classifies every file "
    + "under it (wal, oldwal, flushed, compacted, archived, other) and counts its blocks' replicas "
    + "per HDFS storage type, from the NameNode's block locations.",
    "Exit status: 0 done, 2 the file system is not HDFS or bad input."})
public final class PlacementCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--hdfs", paramLabel = "URI",
    description = "NameNode URI (default: fs.defaultFS of the configuration on the class path)")
  URI hdfs;

  @Option(names = "--root", paramLabel = "DIR",
    description = "HBase root directory (default: hbase.rootdir, else /hbase)")
  String root;

  @Option(names = "--json", paramLabel = "FILE",
    description = "also write the report as JSON to this file")
  File json;

  @Option(names = "--files", description = "also list every file with its kind, replicas, and "
    + "the storage policy the placement rules choose for it with the rule that chose it (also in "
    + "--json)")
  boolean files;

  @Override
  public Integer call() throws Exception {
    Options.requireHdfs(spec, hdfs, "--hdfs");
    return PlacementReportTool.report(HBaseConfiguration.create(), hdfs, root, files, json,
      System.out);
  }
}
