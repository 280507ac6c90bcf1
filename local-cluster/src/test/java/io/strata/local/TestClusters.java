package io.strata.local;

import java.io.File;
import java.io.IOException;
import java.util.UUID;
import org.junit.rules.ExternalResource;

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

  /** A tiered HDFS and HBase shared by a test class: {@code @ClassRule}. */
  public static Running running(LocalClusterConfig config) {
    return new Running(config);
  }

  /** Starts the cluster before the class's tests, stops HBase then HDFS after them. */
  public static final class Running extends ExternalResource {
    private final LocalClusterConfig config;
    private TieredDfsCluster dfs;
    private EmbeddedHBase hbase;

    private Running(LocalClusterConfig config) {
      this.config = config;
    }

    @Override
    protected void before() throws IOException {
      dfs = TieredDfsCluster.start(config);
      hbase = EmbeddedHBase.start(dfs);
    }

    @Override
    protected void after() {
      try (TieredDfsCluster d = dfs; EmbeddedHBase h = hbase) {
        // closed in reverse order: HBase, then HDFS
      } catch (IOException e) {
        throw new IllegalStateException("stopping the test cluster", e);
      }
    }

    public LocalClusterConfig config() {
      return config;
    }

    public TieredDfsCluster dfs() {
      return dfs;
    }

    public EmbeddedHBase hbase() {
      return hbase;
    }
  }
}
