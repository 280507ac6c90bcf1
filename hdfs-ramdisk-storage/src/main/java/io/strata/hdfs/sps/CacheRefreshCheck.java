package io.strata.hdfs.sps;

import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.server.namenode.sps.Context;
import org.apache.hadoop.hdfs.server.namenode.sps.DatanodeCacheManager;
import org.apache.hadoop.hdfs.server.protocol.DatanodeStorageReport;
import org.apache.hadoop.net.NetworkTopology;

/**
 * Whether the {@code DatanodeCacheManager} on the class path refreshes on its first use, as
 * {@code patches/hdfs/0003-sps-datanode-cache-refresh.patch} makes it do. Upstream's refreshes only
 * once the machine has been up longer than the refresh interval, and its satisfier's thread dies
 * before that. Asked of the class's behaviour, not of where it came from: a cache manager with an
 * interval longer than any uptime is used once through a context that counts refreshes.
 */
public final class CacheRefreshCheck {
  private CacheRefreshCheck() {
  }

  public static boolean refreshesOnFirstUse() {
    Configuration conf = new Configuration(false);
    conf.setLong(DFSConfigKeys.DFS_SPS_DATANODE_CACHE_REFRESH_INTERVAL_MS, Long.MAX_VALUE);
    AtomicInteger refreshes = new AtomicInteger();
    Context counting = (Context) Proxy.newProxyInstance(Context.class.getClassLoader(),
      new Class<?>[] { Context.class }, (proxy, method, args) -> {
        switch (method.getName()) {
          case "getLiveDatanodeStorageReport":
            refreshes.incrementAndGet();
            return new DatanodeStorageReport[0];
          case "getNetworkTopology":
            return NetworkTopology.getInstance(conf);
          default:
            throw new UnsupportedOperationException(method.getName());
        }
      });
    try {
      new DatanodeCacheManager(conf).getLiveDatanodeStorageReport(counting);
    } catch (Exception e) {
      return false;
    }
    return refreshes.get() > 0;
  }
}
