package io.strata.hdfs;

import io.strata.compat.VersionCheck;
import io.strata.conf.KeyValues;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;

/**
 * Configuration keys of Strata's HDFS-side services and plug-ins (the tier mover; the
 * DataNode's volume chooser and read-only volume watcher, set in its hdfs-site.xml; the Storage
 * Policy Satisfier's supervision), each declared once here with its default and the one typed getter that reads and
 * checks it. Bad values stop the service or plug-in with an {@link IllegalArgumentException}
 * naming the key, the value and what is allowed. Each is listed in
 * docs/configuration.md. Stateless: safe from any thread.
 */
public final class HdfsKeys {
  private HdfsKeys() {
  }

  /**
   * Comma-separated path prefixes whose renames the tier mover follows. Default {@code /}: every
   * rename in the namespace. The tier mover holds at most {@link #TIERMOVER_MAX_QUEUED} files in
   * memory and lists a renamed directory in chunks, so a rename of a large tree costs time, not
   * memory.
   */
  public static final String TIERMOVER_PATHS = "strata.tiermover.paths";
  public static final String TIERMOVER_PATHS_DEFAULT = "/";

  /** {@link #TIERMOVER_PATHS}; each entry must be an absolute path. */
  public static List<String> tierMoverPaths(Configuration conf) {
    List<String> paths = Arrays.asList(conf.getTrimmedStrings(TIERMOVER_PATHS,
      TIERMOVER_PATHS_DEFAULT));
    for (String p : paths) {
      if (!p.startsWith("/")) {
        throw new IllegalArgumentException(TIERMOVER_PATHS + " entry '" + p
          + "' is not an absolute path");
      }
    }
    return paths;
  }

  /**
   * The directory in HDFS where RegionServers publish the progress of their age chores
   * ({@link io.strata.hdfs.tiermover.ReplacementReport}), read for the tier mover's status.
   * A RegionServer writes to {@link #AGING_REPORTS_SUBDIR} under its {@code hbase.rootdir}; the
   * default matches a root of {@code /hbase}, set this key when the cluster's root is elsewhere.
   * Reading it needs the access the tier mover has anyway (an HDFS superuser, for inotify).
   */
  public static final String TIERMOVER_AGING_DIR = "strata.tiermover.aging.dir";
  public static final String TIERMOVER_AGING_DIR_DEFAULT = "/hbase/.strata/aging";

  /** Where under {@code hbase.rootdir} a RegionServer publishes its age chore's progress. */
  public static final String AGING_REPORTS_SUBDIR = ".strata/aging";

  /** {@link #TIERMOVER_AGING_DIR}; must be an absolute path. */
  public static String tierMoverAgingDir(Configuration conf) {
    String dir = conf.getTrimmed(TIERMOVER_AGING_DIR, TIERMOVER_AGING_DIR_DEFAULT);
    if (!dir.startsWith("/")) {
      throw new IllegalArgumentException(TIERMOVER_AGING_DIR + " '" + dir
        + "' is not an absolute path");
    }
    return dir;
  }

  /**
   * Milliseconds between a rename and the tier mover's first look at the file, so a storage
   * policy set right after the rename (as HBase does when it archives) is the one enforced.
   * Default 1000.
   */
  public static final String TIERMOVER_SETTLE_MS = "strata.tiermover.settle.ms";
  public static final long TIERMOVER_SETTLE_MS_DEFAULT = 1_000;

  /** {@link #TIERMOVER_SETTLE_MS}; must not be negative. */
  public static long tierMoverSettleMs(Configuration conf) {
    return nonNegativeMs(conf, TIERMOVER_SETTLE_MS, TIERMOVER_SETTLE_MS_DEFAULT);
  }

  /**
   * Milliseconds between the checks of a queued file's replicas; doubles per check up to
   * {@link #TIERMOVER_CHECK_INTERVAL_MAX_MS}. Default 1000.
   */
  public static final String TIERMOVER_CHECK_INTERVAL_MS = "strata.tiermover.check.interval.ms";
  public static final long TIERMOVER_CHECK_INTERVAL_MS_DEFAULT = 1_000;

