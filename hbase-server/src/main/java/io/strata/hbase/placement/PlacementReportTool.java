package io.strata.hbase.placement;

import java.io.File;
import java.net.URI;
import io.strata.cli.CommandLines;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.Options;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hdfs.DistributedFileSystem;

/** {@code strata placement}: the placement report of an HBase root directory on any HDFS. */
public final class PlacementReportTool {

  private static final String HEADER = "Classifies every file under an HBase root directory (wal, "
    + "oldwal, flushed, compacted, archived, other) and counts its blocks' replicas per HDFS "
    + "storage type, from the NameNode's block locations.\n\n";

  private PlacementReportTool() {
  }

  static Options options() {
    Options o = new Options();
    o.addOption(null, "hdfs", true,
      "NameNode URI (default: fs.defaultFS of the configuration on the classpath)");
    o.addOption(null, "root", true, "HBase root directory (default: hbase.rootdir, else /hbase)");
    o.addOption(null, "json", true, "also write the report as JSON to this file");
    o.addOption(null, "files", false, "also list every file with its kind, replicas, and the "
      + "storage policy the placement rules choose for it with the rule that chose it (also in "
      + "--json)");
    o.addOption("h", "help", false, "this text");
    return o;
  }

  public static void main(String[] args) throws Exception {
    System.exit(run(args, HBaseConfiguration.create()));
  }

  static int run(String[] args, Configuration conf) throws Exception {
    CommandLine cl;
    try {
      cl = CommandLines.parse("strata placement",
        "strata placement [--hdfs URI] [--root DIR] [--files] [--json FILE]", HEADER, options(), args);
    } catch (CommandLines.Exit e) {
      return e.code();
    }
    String root = cl.getOptionValue("root", conf.get(HConstants.HBASE_DIR, "/hbase"));
    FileSystem fs = cl.hasOption("hdfs")
      ? FileSystem.get(URI.create(cl.getOptionValue("hdfs")), conf)
      : new Path(root).getFileSystem(conf);
    if (!(fs instanceof DistributedFileSystem)) {
      System.err.println("strata placement: " + fs.getUri() + " is not HDFS; storage types are "
        + "only known to an HDFS NameNode. Give --hdfs hdfs://HOST:PORT.");
      return 2;
    }
    PlacementReport report =
      new PlacementScanner((DistributedFileSystem) fs, conf).scan(new Path(root));
    System.out.print(report.toTable());
    System.out.print(report.policiesTable());
    if (cl.hasOption("files")) {
      for (PlacedFile f : report.files()) {
        System.out.printf("%-10s %12d %s %s%s%n", f.kind().jsonName(), f.bytes(), f.replicas(),
          f.path(), f.rule() == null ? "" : "  policy " + f.rule());
      }
    }
    if (cl.hasOption("json")) {
      report.writeJson(new File(cl.getOptionValue("json")), cl.hasOption("files"));
      System.out.println("JSON report written to " + cl.getOptionValue("json"));
    }
    return 0;
  }
}
