package io.strata.hdfs;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.SecurityUtil;
import org.apache.hadoop.security.UserGroupInformation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The login of a long-running Strata daemon (the satisfier, the tier mover). On a cluster with
 * Kerberos it logs in from its keytab, as upstream's own daemons do, and checks its ticket at an
 * interval, logging in again before the ticket ends: a daemon that lived on the operator's ticket
 * cache would die when that ticket's renew limit passed. Without Kerberos it does nothing.
 */
public final class DaemonLogin {
  private static final Logger LOG = LoggerFactory.getLogger(DaemonLogin.class);

  private DaemonLogin() {
  }

  /**
   * Logs {@code daemon} in from the keytab and principal named by the two keys when
   * {@code hadoop.security.authentication} is {@code kerberos}, and starts the ticket check.
   *
   * @throws IllegalArgumentException a key is missing, or the keytab is not a readable file
   * @throws IOException the KDC refused the login
   */
  public static void login(Configuration conf, String daemon, String keytabKey,
    String principalKey) throws IOException {
    UserGroupInformation.setConfiguration(conf);
    if (!UserGroupInformation.isSecurityEnabled()) {
      return;
    }
    String keytab = conf.getTrimmed(keytabKey, "");
    String principal = conf.getTrimmed(principalKey, "");
    if (keytab.isEmpty() || principal.isEmpty()) {
      throw new IllegalArgumentException(daemon + " runs on a Kerberos cluster "
        + "(hadoop.security.authentication=kerberos) and needs a keytab to log in from: set "
        + keytabKey + " and " + principalKey + " (" + (keytab.isEmpty() ? keytabKey
          : principalKey) + " is not set); a ticket cache would expire under a daemon");
    }
    File file = new File(keytab);
    if (!file.isFile() || !file.canRead()) {
      throw new IllegalArgumentException(daemon + ": " + keytabKey + " = " + keytab + " is not "
        + "a readable file");
    }
    SecurityUtil.login(conf, keytabKey, principalKey,
      InetAddress.getLocalHost().getCanonicalHostName());
    UserGroupInformation user = UserGroupInformation.getLoginUser();
    LOG.info("{} logged in to Kerberos as {} from keytab {}; its ticket is checked every {} ms "
      + "and renewed from the keytab before it ends", daemon, user.getUserName(), keytab,
      HdfsKeys.kerberosReloginCheckMs(conf));
    startReloginCheck(daemon, user, keytab, HdfsKeys.kerberosReloginCheckMs(conf));
  }

  private static void startReloginCheck(String daemon, UserGroupInformation user, String keytab,
    long everyMs) {
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "strata-kerberos-relogin");
      t.setDaemon(true);
      return t;
    });
    timer.scheduleWithFixedDelay(() -> {
      try {
        user.checkTGTAndReloginFromKeytab();
      } catch (IOException | RuntimeException e) {
        // Thrown out of a scheduled task, the check would stop for good: log and try next time.
        LOG.warn("{}: renewing the Kerberos ticket of {} from keytab {} failed ({}); trying "
          + "again in {} ms; calls to the NameNode fail once the ticket ends", daemon,
          user.getUserName(), keytab, e.toString(), everyMs);
      }
    }, everyMs, everyMs, TimeUnit.MILLISECONDS);
  }
}
