package io.strata.hdfs.chooser;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.net.URI;
import org.apache.hadoop.hdfs.server.datanode.FileIoProvider;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.FsVolumeSpi;

/**
 * One write-latency probe of a DataNode volume: create, write, sync and delete a small file in
 * the volume's directory, through the volume's own {@link FileIoProvider}, so that the probe takes
 * the DataNode's I/O path (its profiling and fault-injection hooks see it, and a failing probe
 * triggers the DataNode's disk check like any failed block I/O). The file sits beside the
 * volume's {@code current/} directory, as upstream's disk checker's own files do, and its name
 * says it may be deleted.
 */
public final class LatencyProbe {
  /** The probe file's name in the volume directory. */
  public static final String FILE_NAME = "strata-latency-probe.OK_TO_DELETE";

  private LatencyProbe() {
  }

  /**
   * The volume's directory, or {@code null} if the volume is not a local directory (a
   * {@code PROVIDED} volume), which is never probed.
   */
  public static File directory(FsVolumeSpi volume) {
    URI base = volume.getBaseURI();
    if (base == null || !"file".equals(base.getScheme())) {
      return null;
    }
    return new File(base);
  }

  /**
   * Probes the volume once; the caller holds a reference to it. Returns the elapsed nanoseconds.
   */
  public static long run(FsVolumeSpi volume, File dir, byte[] payload) throws IOException {
    FileIoProvider io = volume.getFileIoProvider();
    File file = new File(dir, FILE_NAME);
    long start = System.nanoTime();
    try (FileOutputStream out = io.getFileOutputStream(volume, file)) {
      out.write(payload);
      io.sync(volume, out);
    } finally {
      io.delete(volume, file);
    }
    return System.nanoTime() - start;
  }
}
