package io.strata.hdfs.tiermover;

import io.strata.hdfs.HdfsKeys;
import java.util.List;
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
 */
record TierMoverSettings(List<String> followed, long settleMs, long checkMs, long checkMaxMs,
  long rerequestMs, long giveUpMs, long recheckMs, int maxQueued, long saveIntervalMs,
  long noProgressMs, String spsJournalDir) {

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
    return new TierMoverSettings(followed, settleMs, checkMs, checkMaxMs, rerequestMs, giveUpMs,
      recheckMs, maxQueued, saveIntervalMs, noProgressMs, spsJournalDir);
  }

  /** Whether renames into {@code path} are followed. */
  boolean follows(String path) {
    for (String p : followed) {
      if (p.equals("/") || path.equals(p) || path.startsWith(p.endsWith("/") ? p : p + "/")) {
        return true;
      }
    }
    return false;
  }
}
