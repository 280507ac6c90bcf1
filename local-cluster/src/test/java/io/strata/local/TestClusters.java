package io.strata.local;

import java.io.File;
import java.util.UUID;

/** Cluster configurations for tests: small, in the module's target dir, RAM tier in /dev/shm. */
public final class TestClusters {
  private TestClusters() {
  }

  public static LocalClusterConfig small(String name) {
    String id = name + "-" + UUID.randomUUID().toString().substring(0, 8);
    return new LocalClusterConfig()
      .workDir(new File("target/it-work/" + id))
      .ramDir(new File("/dev/shm/strata-it-" + id))
      .ramBytesPerDataNode(1024L << 20);
  }
}