  /** {@link #TIERMOVER_CHECK_INTERVAL_MS}; must be positive. */
  public static long tierMoverCheckIntervalMs(Configuration conf) {
    return positiveMs(conf, TIERMOVER_CHECK_INTERVAL_MS, TIERMOVER_CHECK_INTERVAL_MS_DEFAULT);
  }

  /** Upper bound of the check interval, in milliseconds. Default 10000. */
  public static final String TIERMOVER_CHECK_INTERVAL_MAX_MS =
    "strata.tiermover.check.interval.max.ms";
  public static final long TIERMOVER_CHECK_INTERVAL_MAX_MS_DEFAULT = 10_000;

  /**
   * {@link #TIERMOVER_CHECK_INTERVAL_MAX_MS}; must be positive, and counts as at least the check
   * interval.
   */
  public static long tierMoverCheckIntervalMaxMs(Configuration conf) {
    long checkMs = tierMoverCheckIntervalMs(conf);
    return Math.max(checkMs, positiveMs(conf, TIERMOVER_CHECK_INTERVAL_MAX_MS,
      TIERMOVER_CHECK_INTERVAL_MAX_MS_DEFAULT));
  }

  /**
   * Milliseconds after which a file still misplaced is handed to the Storage Policy Satisfier
   * again (the satisfier ignores a request for a file it is still working on). Default 30000.
   */
  public static final String TIERMOVER_REREQUEST_MS = "strata.tiermover.rerequest.ms";
  public static final long TIERMOVER_REREQUEST_MS_DEFAULT = 30_000;

  /** {@link #TIERMOVER_REREQUEST_MS}; must be positive. */
  public static long tierMoverRerequestMs(Configuration conf) {
    return positiveMs(conf, TIERMOVER_REREQUEST_MS, TIERMOVER_REREQUEST_MS_DEFAULT);
  }

  /**
   * Milliseconds after which a file still misplaced is reported as failed (logged with its
   * misplaced blocks, counted, and no longer checked). Default 600000 (10 minutes).
   */
  public static final String TIERMOVER_GIVE_UP_MS = "strata.tiermover.give.up.ms";
  public static final long TIERMOVER_GIVE_UP_MS_DEFAULT = 600_000;

  /** {@link #TIERMOVER_GIVE_UP_MS}; must be positive. */
  public static long tierMoverGiveUpMs(Configuration conf) {
    return positiveMs(conf, TIERMOVER_GIVE_UP_MS, TIERMOVER_GIVE_UP_MS_DEFAULT);
  }

  /**
   * Milliseconds after taking in a renamed file at which the tier mover looks at it once more
   * when it was already on its policy: a storage policy change is not an inotify event, so a
   * policy set on the file (or a directory above it) after the first look is only seen by this
   * second one. A policy set later still is not followed; run {@code strata mover -p} on it.
   * 0 turns the second look off. Default 5000.
   */
  public static final String TIERMOVER_RECHECK_MS = "strata.tiermover.recheck.ms";
  public static final long TIERMOVER_RECHECK_MS_DEFAULT = 5_000;

  /** {@link #TIERMOVER_RECHECK_MS}; must not be negative. */
  public static long tierMoverRecheckMs(Configuration conf) {
    return nonNegativeMs(conf, TIERMOVER_RECHECK_MS, TIERMOVER_RECHECK_MS_DEFAULT);
  }

  /**
   * The most renamed files (and renamed directories) the tier mover holds in memory. The files
   * below a renamed directory are listed in chunks as room frees up, and reading further renames
   * waits while this many are held (the NameNode's transaction id is a position to resume from,
   * so waiting loses nothing as long as the NameNode keeps its edits). Default 10000.
   */
  public static final String TIERMOVER_MAX_QUEUED = "strata.tiermover.max.queued";
  public static final int TIERMOVER_MAX_QUEUED_DEFAULT = 10_000;

  /** {@link #TIERMOVER_MAX_QUEUED}; must be at least 1. */
  public static int tierMoverMaxQueued(Configuration conf) {
    int v = (int) number(conf, TIERMOVER_MAX_QUEUED, TIERMOVER_MAX_QUEUED_DEFAULT, true);
    if (v < 1) {
      throw new IllegalArgumentException(TIERMOVER_MAX_QUEUED + " must be at least 1: "
        + conf.get(TIERMOVER_MAX_QUEUED));
    }
    return v;
  }

