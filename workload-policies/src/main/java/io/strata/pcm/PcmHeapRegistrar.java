package io.strata.pcm;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.CoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.RegionServerCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionServerCoprocessorEnvironment;
import org.apache.hadoop.hbase.regionserver.OnlineRegions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A RegionServer coprocessor ({@code hbase.coprocessor.regionserver.classes}) that lets
 * {@link PcmHeapTuner} see the regions its RegionServer serves: HBase builds a heap memory tuner
 * from the server's configuration alone, and a coprocessor is the plug-in point that is handed the
 * server's online regions. It registers them with the server's configuration (a read-only view of
 * the same object the tuner gets), and unregisters them when the coprocessor stops.
 * Thread-safety: the registry is a copy-on-write list.
 */
public final class PcmHeapRegistrar implements RegionServerCoprocessor {
  private static final Logger LOG = LoggerFactory.getLogger(PcmHeapRegistrar.class);

  /** One RegionServer: its configuration and its online regions. */
  static final class Entry {
    final Configuration conf;
    final OnlineRegions regions;

    Entry(Configuration conf, OnlineRegions regions) {
      this.conf = conf;
      this.regions = regions;
    }
  }

  private static final List<Entry> REGISTERED = new CopyOnWriteArrayList<>();

  private Entry entry;

  @Override
  public void start(CoprocessorEnvironment env) {
    if (!(env instanceof RegionServerCoprocessorEnvironment)) {
      throw new IllegalStateException(PcmHeapRegistrar.class.getName() + " is a RegionServer "
        + "coprocessor: load it through hbase.coprocessor.regionserver.classes");
    }
    RegionServerCoprocessorEnvironment rs = (RegionServerCoprocessorEnvironment) env;
    entry = new Entry(rs.getConfiguration(), rs.getOnlineRegions());
    REGISTERED.add(entry);
    LOG.info("PCM heap tuner can see the regions of RegionServer {}", rs.getServerName());
  }

  @Override
  public void stop(CoprocessorEnvironment env) {
    if (entry != null) {
      REGISTERED.remove(entry);
    }
  }

  /**
   * The online regions of the RegionServer whose configuration has {@code marker} set to
   * {@code id} (the tuner marks its server's configuration), or null when none registered.
   */
  static OnlineRegions regionsFor(String marker, String id) {
    for (Entry e : REGISTERED) {
      if (id.equals(e.conf.get(marker))) {
        return e.regions;
      }
    }
    return null;
  }
}
