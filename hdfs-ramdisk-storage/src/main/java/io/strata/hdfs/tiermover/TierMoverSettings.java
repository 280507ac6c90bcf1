package io.strata.hdfs.tiermover;

import io.strata.hdfs.HdfsKeys;
import java.util.List;
import java.util.Objects;
import org.apache.hadoop.conf.Configuration;

/**
 * The tier mover's settings, read and checked once at start by {@link HdfsKeys}' getters.
 * Immutable: safe from any thread.
 *
 * @param followed       path prefixes whose renames are followed ({@link HdfsKeys#TIERMOVER_PATHS})
 * @param settleMs       rename to first look
 * @param checkMs        first interval between the looks at a misplaced file (at least 1)
 * @param checkMaxMs     the longest interval (at least {@code checkMs})
 * @param rerequestMs    between two requests to the satisfier for one file
 * @param giveUpMs       acceptance to giving up on a file that stays misplaced
 * @param recheckMs      acceptance to the second look at a file found in place, 0 for none
 * @param maxQueued      the most paths held in memory
 * @param saveIntervalMs between two saves of the state file
 * @param noProgressMs   requests without any file reaching its tier before that is reported
 * @param spsJournalDir  the satisfier's journal of the files it holds, read to tell a stale
 *                       "being satisfied" mark from a held one
 * @param agingDir       where RegionServers publish their age chores' progress
 */
final class TierMoverSettings {
  private final List<String> followed;
  private final long settleMs;
  private final long checkMs;
  private final long checkMaxMs;
  private final long rerequestMs;
  private final long giveUpMs;
  private final long recheckMs;
  private final int maxQueued;
  private final long saveIntervalMs;
  private final long noProgressMs;
  private final String spsJournalDir;
  private final String agingDir;

  TierMoverSettings(List<String> followed, long settleMs, long checkMs, long checkMaxMs,
    long rerequestMs, long giveUpMs, long recheckMs, int maxQueued, long saveIntervalMs,
    long noProgressMs, String spsJournalDir, String agingDir) {
    this.followed = followed;
    this.settleMs = settleMs;
    this.checkMs = checkMs;
    this.checkMaxMs = checkMaxMs;
    this.rerequestMs = rerequestMs;
    this.giveUpMs = giveUpMs;
    this.recheckMs = recheckMs;
    this.maxQueued = maxQueued;
    this.saveIntervalMs = saveIntervalMs;
    this.noProgressMs = noProgressMs;
    this.spsJournalDir = spsJournalDir;
    this.agingDir = agingDir;
  }

  public List<String> followed() {
    return followed;
  }

  public long settleMs() {
    return settleMs;
  }

  public long checkMs() {
    return checkMs;
  }

  public long checkMaxMs() {
    return checkMaxMs;
  }

  public long rerequestMs() {
    return rerequestMs;
  }

  public long giveUpMs() {
    return giveUpMs;
  }

  public long recheckMs() {
    return recheckMs;
  }

  public int maxQueued() {
    return maxQueued;
  }

  public long saveIntervalMs() {
    return saveIntervalMs;
  }

  public long noProgressMs() {
    return noProgressMs;
  }

  public String spsJournalDir() {
    return spsJournalDir;
  }

  public String agingDir() {
    return agingDir;
  }

  /** @throws IllegalArgumentException naming the key, for a value out of range */
  static TierMoverSettings from(Configuration conf) {
    // In this order, so that of several bad values the same one is reported as always.
    long noProgressMs = HdfsKeys.moveNoProgressMs(conf);
    long settleMs = HdfsKeys.tierMoverSettleMs(conf);
    long checkMs = HdfsKeys.tierMoverCheckIntervalMs(conf);
    long checkMaxMs = HdfsKeys.tierMoverCheckIntervalMaxMs(conf);
    long rerequestMs = HdfsKeys.tierMoverRerequestMs(conf);
    long giveUpMs = HdfsKeys.tierMoverGiveUpMs(conf);
    long recheckMs = HdfsKeys.tierMoverRecheckMs(conf);
    long saveIntervalMs = HdfsKeys.tierMoverSaveIntervalMs(conf);
    int maxQueued = HdfsKeys.tierMoverMaxQueued(conf);
    List<String> followed = HdfsKeys.tierMoverPaths(conf);
    String spsJournalDir = HdfsKeys.spsJournalDir(conf);
    String agingDir = HdfsKeys.tierMoverAgingDir(conf);
    return new TierMoverSettings(followed, settleMs, checkMs, checkMaxMs, rerequestMs, giveUpMs,
      recheckMs, maxQueued, saveIntervalMs, noProgressMs, spsJournalDir, agingDir);
  }

  /** Whether renames into {@code path} are followed. */
  boolean follows(String path) {
    if (path.equals(agingDir) || path.startsWith(agingDir.endsWith("/") ? agingDir
      : agingDir + "/")) {
      return false; // the RegionServers' aging reports, each replaced by a rename at every pass
    }
    for (String p : followed) {
      if (p.equals("/") || path.equals(p) || path.startsWith(p.endsWith("/") ? p : p + "/")) {
        return true;
      }
    }
    return false;
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof TierMoverSettings)) {
      return false;
    }
    TierMoverSettings o = (TierMoverSettings) other;
    return Objects.equals(followed, o.followed)
      && settleMs == o.settleMs
      && checkMs == o.checkMs
      && checkMaxMs == o.checkMaxMs
      && rerequestMs == o.rerequestMs
      && giveUpMs == o.giveUpMs
      && recheckMs == o.recheckMs
      && maxQueued == o.maxQueued
      && saveIntervalMs == o.saveIntervalMs
      && noProgressMs == o.noProgressMs && Objects.equals(spsJournalDir, o.spsJournalDir)
      && Objects.equals(agingDir, o.agingDir);
  }

  @Override
  public int hashCode() {
    return Objects.hash(followed, settleMs, checkMs, checkMaxMs, rerequestMs, giveUpMs, recheckMs,
      maxQueued, saveIntervalMs, noProgressMs, spsJournalDir, agingDir);
  }

  @Override
  public String toString() {
    return "TierMoverSettings[followed=" + followed + ", settleMs=" + settleMs +
      ", checkMs=" + checkMs + ", checkMaxMs=" + checkMaxMs + ", rerequestMs=" + rerequestMs +
      ", giveUpMs=" + giveUpMs + ", recheckMs=" + recheckMs + ", maxQueued=" + maxQueued +
      ", saveIntervalMs=" + saveIntervalMs + ", noProgressMs=" + noProgressMs
      + ", spsJournalDir=" + spsJournalDir + ", agingDir=" + agingDir + "]";
  }
}
