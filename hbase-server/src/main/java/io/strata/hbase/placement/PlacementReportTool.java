package io.strata.hbase.placement;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hdfs.DistributedFileSystem;

/**
 * {@code strata placement}: the placement report of an HBase root directory on any HDFS (its
 * options are parsed by the tools module's {@code PlacementCommand}).
 */
public final class PlacementReportTool {

  private PlacementReportTool() {
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
