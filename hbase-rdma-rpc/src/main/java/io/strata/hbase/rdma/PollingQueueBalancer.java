package io.strata.hbase.rdma;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.ipc.CallRunner;
import org.apache.hadoop.hbase.ipc.QueueBalancer;

/**
 * Puts a call on a {@link PollingCallQueue} whose handler is polling with nothing to do, when
 * there is one, so the call starts without a wake-up; otherwise on a random queue, as HBase's
 * default balancer does.
 */
public final class PollingQueueBalancer implements QueueBalancer {
  private final PollingCallQueue[] polling;
  private final int[] index;
  private final int queues;

  /** The constructor HBase's RpcExecutor calls ({@code hbase.ipc.server.callqueue.balancer.class}). */
  public PollingQueueBalancer(Configuration conf, String executorName,
    List<BlockingQueue<CallRunner>> queues) {
    this.queues = queues.size();
    int n = 0;
    for (BlockingQueue<CallRunner> q : queues) {
      if (q instanceof PollingCallQueue) {
        n++;
      }
    }
    polling = new PollingCallQueue[n];
    index = new int[n];
    n = 0;
    for (int i = 0; i < queues.size(); i++) {
      if (queues.get(i) instanceof PollingCallQueue) {
        polling[n] = (PollingCallQueue) queues.get(i);
        index[n++] = i;
      }
    }
  }

  @Override
  public int getNextQueue(CallRunner callRunner) {
    for (int i = 0; i < polling.length; i++) {
      if (polling[i].hasIdlePoller()) {
        return index[i];
      }
    }
    return ThreadLocalRandom.current().nextInt(queues);
  }
}
