package io.strata.bench.ycsb;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

/**
 * YCSB's own workload files (YCSB 0.17.0, Apache License 2.0), shipped as resources because the
 * core jar on Maven Central has none, plus Strata's update-only workload; YCSB's {@code -P} wants
 * a file, so {@link #write} puts one on disk.
 */
public final class YcsbWorkloads {
  /** 50% reads, 50% updates, zipfian. */
  public static final String A = "workloada";
  /** 95% reads, 5% updates, zipfian. */
  public static final String B = "workloadb";
  /** Reads only, zipfian. */
  public static final String C = "workloadc";
  /** 95% scans of up to 100 rows, 5% inserts, zipfian. */
  public static final String E = "workloade";
  /** 50% reads, 50% read-modify-writes, zipfian. */
  public static final String F = "workloadf";
  /**
   * Updates only, zipfian: workload A's write half alone, the Put test of
   * <i>High-Performance Design of HBase with RDMA over InfiniBand</i>.
   */
  public static final String UPDATE_ONLY = "workload-update-only";

  public static final List<String> ALL = List.of(A, B, C, E, F, UPDATE_ONLY);

  private static final String RESOURCE_DIR = "/ycsb/workloads/";

  private YcsbWorkloads() {
  }

  /** Copies workload {@code name} (one of {@link #ALL}) to {@code dir}, returning the file. */
  public static Path write(String name, Path dir) throws IOException {
    try (InputStream in = open(name)) {
      Files.createDirectories(dir);
      Path file = dir.resolve(name);
      Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
      return file;
    }
  }

  /** The workload file's content. */
  public static InputStream open(String name) throws IOException {
    InputStream in = YcsbWorkloads.class.getResourceAsStream(RESOURCE_DIR + name);
    if (in == null) {
      throw new IOException("No YCSB workload " + name + "; known: " + ALL);
    }
    return in;
  }
}