  /**
   * The tier mover rewrites its state file at most this often (milliseconds), and only when it
   * changed. The saved transaction id never passes a rename that is not in the saved file, so
   * after a crash the mover reads again at most this much of the NameNode's edits. Default 5000.
   */
  public static final String TIERMOVER_SAVE_INTERVAL_MS = "strata.tiermover.save.interval.ms";
  public static final long TIERMOVER_SAVE_INTERVAL_MS_DEFAULT = 5_000;

  /** {@link #TIERMOVER_SAVE_INTERVAL_MS}; must be positive. */
  public static long tierMoverSaveIntervalMs(Configuration conf) {
    return positiveMs(conf, TIERMOVER_SAVE_INTERVAL_MS, TIERMOVER_SAVE_INTERVAL_MS_DEFAULT);
  }

  /**
   * The latency-aware volume chooser, enabled with
   * {@code dfs.datanode.fsdataset.volume.choosing.policy = }{@value #LATENCY_AWARE_POLICY}.
   */
  public static final String LATENCY_AWARE_POLICY =
    "io.strata.hdfs.chooser.LatencyAwareVolumeChoosingPolicy";

  /**
   * Milliseconds between two latency probes of a volume (each probe writes, syncs and deletes a
   * small file on it); a probe running longer than this counts with its elapsed time. Default
   * {@value #CHOOSER_PROBE_INTERVAL_MS_DEFAULT}; must be positive.
   */
  public static final String CHOOSER_PROBE_INTERVAL_MS = "strata.volume.chooser.probe.interval.ms";
  public static final long CHOOSER_PROBE_INTERVAL_MS_DEFAULT = 1000;

  /** {@link #CHOOSER_PROBE_INTERVAL_MS}: a positive integer. */
  public static long chooserProbeIntervalMs(Configuration conf) {
    long v = (long) number(conf, CHOOSER_PROBE_INTERVAL_MS, CHOOSER_PROBE_INTERVAL_MS_DEFAULT,
      true);
    check(v > 0, CHOOSER_PROBE_INTERVAL_MS, "a positive number of milliseconds", v);
    return v;
  }

  /**
   * Bytes each latency probe writes and syncs. Default {@value #CHOOSER_PROBE_BYTES_DEFAULT};
   * between 1 and 16 MiB.
   */
  public static final String CHOOSER_PROBE_BYTES = "strata.volume.chooser.probe.bytes";
  public static final int CHOOSER_PROBE_BYTES_DEFAULT = 4096;

  private static final int CHOOSER_PROBE_BYTES_MAX = 16 << 20;

  /** {@link #CHOOSER_PROBE_BYTES}: an integer from 1 to 16 MiB. */
  public static int chooserProbeBytes(Configuration conf) {
    long v = (long) number(conf, CHOOSER_PROBE_BYTES, CHOOSER_PROBE_BYTES_DEFAULT, true);
    check(v >= 1 && v <= CHOOSER_PROBE_BYTES_MAX, CHOOSER_PROBE_BYTES,
      "a number of bytes from 1 to " + CHOOSER_PROBE_BYTES_MAX, v);
    return (int) v;
  }

  /**
   * A volume is slow when its probe latency exceeds this many times the median of its same-type
   * peers (and {@link #CHOOSER_SLOW_MIN_MS}). Default {@value #CHOOSER_SLOW_RATIO_DEFAULT}; must
   * be greater than 1.
   */
  public static final String CHOOSER_SLOW_RATIO = "strata.volume.chooser.slow.ratio";
  public static final double CHOOSER_SLOW_RATIO_DEFAULT = 5.0;

  /** {@link #CHOOSER_SLOW_RATIO}: a finite number greater than 1. */
  public static double chooserSlowRatio(Configuration conf) {
    double v = number(conf, CHOOSER_SLOW_RATIO, CHOOSER_SLOW_RATIO_DEFAULT, false);
    check(v > 1, CHOOSER_SLOW_RATIO, "a number greater than 1", v);
    return v;
  }

