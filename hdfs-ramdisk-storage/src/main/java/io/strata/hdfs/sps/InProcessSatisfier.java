package io.strata.hdfs.sps;

import java.io.Closeable;
import java.io.IOException;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.BlockStoragePolicy;
import org.apache.hadoop.hdfs.protocol.HdfsConstants;
import org.apache.hadoop.hdfs.protocol.HdfsConstants.StoragePolicySatisfierMode;
import org.apache.hadoop.hdfs.server.balancer.NameNodeConnector;
import org.apache.hadoop.hdfs.server.common.HdfsServerConstants;
import org.apache.hadoop.hdfs.server.namenode.sps.StoragePolicySatisfier;
import org.apache.hadoop.hdfs.server.sps.ExternalSPSContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * HDFS's external Storage Policy Satisfier, run inside the caller's JVM instead of as the
 * {@code hdfs --daemon start sps} process. It is what moves the blocks of single files to their
 * storage policy ({@code DistributedFileSystem#satisfyStoragePolicy}) without a namespace scan.
 * The NameNode must run with {@code dfs.storage.policy.satisfier.mode=external}. Like the Mover,
 * it holds {@code /system/mover.id} while it runs, so only one of them can run per namespace.
 */
public final class InProcessSatisfier implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(InProcessSatisfier.class);

  private final StoragePolicySatisfier sps;
  private final NameNodeConnector connector;

  private InProcessSatisfier(StoragePolicySatisfier sps, NameNodeConnector connector) {
    this.sps = sps;
    this.connector = connector;
  }

  /** Starts a satisfier for the NameNode at {@code nameNode}. */
  public static InProcessSatisfier start(Configuration conf, URI nameNode) throws IOException {
    String mode = conf.get(DFSConfigKeys.DFS_STORAGE_POLICY_SATISFIER_MODE_KEY,
      DFSConfigKeys.DFS_STORAGE_POLICY_SATISFIER_MODE_DEFAULT);
    if (StoragePolicySatisfierMode.fromString(mode) != StoragePolicySatisfierMode.EXTERNAL) {
      throw new IllegalArgumentException(DFSConfigKeys.DFS_STORAGE_POLICY_SATISFIER_MODE_KEY
        + " is '" + mode + "'; the NameNode must run with 'external' for this satisfier");
    }
    NameNodeConnector connector = new NameNodeConnector(
      InProcessSatisfier.class.getSimpleName(), nameNode, HdfsServerConstants.MOVER_ID_PATH, null,
      conf, NameNodeConnector.DEFAULT_MAX_IDLE_ITERATIONS);
    StoragePolicySatisfier sps = new StoragePolicySatisfier(conf);
    try {
      sps.init(new NameNodePoliciesContext(sps, connector));
      sps.start(StoragePolicySatisfierMode.EXTERNAL);
    } catch (RuntimeException e) {
      connector.close();
      throw e;
    }
    LOG.info("Storage Policy Satisfier started for {}", nameNode);
    return new InProcessSatisfier(sps, connector);
  }

  /**
   * Upstream's external context resolves policy ids with a suite of its own, built-in policies
   * only; this one asks the NameNode, so policies defined in the NameNode's configuration (the
   * overlay's {@code strata.storage.policies}) are satisfied too.
   */
  private static final class NameNodePoliciesContext extends ExternalSPSContext {
    private final NameNodeConnector connector;
    private final Map<Byte, BlockStoragePolicy> policies = new ConcurrentHashMap<>();

    NameNodePoliciesContext(StoragePolicySatisfier sps, NameNodeConnector connector) {
      super(sps, connector);
      this.connector = connector;
    }

    @Override
    public BlockStoragePolicy getStoragePolicy(byte policyId) {
      BlockStoragePolicy p = policies.get(policyId);
      if (p == null && policyId != HdfsConstants.BLOCK_STORAGE_POLICY_ID_UNSPECIFIED) {
        try {
          for (BlockStoragePolicy each : connector.getDistributedFileSystem()
            .getStoragePolicies()) {
            policies.put(each.getId(), each);
          }
        } catch (IOException e) {
          LOG.warn("Cannot read the NameNode's storage policies ({}); using the built-in "
            + "definition of policy id {}", e.toString(), policyId);
        }
        p = policies.get(policyId);
      }
      return p != null ? p : super.getStoragePolicy(policyId);
    }
  }

  public boolean isRunning() {
    return sps.isRunning();
  }

  @Override
  public void close() throws IOException {
    try {
      sps.stopGracefully();
    } finally {
      connector.close();
    }
    LOG.info("Storage Policy Satisfier stopped");
  }
}
