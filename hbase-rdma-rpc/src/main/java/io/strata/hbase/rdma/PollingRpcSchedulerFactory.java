package io.strata.hbase.rdma;

import io.strata.compat.VersionCheck;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Abortable;
import org.apache.hadoop.hbase.ipc.PriorityFunction;
import org.apache.hadoop.hbase.ipc.RpcExecutor;
import org.apache.hadoop.hbase.ipc.RpcScheduler;
import org.apache.hadoop.hbase.ipc.RWQueueRpcExecutor;
import org.apache.hadoop.hbase.regionserver.SimpleRpcSchedulerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * HBase's scheduler (same executors, handlers and priorities) with the general call queues made
 * {@link PollingCallQueue}s, so that an idle handler picks up the next Get or Put without being
 * woken. Set {@code hbase.region.server.rpc.scheduler.factory.class} to this class. An operator's
 * own call queue type (deadline, codel, another pluggable queue, read/write split) is kept, with
 * one WARN that handlers do not poll.
 */
public class PollingRpcSchedulerFactory extends SimpleRpcSchedulerFactory {
  private static final Logger LOG = LoggerFactory.getLogger(PollingRpcSchedulerFactory.class);

  @Override
  public RpcScheduler create(Configuration conf, PriorityFunction priority, Abortable server) {
    VersionCheck.hbasePlugin("PollingRpcSchedulerFactory (RegionServer RPC scheduler)",
      HybridRpcKeys.versionCheck(conf));
    return super.create(pollingConf(conf), priority, server);
  }

  /** The configuration with the polling call queue, or {@code conf} if the operator chose one. */
  static Configuration pollingConf(Configuration conf) {
    String type = conf.get(RpcExecutor.CALL_QUEUE_TYPE_CONF_KEY,
      RpcExecutor.CALL_QUEUE_TYPE_CONF_DEFAULT);
    String pluggable = conf.get(RpcExecutor.PLUGGABLE_CALL_QUEUE_CLASS_NAME, "");
    boolean ours = RpcExecutor.CALL_QUEUE_TYPE_PLUGGABLE_CONF_VALUE.equals(type)
      && PollingCallQueue.class.getName().equals(pluggable);
    if (!ours && !RpcExecutor.CALL_QUEUE_TYPE_FIFO_CONF_VALUE.equals(type)) {
      LOG.warn("Call queue type {} ({}) kept: RPC handlers do not poll for calls, each call wakes "
        + "a parked handler", type, RpcExecutor.CALL_QUEUE_TYPE_CONF_KEY);
      return conf;
    }
    if (conf.getFloat(RWQueueRpcExecutor.CALL_QUEUE_READ_SHARE_CONF_KEY, 0) > 0) {
      LOG.warn("Read/write call queues (hbase.ipc.server.callqueue.read.ratio) kept: RPC handlers "
        + "do not poll for calls, each call wakes a parked handler");
      return conf;
    }
    Configuration c = new Configuration(conf);
    c.set(RpcExecutor.CALL_QUEUE_TYPE_CONF_KEY, RpcExecutor.CALL_QUEUE_TYPE_PLUGGABLE_CONF_VALUE);
    c.set(RpcExecutor.PLUGGABLE_CALL_QUEUE_CLASS_NAME, PollingCallQueue.class.getName());
    c.setBoolean(RpcExecutor.PLUGGABLE_CALL_QUEUE_WITH_FAST_PATH_ENABLED, false);
    c.set(RpcExecutor.CALL_QUEUE_QUEUE_BALANCER_CLASS, PollingQueueBalancer.class.getName());
    LOG.info("RPC handlers poll their call queue for {} us when idle ({} at a time)",
      HybridRpcKeys.Handler.pollUs(c), HybridRpcKeys.Handler.pollers(c));
    return c;
  }
}