  /**
   * Probe latency in milliseconds below which no volume counts as slow, whatever its peers', so
   * that sub-millisecond noise on fast media excludes nothing. Default
   * {@value #CHOOSER_SLOW_MIN_MS_DEFAULT}; must be 0 or more.
   */
  public static final String CHOOSER_SLOW_MIN_MS = "strata.volume.chooser.slow.min.ms";
  public static final double CHOOSER_SLOW_MIN_MS_DEFAULT = 10.0;

  /** {@link #CHOOSER_SLOW_MIN_MS}: a finite number, 0 or more. */
  public static double chooserSlowMinMs(Configuration conf) {
    double v = number(conf, CHOOSER_SLOW_MIN_MS, CHOOSER_SLOW_MIN_MS_DEFAULT, false);
    check(v >= 0, CHOOSER_SLOW_MIN_MS, "0 or more milliseconds", v);
    return v;
  }

  /**
   * Weight of the newest probe in a volume's moving average of probe latency, in (0, 1]: 1 keeps
   * only the last probe, smaller values smooth more and readmit a recovered volume later. Default
   * {@value #CHOOSER_EWMA_WEIGHT_DEFAULT}.
   */
  public static final String CHOOSER_EWMA_WEIGHT = "strata.volume.chooser.ewma.weight";
  public static final double CHOOSER_EWMA_WEIGHT_DEFAULT = 0.5;

  /** {@link #CHOOSER_EWMA_WEIGHT}: a number in (0, 1]. */
  public static double chooserEwmaWeight(Configuration conf) {
    double v = number(conf, CHOOSER_EWMA_WEIGHT, CHOOSER_EWMA_WEIGHT_DEFAULT, false);
    check(v > 0 && v <= 1, CHOOSER_EWMA_WEIGHT, "a number in (0, 1]", v);
    return v;
  }

  /**
   * How often the read-only volume watcher ({@code io.strata.hdfs.volume.ReadOnlyVolumeWatcher},
   * a DataNode plug-in) reads the mount table for a volume whose file system went read-only
   * after an error. Default {@value #READONLY_CHECK_INTERVAL_MS_DEFAULT}; a duration, positive.
   */
  public static final String READONLY_CHECK_INTERVAL_MS =
    "strata.volume.readonly.check.interval.ms";
  public static final long READONLY_CHECK_INTERVAL_MS_DEFAULT = 2000;

  /** {@link #READONLY_CHECK_INTERVAL_MS}: a positive duration. */
  public static long readOnlyCheckIntervalMs(Configuration conf) {
    return positiveMs(conf, READONLY_CHECK_INTERVAL_MS, READONLY_CHECK_INTERVAL_MS_DEFAULT);
  }

  /**
   * How often the read-only volume watcher also creates and deletes an empty file on each
   * persistent volume (no sync): the one sign of a read-only file system on kernels whose mount
   * table does not show it. Only "read-only file system" counts; a full volume does not. Default
   * {@value #READONLY_PROBE_INTERVAL_MS_DEFAULT}; 0 turns the probe off (the mount table alone).
   */
  public static final String READONLY_PROBE_INTERVAL_MS =
    "strata.volume.readonly.probe.interval.ms";
  public static final long READONLY_PROBE_INTERVAL_MS_DEFAULT = 30_000;

  /** {@link #READONLY_PROBE_INTERVAL_MS}: a duration, 0 or more. */
  public static long readOnlyProbeIntervalMs(Configuration conf) {
    return nonNegativeMs(conf, READONLY_PROBE_INTERVAL_MS, READONLY_PROBE_INTERVAL_MS_DEFAULT);
  }

  /**
   * The keytab the satisfier daemon ({@code strata satisfier}) logs in from on a cluster with
   * {@code hadoop.security.authentication=kerberos}: upstream's key for its own external
   * satisfier ({@code hdfs sps}). Required there, with {@link #SPS_KERBEROS_PRINCIPAL}: a daemon
   * living on a ticket cache dies when the ticket's renew limit passes. No default.
   */
  public static final String SPS_KEYTAB_FILE = "dfs.storage.policy.satisfier.keytab.file";

  /**
   * The satisfier daemon's Kerberos principal ({@code _HOST} is replaced by the host's name), as
   * upstream's {@code hdfs sps}. No default.
   */
  public static final String SPS_KERBEROS_PRINCIPAL =
    "dfs.storage.policy.satisfier.kerberos.principal";

