package io.strata.local;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import io.strata.hbase.placement.FileKind;
import io.strata.hbase.placement.PlacedFile;
import io.strata.hbase.placement.PlacementReport;
import io.strata.hbase.placement.PlacementScanner;
import java.io.IOException;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DFSClientAdapter;
import org.apache.hadoop.hdfs.DFSOutputStream;
import org.apache.hadoop.hdfs.DFSTestUtil;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.client.HdfsDataInputStream;
import org.junit.Test;

/**
 * A WAL left open for write by a crashed writer and archived without lease recovery, whose
 * DataNodes then restarted (a RegionServer crash followed by a power loss): its last block's
 * replicas come back waiting for recovery, so no DataNode can tell its length and HDFS refuses
 * to open the file until its lease is recovered. The placement report must still cover the whole
 * root, with that file at the NameNode's length, rather than fail every scan until HBase's cleaner
 * deletes the file.
 */
public class UnmeasurableOpenFileIT {

  @Test(timeout = 300_000)
  public void scanReportsAnOpenFileNoDataNodeCanMeasure() throws Exception {
    try (TieredDfsCluster cluster = TieredDfsCluster.start(TestClusters.small("open-file")
      .startSatisfier(false))) {
      DistributedFileSystem fs = cluster.fileSystem();
      Path root = new Path("/hbase");
      Path wals = new Path(root, "WALs/rs1,16020,1");
      Path oldWals = new Path(root, "oldWALs");
      fs.mkdirs(wals);
      fs.mkdirs(oldWals);
      try (FSDataOutputStream closed = fs.create(new Path(oldWals, "rs1%2C16020%2C1.0"))) {
        closed.write(new byte[1000]);
      }

      // The writer: a client of its own, as a RegionServer has, which crashes after an hflush.
      DistributedFileSystem writer =
        (DistributedFileSystem) FileSystem.newInstance(cluster.uri(), cluster.configuration());
      Path live = new Path(wals, "rs1%2C16020%2C1.1.meta");
      FSDataOutputStream out = writer.create(live);
      out.write(new byte[4096]);
      out.hflush();
      // A crash: the stream dropped without completing the file, the lease no longer renewed.
      DFSTestUtil.abortStream((DFSOutputStream) out.getWrappedStream());
      DFSClientAdapter.stopLeaseRenewer(writer);
      Path archived = new Path(oldWals, live.getName());
      assertTrue(fs.rename(live, archived)); // HBase archives a dead server's WALs by rename
      assertFalse("still open for write", fs.isFileClosed(archived));

      cluster.miniCluster().restartDataNodes(true);
      cluster.miniCluster().waitActive();

      // What the scanner meets: the file cannot be opened.
      try (HdfsDataInputStream in = (HdfsDataInputStream) fs.open(archived)) {
        throw new AssertionError("the open-for-write file opened after its DataNodes restarted ("
          + in.getVisibleLength() + " bytes visible): the test no longer reproduces the case");
      } catch (IOException expected) {
        // CannotObtainBlockLengthException
      }

      PlacementReport report = new PlacementScanner(fs, cluster.configuration()).scan(root);
      PlacedFile open = fileNamed(report, archived.getName());
      assertNotNull("the open file is in the report: " + report.files(), open);
      assertEquals(FileKind.OLDWAL, open.kind());
      assertEquals("reported at the NameNode's length",
        fs.getFileStatus(archived).getLen(), open.bytes());
      writer.close();
      PlacedFile closed = fileNamed(report, "rs1%2C16020%2C1.0");
      assertNotNull("the rest of the root is still scanned: " + report.files(), closed);
      assertEquals(1000, closed.bytes());
      assertFalse("the closed file's replicas are counted", closed.replicas().isEmpty());
    }
  }

  private static PlacedFile fileNamed(PlacementReport report, String name) {
    for (PlacedFile f : report.files()) {
      if (f.path().endsWith("/" + name)) {
        return f;
      }
    }
    return null;
  }
}
