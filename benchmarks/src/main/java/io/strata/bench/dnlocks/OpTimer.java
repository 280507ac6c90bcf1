package io.strata.bench.dnlocks;

import io.strata.hdfs.testing.SlowVolumes;
import java.io.IOException;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.FsVolumeSpi;

/**
 * Splits a dataset operation's time into the wait for its locks and the time it holds them,
 * from outside the dataset: createRbw, createTemporary and finalizeBlock each take their locks
 * first and then start on the volume's files (an exists check, a mkdirs), so the first file
 * operation the calling thread starts marks the end of the wait. The DataNode's I/O hook
 * ({@link SlowVolumes#observe}) reports it before any delay a slowed volume adds.
 */
final class OpTimer implements SlowVolumes.IoObserver {
  /** Per thread: {@code [armed (1) or not (0), time of the first I/O since armed or 0]}. */
  private final ThreadLocal<long[]> marks = ThreadLocal.withInitial(() -> new long[2]);

  /** A dataset call. */
  @FunctionalInterface
  interface Call<T> {
    T run() throws IOException;
  }

  @Override
  public void beforeIo(FsVolumeSpi volume) {
    long[] m = marks.get();
    if (m[0] == 1 && m[1] == 0) {
      m[1] = System.nanoTime();
    }
  }

  /**
   * Runs {@code call} and adds its wait (call to first I/O; the whole call when it did none) and
   * exec (first I/O to return) to {@code into}, also when it throws.
   */
  <T> T time(OpSamples into, Call<T> call) throws IOException {
    long[] m = marks.get();
    m[0] = 1;
    m[1] = 0;
    long start = System.nanoTime();
    try {
      return call.run();
    } finally {
      long end = System.nanoTime();
      long firstIo = m[1] != 0 ? m[1] : end;
      m[0] = 0;
      into.add(firstIo - start, end - firstIo);
    }
  }
}