  /**
   * The keytab the tier mover daemon ({@code strata tier-mover}) logs in from on a Kerberos
   * cluster; required there, with {@link #TIERMOVER_KERBEROS_PRINCIPAL}. The principal must be
   * an HDFS superuser: the tier mover reads the NameNode's edit stream (inotify). No default.
   */
  public static final String TIERMOVER_KEYTAB_FILE = "strata.tiermover.keytab.file";

  /** The tier mover's Kerberos principal ({@code _HOST} is replaced). No default. */
  public static final String TIERMOVER_KERBEROS_PRINCIPAL = "strata.tiermover.kerberos.principal";

  /**
   * Milliseconds between a Kerberos daemon's checks of its ticket; each check logs in again from
   * the keytab when the ticket is near its end (upstream's
   * {@code checkTGTAndReloginFromKeytab}, a no-op otherwise). Default
   * {@value #KERBEROS_RELOGIN_CHECK_MS_DEFAULT}; must be positive.
   */
  public static final String KERBEROS_RELOGIN_CHECK_MS = "strata.kerberos.relogin.check.ms";
  public static final long KERBEROS_RELOGIN_CHECK_MS_DEFAULT = 60_000;

  /** {@link #KERBEROS_RELOGIN_CHECK_MS}; must be positive. */
  public static long kerberosReloginCheckMs(Configuration conf) {
    return positiveMs(conf, KERBEROS_RELOGIN_CHECK_MS, KERBEROS_RELOGIN_CHECK_MS_DEFAULT);
  }

  /**
   * Milliseconds before the in-process Storage Policy Satisfier is restarted after its thread
   * stopped unexpectedly; doubles while it keeps failing soon after a restart. Default
   * {@value #SPS_RESTART_BACKOFF_MS_DEFAULT}; must be positive.
   */
  public static final String SPS_RESTART_BACKOFF_MS = "strata.sps.restart.backoff.ms";
  public static final long SPS_RESTART_BACKOFF_MS_DEFAULT = 1_000;

  /** {@link #SPS_RESTART_BACKOFF_MS}; must be positive. */
  public static long spsRestartBackoffMs(Configuration conf) {
    return positiveMs(conf, SPS_RESTART_BACKOFF_MS, SPS_RESTART_BACKOFF_MS_DEFAULT);
  }

  /**
   * Upper bound of that back-off, in milliseconds. Default
   * {@value #SPS_RESTART_BACKOFF_MAX_MS_DEFAULT}; must be positive.
   */
  public static final String SPS_RESTART_BACKOFF_MAX_MS = "strata.sps.restart.backoff.max.ms";
  public static final long SPS_RESTART_BACKOFF_MAX_MS_DEFAULT = 60_000;

  /** {@link #SPS_RESTART_BACKOFF_MAX_MS}; must be positive, and counts as at least the back-off. */
  public static long spsRestartBackoffMaxMs(Configuration conf) {
    long backoffMs = spsRestartBackoffMs(conf);
    return Math.max(backoffMs, positiveMs(conf, SPS_RESTART_BACKOFF_MAX_MS,
      SPS_RESTART_BACKOFF_MAX_MS_DEFAULT));
  }

  /**
   * Milliseconds a starting satisfier waits for {@code /system/mover.id} while another holds it.
   * A satisfier or Mover killed without stopping keeps the file until the NameNode's lease soft
   * limit (60 s) has passed and its lease is recovered; a restart within that time waits it out
   * instead of failing. A holder still there after the wait is a live one: the start fails naming
   * it. Default {@value #SPS_START_WAIT_MS_DEFAULT}; must be positive.
   */
  public static final String SPS_START_WAIT_MS = "strata.sps.start.wait.ms";
  public static final long SPS_START_WAIT_MS_DEFAULT = 120_000;

  /** {@link #SPS_START_WAIT_MS}; must be positive. */
  public static long spsStartWaitMs(Configuration conf) {
    return positiveMs(conf, SPS_START_WAIT_MS, SPS_START_WAIT_MS_DEFAULT);
  }

