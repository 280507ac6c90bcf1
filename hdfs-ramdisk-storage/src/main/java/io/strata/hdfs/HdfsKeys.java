package io.strata.hdfs;

/**
 * Configuration keys of Strata's HDFS-side services, with their defaults. Each is listed in the
 * README's configuration table.
 */
public final class HdfsKeys {
  private HdfsKeys() {
  }

  /**
   * Comma-separated path prefixes whose renames the tier mover follows. Default {@code /}: every
   * rename in the namespace.
   */
  public static final String TIERMOVER_PATHS = "strata.tiermover.paths";
  public static final String TIERMOVER_PATHS_DEFAULT = "/";

  /**
   * Milliseconds between a rename and the tier mover's first look at the file, so a storage
   * policy set right after the rename (as HBase does when it archives) is the one enforced.
   * Default 1000.
   */
  public static final String TIERMOVER_SETTLE_MS = "strata.tiermover.settle.ms";
  public static final long TIERMOVER_SETTLE_MS_DEFAULT = 1_000;

  /**
   * Milliseconds between the checks of a queued file's replicas; doubles per check up to
   * {@link #TIERMOVER_CHECK_INTERVAL_MAX_MS}. Default 1000.
   */
  public static final String TIERMOVER_CHECK_INTERVAL_MS = "strata.tiermover.check.interval.ms";
  public static final long TIERMOVER_CHECK_INTERVAL_MS_DEFAULT = 1_000;

  /** Upper bound of the check interval, in milliseconds. Default 10000. */
  public static final String TIERMOVER_CHECK_INTERVAL_MAX_MS =
    "strata.tiermover.check.interval.max.ms";
  public static final long TIERMOVER_CHECK_INTERVAL_MAX_MS_DEFAULT = 10_000;

  /**
   * Milliseconds after which a file still misplaced is handed to the Storage Policy Satisfier
   * again (the satisfier ignores a request for a file it is still working on). Default 30000.
   */
  public static final String TIERMOVER_REREQUEST_MS = "strata.tiermover.rerequest.ms";
  public static final long TIERMOVER_REREQUEST_MS_DEFAULT = 30_000;

  /**
   * Milliseconds after which a file still misplaced is reported as failed (logged with its
   * misplaced blocks, counted, and no longer checked). Default 600000 (10 minutes).
   */
  public static final String TIERMOVER_GIVE_UP_MS = "strata.tiermover.give.up.ms";
  public static final long TIERMOVER_GIVE_UP_MS_DEFAULT = 600_000;
}
