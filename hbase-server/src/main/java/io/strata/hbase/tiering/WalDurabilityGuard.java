package io.strata.hbase.tiering;

import io.strata.compat.VersionCheck;
import java.io.IOException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Abortable;
import org.apache.hadoop.hbase.CoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.HasRegionServerServices;
import org.apache.hadoop.hbase.coprocessor.RegionServerCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionServerCoprocessorEnvironment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stops a RegionServer at start whose live-WAL storage policy would lose acknowledged edits on a
 * reboot ({@link WalDurability#enforce}), the way HBase stops one whose WAL file system lacks
 * hflush/hsync. Loaded with {@code hbase.coprocessor.regionserver.classes}: HBase aborts the
 * RegionServer when a system coprocessor fails to start, before it reports for duty. (A WAL
 * coprocessor cannot: HBase's WAL coprocessor host has no server to abort.)
 *
 * <p>When the NameNode does not answer for the policy's storage types at start, refusing to start
 * would keep a RegionServer down for an outage of one NameNode call, which a stock RegionServer
 * rides out: the guard lets it start, says so, and checks again in the background until the
 * NameNode answers, aborting the RegionServer then if the policy is one it would have refused.
 */
public class WalDurabilityGuard implements RegionServerCoprocessor {
  private static final Logger LOG = LoggerFactory.getLogger(WalDurabilityGuard.class);
  /** Between two checks of a policy the NameNode could not judge at start. */
  static final long RECHECK_MS = 10_000;
  /** Warn again about a check still unanswered after this many attempts. */
  private static final int WARN_EVERY = 30;

  private volatile ScheduledExecutorService recheck;

  /** One check of the WAL policy: returns normally when it is acceptable. */
  @FunctionalInterface
  interface Check {
    void run() throws IOException;
  }

  @Override
  public void start(CoprocessorEnvironment env) throws IOException {
    String server = "RegionServer";
    if (env instanceof RegionServerCoprocessorEnvironment) {
      server += " " + ((RegionServerCoprocessorEnvironment) env).getServerName();
    }
    Configuration conf = env.getConfiguration();
    VersionCheck.hbasePlugin("WalDurabilityGuard (RegionServer coprocessor)",
      TieringKeys.versionCheck(conf));
    String who = server;
    try {
      WalDurability.enforce(conf, who);
    } catch (WalDurability.Unanswered e) {
      Abortable abortable = env instanceof HasRegionServerServices
        ? ((HasRegionServerServices) env).getRegionServerServices() : null;
      LOG.warn("{}; starting all the same and checking again every {} s: the RegionServer "
        + "aborts if the policy turns out to be one it refuses", e.getMessage(),
        RECHECK_MS / 1000);
      ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "strata-wal-durability-recheck");
        t.setDaemon(true);
        return t;
      });
      recheck = timer;
      int[] attempts = { 0 };
      timer.scheduleWithFixedDelay(() -> {
        if (recheckOnce(() -> WalDurability.enforce(conf, who), abortable, who, ++attempts[0])) {
          timer.shutdown();
        }
      }, RECHECK_MS, RECHECK_MS, TimeUnit.MILLISECONDS);
    }
  }

  @Override
  public void stop(CoprocessorEnvironment env) {
    ScheduledExecutorService timer = recheck;
    if (timer != null) {
      timer.shutdownNow();
    }
  }

  /**
   * One background check: true when it is settled (accepted, or refused and the server asked to
   * abort), false when the NameNode still does not answer. Never throws: the timer would
   * otherwise stop checking in silence.
   */
  static boolean recheckOnce(Check check, Abortable abortable, String server, int attempt) {
    try {
      check.run();
      LOG.info("{}: the live-WAL storage policy is checked now that the NameNode answers",
        server);
      return true;
    } catch (WalDurability.Unanswered e) {
      if (attempt % WARN_EVERY == 0) {
        LOG.warn("{} (still, after {} attempts)", e.getMessage(), attempt);
      }
      return false;
    } catch (IOException | RuntimeException e) {
      String why = e.getMessage() + " (found once the NameNode answered, after the RegionServer "
        + "had started)";
      LOG.error("{}; aborting", why, e);
      if (abortable != null) {
        abortable.abort(why, e);
      } else {
        LOG.error("{}: no server to abort from this coprocessor environment; stop it by hand",
          server);
      }
      return true;
    }
  }
}