  /**
   * Milliseconds the in-process satisfier may hold files taken from the NameNode without
   * finishing a file or a block move before it counts as stalled. It then logs, per file it
   * holds, why the file is not on its tier (too few replicas, no live DataNode with room on a
   * storage type) and restarts, which re-reads the live DataNodes and their free space (upstream
   * re-reads them every {@code dfs.storage.policy.satisfier.datanode.cache.refresh.interval.ms},
   * 5 minutes) and retries the moves it was waiting on (upstream after
   * {@code dfs.storage.policy.satisfier.self.retry.timeout.millis}, 5 minutes). While it stays
   * stalled the period doubles up to 16 times this value. Default {@value #SPS_STALL_MS_DEFAULT};
   * must be positive.
   */
  public static final String SPS_STALL_MS = "strata.sps.stall.ms";
  public static final long SPS_STALL_MS_DEFAULT = 120_000;

  /** {@link #SPS_STALL_MS}; must be positive. */
  public static long spsStallMs(Configuration conf) {
    return positiveMs(conf, SPS_STALL_MS, SPS_STALL_MS_DEFAULT);
  }

  /**
   * host:port where {@code strata satisfier} serves HTTP ({@code /jmx}, {@code /prometheus},
   * {@code /conf}, {@code /stacks}, {@code /logLevel}) with its figures and health. Port 0 takes a
   * free port (logged at start); {@code none} or empty serves nothing. Default
   * {@value #SPS_HTTP_ADDRESS_DEFAULT}: next to Hadoop's 9870/9871 (NameNode) and 9864-9869
   * (DataNode, secondary NameNode), used by no Hadoop or HBase default.
   */
  public static final String SPS_HTTP_ADDRESS = "strata.sps.http.address";
  public static final String SPS_HTTP_ADDRESS_DEFAULT = "0.0.0.0:9874";

  /** {@link #SPS_HTTP_ADDRESS}; null when disabled. */
  public static java.net.InetSocketAddress spsHttpAddress(Configuration conf) {
    return httpAddress(conf, SPS_HTTP_ADDRESS, SPS_HTTP_ADDRESS_DEFAULT);
  }

  /**
   * host:port where {@code strata tier-mover} serves HTTP, as {@link #SPS_HTTP_ADDRESS}. Default
   * {@value #TIERMOVER_HTTP_ADDRESS_DEFAULT}.
   */
  public static final String TIERMOVER_HTTP_ADDRESS = "strata.tiermover.http.address";
  public static final String TIERMOVER_HTTP_ADDRESS_DEFAULT = "0.0.0.0:9875";

  /** {@link #TIERMOVER_HTTP_ADDRESS}; null when disabled. */
  public static java.net.InetSocketAddress tierMoverHttpAddress(Configuration conf) {
    return httpAddress(conf, TIERMOVER_HTTP_ADDRESS, TIERMOVER_HTTP_ADDRESS_DEFAULT);
  }

  /** A host:port value with a port from 0 to 65535 (unresolved), or null for none/empty. */
  static java.net.InetSocketAddress httpAddress(Configuration conf, String key, String dflt) {
    String v = conf.getTrimmed(key, dflt);
    if (v.isEmpty() || v.equalsIgnoreCase("none")) {
      return null;
    }
    int colon = v.lastIndexOf(':');
    check(colon > 0 && colon < v.length() - 1, key, "host:port (port 0 for any free port) or "
      + "'none'", "'" + v + "'");
    int port;
    try {
      port = Integer.parseInt(v.substring(colon + 1));
    } catch (NumberFormatException e) {
      port = -1;
    }
    check(port >= 0 && port <= 65535, key, "host:port with a port from 0 to 65535", "'" + v + "'");
    return java.net.InetSocketAddress.createUnresolved(v.substring(0, colon), port);
  }

  /**
   * HDFS directory where the Storage Policy Satisfier journals the files it takes from the
   * NameNode, one empty directory per inode id, made before it works on the file and removed once
   * the file's "being satisfied" mark ({@code user.hdfs.sps}) is removed. The NameNode hands a
   * file out once and ignores new requests for a file that still has the mark; the journal is
   * what a satisfier started after a crash re-adopts, and what {@code strata mover},
   * {@code strata migrate} and the tier mover read to tell a mark a satisfier holds from a stale
   * one they may clear. In HDFS, so that it survives the satisfier's host; the satisfier (the
   * holder of {@code /system/mover.id}) must be able to write it, clients to read it. Default
   * {@value #SPS_JOURNAL_DIR_DEFAULT}; must be an absolute path.
   */
  public static final String SPS_JOURNAL_DIR = "strata.sps.journal.dir";
  public static final String SPS_JOURNAL_DIR_DEFAULT = "/system/strata-sps/held";

