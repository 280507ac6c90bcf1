package io.strata.hdfs.tiermover;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.strata.hdfs.sps.SatisfierStatus;
import java.util.Locale;

/**
 * A snapshot of the tier mover's progress, one part per piece of the tier mover that counts it.
 * Lags are in milliseconds. Immutable: safe to hand to any thread.
 *
 * @param position  where the mover is in the NameNode's edits
 * @param files     what became of the renamed paths taken in
 * @param queue     what is held in memory
 * @param lags      rename to placement, and rename to taking in
 * @param gaps      edits purged by the NameNode before they were read
 * @param saves     the state file's saves
 * @param satisfier the Storage Policy Satisfier as last seen, null before the first look
 */
public record TierMoverStatus(Position position, Files files, Queue queue, Lags lags, Gaps gaps,
  Saves saves, SatisfierStatus satisfier) {

  /**
   * @param txid        the last transaction taken in
   * @param txidsBehind the NameNode's estimate of the transactions not read yet, -1 unknown
   */
  public record Position(long txid, long txidsBehind) {
  }

  /**
   * @param renames        rename events read
   * @param accepted       paths taken in (renamed under a followed path, restored from the state,
   *                       or listed below a renamed directory)
   * @param alreadyInPlace files found on their policy's storage types without a request
   * @param moved          files seen on their tier after a request to the satisfier
   * @param failed         files given up on, still misplaced
   * @param gone           paths deleted or renamed again before they were placed
   * @param requests       requests to the Storage Policy Satisfier
   */
  public record Files(long renames, long accepted, long alreadyInPlace, long moved, long failed,
    long gone, long requests) {
  }

  /**
   * @param queued            paths held, files and directories
   * @param directoriesQueued of {@code queued}: renamed directories whose files are being listed
   * @param directoriesListed renamed directories whose files have all been listed
   * @param peak              the most paths queued at once (the memory held), bounded by
   *                          strata.tiermover.max.queued
   */
  public record Queue(long queued, long directoriesQueued, long directoriesListed, long peak) {
  }

  /**
   * @param move  rename to replicas seen on the policy's storage types, for the files that moved
   * @param event rename to the mover taking it in
   */
  public record Lags(LagSamples.Snapshot move, LagSamples.Snapshot event) {
  }

  /**
   * Gaps in the NameNode's edits (purged before they were read): renames there are lost.
   *
   * @param count       the gaps
   * @param missedTxids the transactions in them
   * @param lastFirst   the last gap's first transaction, -1 without a gap
   * @param lastLast    the last gap's last transaction, -1 without a gap
   */
  public record Gaps(long count, long missedTxids, long lastFirst, long lastLast) {
  }

  /**
   * @param count        state file saves
   * @param bytesWritten the bytes they wrote
   */
  public record Saves(long count, long bytesWritten) {
  }

  /** The status as the {@code tier_mover} object of Strata's JSON reports. */
  public ObjectNode toJson() {
    ObjectNode n = JsonNodeFactory.instance.objectNode();
    n.put("txid", position.txid());
    n.put("txids_behind", position.txidsBehind());
    n.put("renames", files.renames());
    n.put("files_accepted", files.accepted());
    n.put("queued", queue.queued());
    n.put("moved", files.moved());
    n.put("already_in_place", files.alreadyInPlace());
    n.put("gone", files.gone());
    n.put("failed", files.failed());
    n.put("move_requests", files.requests());
    lagJson(n.putObject("move_lag_ms"), lags.move());
    lagJson(n.putObject("event_lag_ms"), lags.event());
    n.put("directories_queued", queue.directoriesQueued());
    n.put("directories_listed", queue.directoriesListed());
    n.put("queued_peak", queue.peak());
    n.put("gaps", gaps.count());
    n.put("missed_txids", gaps.missedTxids());
    n.put("last_gap_first_txid", gaps.lastFirst());
    n.put("last_gap_last_txid", gaps.lastLast());
    n.put("state_saves", saves.count());
    n.put("state_bytes_written", saves.bytesWritten());
    if (satisfier == null) {
      n.putNull("satisfier");
    } else {
      n.set("satisfier", satisfier.toJson());
    }
    return n;
  }

  private static void lagJson(ObjectNode n, LagSamples.Snapshot s) {
    n.put("count", s.count());
    n.put("p50", s.p50());
    n.put("p99", s.p99());
    n.put("max", s.max());
  }

  @Override
  public String toString() {
    LagSamples.Snapshot moveLag = lags.move();
    String line = String.format(Locale.ROOT, "transaction %d (%s behind): %d renames, "
      + "%d files taken in, %d queued (%d directories being listed, peak %d), %d moved, %d "
      + "already in place, %d gone, %d failed; move lag ms p50 %d p99 %d max %d", position.txid(),
      position.txidsBehind() < 0 ? "?" : Long.toString(position.txidsBehind()), files.renames(),
      files.accepted(), queue.queued(), queue.directoriesQueued(), queue.peak(), files.moved(),
      files.alreadyInPlace(), files.gone(), files.failed(), moveLag.p50(), moveLag.p99(),
      moveLag.max());
    if (satisfier != null && (!satisfier.running() || satisfier.restarts() > 0)) {
      line += "; Storage Policy Satisfier " + satisfier;
    }
    if (gaps.count() > 0) {
      line += String.format(Locale.ROOT, "; LOST %d transactions in %d gaps (last: "
        + "transactions %d to %d, purged by the NameNode before they were read): renames then "
        + "were not followed, run 'strata mover -p DIR' on the directories renamed into",
        gaps.missedTxids(), gaps.count(), gaps.lastFirst(), gaps.lastLast());
    }
    return line;
  }
}
