package io.strata.hbase.tiering;

import java.io.IOException;
import org.apache.hadoop.hbase.CoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.RegionServerCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionServerCoprocessorEnvironment;

/**
 * Stops a RegionServer at start whose live-WAL storage policy would lose acknowledged edits on a
 * reboot ({@link WalDurability#enforce}), the way HBase stops one whose WAL file system lacks
 * hflush/hsync. Loaded with {@code hbase.coprocessor.regionserver.classes}: HBase aborts the
 * RegionServer when a system coprocessor fails to start, before it reports for duty. (A WAL
 * coprocessor cannot: HBase's WAL coprocessor host has no server to abort.)
 */
public class WalDurabilityGuard implements RegionServerCoprocessor {

  @Override
  public void start(CoprocessorEnvironment env) throws IOException {
    String server = "RegionServer";
    if (env instanceof RegionServerCoprocessorEnvironment) {
      server += " " + ((RegionServerCoprocessorEnvironment) env).getServerName();
    }
    WalDurability.enforce(env.getConfiguration(), server);
  }
}