  /** {@link #SPS_JOURNAL_DIR}; must be an absolute path. */
  public static String spsJournalDir(Configuration conf) {
    String dir = conf.getTrimmed(SPS_JOURNAL_DIR, SPS_JOURNAL_DIR_DEFAULT);
    check(dir.startsWith("/") && dir.length() > 1, SPS_JOURNAL_DIR,
      "an absolute HDFS path other than /", "'" + dir + "'");
    return dir;
  }

  /**
   * Milliseconds without any block of the awaited files reaching its tier after which whoever
   * waits on moves ({@code strata mover}, {@code strata migrate}, the demo, the tier mover) says
   * that the satisfier makes no progress, naming the satisfier it sees. Default
   * {@value #MOVE_NO_PROGRESS_MS_DEFAULT}; must be positive.
   */
  public static final String MOVE_NO_PROGRESS_MS = "strata.move.no.progress.ms";
  public static final long MOVE_NO_PROGRESS_MS_DEFAULT = 60_000;

  /** {@link #MOVE_NO_PROGRESS_MS}; must be positive. */
  public static long moveNoProgressMs(Configuration conf) {
    return positiveMs(conf, MOVE_NO_PROGRESS_MS, MOVE_NO_PROGRESS_MS_DEFAULT);
  }

  /**
   * What Strata's HDFS-side plug-ins (the volume chooser, the satisfier, the tier mover, the
   * overlay's configured storage policies) do when the running Hadoop is not the release they are
   * built for ({@link io.strata.compat.SupportedVersions#HADOOP}): {@code strict} (default)
   * refuses to start, naming the plug-in and both versions; {@code warn} starts on the untested
   * version and logs a WARN at every start. Checked once per process, when the plug-in starts.
   */
  public static final String VERSION_CHECK = VersionCheck.KEY;
  public static final String VERSION_CHECK_DEFAULT = VersionCheck.KEY_DEFAULT;

  /** {@link #VERSION_CHECK}: {@code strict} or {@code warn}, any other value refused. */
  public static VersionCheck.Mode versionCheck(Configuration conf) {
    return VersionCheck.mode(conf.getTrimmed(VERSION_CHECK));
  }

  /**
   * The value of a duration key in milliseconds (a plain number, or with a unit such as
   * {@code 30s}); an {@link IllegalArgumentException} naming the key when it is not positive.
   */
  private static long positiveMs(Configuration conf, String key, long dflt) {
    long v = durationMs(conf, key, dflt);
    if (v <= 0) {
      throw new IllegalArgumentException(key + " must be positive: " + conf.get(key));
    }
    return v;
  }

  /** As {@link #positiveMs}, for keys where 0 is allowed. */
  private static long nonNegativeMs(Configuration conf, String key, long dflt) {
    long v = durationMs(conf, key, dflt);
    if (v < 0) {
      throw new IllegalArgumentException(key + " must not be negative: " + conf.get(key));
    }
    return v;
  }

  /** Hadoop's duration syntax; a value it cannot read is refused naming the key and the value. */
  private static long durationMs(Configuration conf, String key, long dflt) {
    try {
      return conf.getTimeDuration(key, dflt, TimeUnit.MILLISECONDS);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + ": '" + conf.get(key) + "' is not a duration (a "
        + "number of milliseconds, or with a unit such as 30s)");
    }
  }

  /** A plain number (no unit): the chooser's keys are read by the DataNode, once, at start. */
  private static double number(Configuration conf, String key, double dflt, boolean integral) {
    String raw = conf.getTrimmed(key);
    return integral ? KeyValues.whole(key, raw, (long) dflt) : KeyValues.finite(key, raw, dflt);
  }

  private static void check(boolean ok, String key, String expected, Object value) {
    if (!ok) {
      throw new IllegalArgumentException(String.format(Locale.ROOT, "%s must be %s, got %s", key,
        expected, value));
    }
  }
}
