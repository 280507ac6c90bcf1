package io.strata.hbase.placement;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
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
    return report(conf, cl.hasOption("hdfs") ? URI.create(cl.getOptionValue("hdfs")) : null,
      cl.getOptionValue("root"), cl.hasOption("files"),
      cl.hasOption("json") ? new File(cl.getOptionValue("json")) : null, System.out);
  }

  /**
   * Prints the placement report of an HBase root directory; returns the exit code (0, or 2 when
   * the file system is not HDFS).
   *
   * @param hdfs  the NameNode, or null for the root directory's file system
   * @param root  the HBase root directory, or null for {@code hbase.rootdir} (else /hbase)
   * @param files also list every file with its kind, replicas and the rule that chose its policy
   * @param json  where to also write the report as JSON, or null
   */
  public static int report(Configuration conf, URI hdfs, String root, boolean files, File json,
    PrintStream out) throws IOException {
    String dir = root != null ? root : conf.get(HConstants.HBASE_DIR, "/hbase");
    FileSystem fs = hdfs != null ? FileSystem.get(hdfs, conf) : new Path(dir).getFileSystem(conf);
    if (!(fs instanceof DistributedFileSystem)) {
      System.err.println("strata placement: " + fs.getUri() + " is not HDFS; storage types are "
        + "only known to an HDFS NameNode. Give --hdfs hdfs://HOST:PORT.");
      return 2;
    }
    PlacementReport report =
      new PlacementScanner((DistributedFileSystem) fs, conf).scan(new Path(dir));
    out.print(report.toTable());
    out.print(report.policiesTable());
    if (files) {
      for (PlacedFile f : report.files()) {
        out.printf("%-10s %12d %s %s%s%n", f.kind().jsonName(), f.bytes(), f.replicas(),
          f.path(), f.rule() == null ? "" : "  policy " + f.rule());
      }
    }
    if (json != null) {
      report.writeJson(json, files);
      out.println("JSON report written to " + json);
    }
    return 0;
  }
}
