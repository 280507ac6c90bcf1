package io.strata.hdfs.tiermover;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.strata.hdfs.sps.SatisfierStatus;
import java.util.Locale;
import java.util.Objects;

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
 * @param aging     the RegionServers' age chores, as they last reported
 */
public final class TierMoverStatus {
  private final Position position;
  private final Files files;
  private final Queue queue;
  private final Lags lags;
  private final Gaps gaps;
  private final Saves saves;
  private final SatisfierStatus satisfier;
  private final Aging aging;

  public TierMoverStatus(Position position, Files files, Queue queue, Lags lags, Gaps gaps,
    Saves saves, SatisfierStatus satisfier, Aging aging) {
    this.position = position;
    this.files = files;
    this.queue = queue;
    this.lags = lags;
    this.gaps = gaps;
    this.saves = saves;
    this.satisfier = satisfier;
    this.aging = aging;
  }

  public Position position() {
    return position;
  }

  public Files files() {
    return files;
  }

  public Queue queue() {
    return queue;
  }

  public Lags lags() {
    return lags;
  }

  public Gaps gaps() {
    return gaps;
  }

  public Saves saves() {
    return saves;
  }

  public SatisfierStatus satisfier() {
    return satisfier;
  }

  public Aging aging() {
    return aging;
  }

  /**
   * Re-placements by age that RegionServers hand to the satisfier ({@link ReplacementReport}):
   * the sum over the reports found. Files and bytes re-placed and failures count since each
   * RegionServer started, the stopped ones included; pending counts only live RegionServers.
   *
   * @param sources       reports found
   * @param stale         of them, from RegionServers that stopped reporting
   *                      ({@link ReplacementReport#staleAt})
   * @param replacedFiles files handed to the satisfier
   * @param replacedBytes their bytes
   * @param pendingFiles  files due but not handed over yet (rate bound or a failed call)
   * @param pendingBytes  their bytes
   * @param failures      failed calls to the NameNode
   * @param error         why the reports could not be read, or null
   */
  public static final class Aging {
    public static final Aging NONE = new Aging(0, 0, 0, 0, 0, 0, 0, null);

    private final int sources;
    private final int stale;
    private final long replacedFiles;
    private final long replacedBytes;
    private final long pendingFiles;
    private final long pendingBytes;
    private final long failures;
    private final String error;

    public Aging(int sources, int stale, long replacedFiles, long replacedBytes,
      long pendingFiles, long pendingBytes, long failures, String error) {
      this.sources = sources;
      this.stale = stale;
      this.replacedFiles = replacedFiles;
      this.replacedBytes = replacedBytes;
      this.pendingFiles = pendingFiles;
      this.pendingBytes = pendingBytes;
      this.failures = failures;
      this.error = error;
    }

    /** The sum of {@code reports} at {@code nowMs}. */
    public static Aging of(java.util.List<ReplacementReport> reports, long nowMs) {
      int stale = 0;
      long rf = 0;
      long rb = 0;
      long pf = 0;
      long pb = 0;
      long fl = 0;
      for (ReplacementReport r : reports) {
        rf += r.replacedFiles();
        rb += r.replacedBytes();
        fl += r.failures();
        if (r.staleAt(nowMs)) {
          stale++;
        } else {
          pf += r.pendingFiles();
          pb += r.pendingBytes();
        }
      }
      return new Aging(reports.size(), stale, rf, rb, pf, pb, fl, null);
    }

    /** The last sum, with why a later read failed. */
    public Aging failed(String why) {
      return new Aging(sources, stale, replacedFiles, replacedBytes, pendingFiles, pendingBytes,
        failures, why);
    }

    public int sources() {
      return sources;
    }

    public int stale() {
      return stale;
    }

    public long replacedFiles() {
      return replacedFiles;
    }

    public long replacedBytes() {
      return replacedBytes;
    }

    public long pendingFiles() {
      return pendingFiles;
    }

    public long pendingBytes() {
      return pendingBytes;
    }

    public long failures() {
      return failures;
    }

    public String error() {
      return error;
    }

    @Override
    public boolean equals(Object other) {
      if (this == other) {
        return true;
      }
      if (!(other instanceof Aging)) {
        return false;
      }
      Aging o = (Aging) other;
      return sources == o.sources && stale == o.stale && replacedFiles == o.replacedFiles
        && replacedBytes == o.replacedBytes && pendingFiles == o.pendingFiles
        && pendingBytes == o.pendingBytes && failures == o.failures
        && Objects.equals(error, o.error);
    }

    @Override
    public int hashCode() {
      return Objects.hash(sources, stale, replacedFiles, replacedBytes, pendingFiles,
        pendingBytes, failures, error);
    }

    @Override
    public String toString() {
      return "Aging[sources=" + sources + ", stale=" + stale + ", replacedFiles=" + replacedFiles
        + ", replacedBytes=" + replacedBytes + ", pendingFiles=" + pendingFiles
        + ", pendingBytes=" + pendingBytes + ", failures=" + failures + ", error=" + error + "]";
    }
  }

  /**
   * @param txid        the last transaction taken in
   * @param txidsBehind the NameNode's estimate of the transactions not read yet, -1 unknown
   */
  public static final class Position {
    private final long txid;
    private final long txidsBehind;

    public Position(long txid, long txidsBehind) {
      this.txid = txid;
      this.txidsBehind = txidsBehind;
    }

    public long txid() {
      return txid;
    }

    public long txidsBehind() {
      return txidsBehind;
    }

    @Override
    public boolean equals(Object other) {
      if (this == other) {
        return true;
      }
      if (!(other instanceof Position)) {
        return false;
      }
      Position o = (Position) other;
      return txid == o.txid
        && txidsBehind == o.txidsBehind;
    }

    @Override
    public int hashCode() {
      return Objects.hash(txid, txidsBehind);
    }

    @Override
    public String toString() {
      return "Position[txid=" + txid + ", txidsBehind=" + txidsBehind + "]";
    }
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
  public static final class Files {
    private final long renames;
    private final long accepted;
    private final long alreadyInPlace;
    private final long moved;
    private final long failed;
    private final long gone;
    private final long requests;

    public Files(long renames, long accepted, long alreadyInPlace, long moved, long failed,
      long gone, long requests) {
      this.renames = renames;
      this.accepted = accepted;
      this.alreadyInPlace = alreadyInPlace;
      this.moved = moved;
      this.failed = failed;
      this.gone = gone;
      this.requests = requests;
    }

    public long renames() {
      return renames;
    }

    public long accepted() {
      return accepted;
    }

    public long alreadyInPlace() {
      return alreadyInPlace;
    }

    public long moved() {
      return moved;
    }

    public long failed() {
      return failed;
    }

    public long gone() {
      return gone;
    }

    public long requests() {
      return requests;
    }

    @Override
    public boolean equals(Object other) {
      if (this == other) {
        return true;
      }
      if (!(other instanceof Files)) {
        return false;
      }
      Files o = (Files) other;
      return renames == o.renames
        && accepted == o.accepted
        && alreadyInPlace == o.alreadyInPlace
        && moved == o.moved
        && failed == o.failed
        && gone == o.gone
        && requests == o.requests;
    }

    @Override
    public int hashCode() {
      return Objects.hash(renames, accepted, alreadyInPlace, moved, failed, gone, requests);
    }

    @Override
    public String toString() {
      return "Files[renames=" + renames + ", accepted=" + accepted +
        ", alreadyInPlace=" + alreadyInPlace + ", moved=" + moved + ", failed=" + failed +
        ", gone=" + gone + ", requests=" + requests + "]";
    }
  }

  /**
   * @param queued            paths held, files and directories
   * @param directoriesQueued of {@code queued}: renamed directories whose files are being listed
   * @param directoriesListed renamed directories whose files have all been listed
   * @param peak              the most paths queued at once (the memory held), bounded by
   *                          strata.tiermover.max.queued
   */
  public static final class Queue {
    private final long queued;
    private final long directoriesQueued;
    private final long directoriesListed;
    private final long peak;

    public Queue(long queued, long directoriesQueued, long directoriesListed, long peak) {
      this.queued = queued;
      this.directoriesQueued = directoriesQueued;
      this.directoriesListed = directoriesListed;
      this.peak = peak;
    }

    public long queued() {
      return queued;
    }

    public long directoriesQueued() {
      return directoriesQueued;
    }

    public long directoriesListed() {
      return directoriesListed;
    }

    public long peak() {
      return peak;
    }

    @Override
    public boolean equals(Object other) {
      if (this == other) {
        return true;
      }
      if (!(other instanceof Queue)) {
        return false;
      }
      Queue o = (Queue) other;
      return queued == o.queued
        && directoriesQueued == o.directoriesQueued
        && directoriesListed == o.directoriesListed
        && peak == o.peak;
    }

    @Override
    public int hashCode() {
      return Objects.hash(queued, directoriesQueued, directoriesListed, peak);
    }

    @Override
    public String toString() {
      return "Queue[queued=" + queued + ", directoriesQueued=" + directoriesQueued +
        ", directoriesListed=" + directoriesListed + ", peak=" + peak + "]";
    }
  }

  /**
   * @param move  rename to replicas seen on the policy's storage types, for the files that moved
   * @param event rename to the mover taking it in
   */
  public static final class Lags {
    private final LagSamples.Snapshot move;
    private final LagSamples.Snapshot event;

    public Lags(LagSamples.Snapshot move, LagSamples.Snapshot event) {
      this.move = move;
      this.event = event;
    }

    public LagSamples.Snapshot move() {
      return move;
    }

    public LagSamples.Snapshot event() {
      return event;
    }

    @Override
    public boolean equals(Object other) {
      if (this == other) {
        return true;
      }
      if (!(other instanceof Lags)) {
        return false;
      }
      Lags o = (Lags) other;
      return Objects.equals(move, o.move)
        && Objects.equals(event, o.event);
    }

    @Override
    public int hashCode() {
      return Objects.hash(move, event);
    }

    @Override
    public String toString() {
      return "Lags[move=" + move + ", event=" + event + "]";
    }
  }

  /**
   * Gaps in the NameNode's edits (purged before they were read): renames there are lost.
   *
   * @param count       the gaps
   * @param missedTxids the transactions in them
   * @param lastFirst   the last gap's first transaction, -1 without a gap
   * @param lastLast    the last gap's last transaction, -1 without a gap
   */
  public static final class Gaps {
    private final long count;
    private final long missedTxids;
    private final long lastFirst;
    private final long lastLast;

    public Gaps(long count, long missedTxids, long lastFirst, long lastLast) {
      this.count = count;
      this.missedTxids = missedTxids;
      this.lastFirst = lastFirst;
      this.lastLast = lastLast;
    }

    public long count() {
      return count;
    }

    public long missedTxids() {
      return missedTxids;
    }

    public long lastFirst() {
      return lastFirst;
    }

    public long lastLast() {
      return lastLast;
    }

    @Override
    public boolean equals(Object other) {
      if (this == other) {
        return true;
      }
      if (!(other instanceof Gaps)) {
        return false;
      }
      Gaps o = (Gaps) other;
      return count == o.count
        && missedTxids == o.missedTxids
        && lastFirst == o.lastFirst
        && lastLast == o.lastLast;
    }

    @Override
    public int hashCode() {
      return Objects.hash(count, missedTxids, lastFirst, lastLast);
    }

    @Override
    public String toString() {
      return "Gaps[count=" + count + ", missedTxids=" + missedTxids + ", lastFirst=" + lastFirst +
        ", lastLast=" + lastLast + "]";
    }
  }

  /**
   * @param count        state file saves
   * @param bytesWritten the bytes they wrote
   */
  public static final class Saves {
    private final long count;
    private final long bytesWritten;

    public Saves(long count, long bytesWritten) {
      this.count = count;
      this.bytesWritten = bytesWritten;
    }

    public long count() {
      return count;
    }

    public long bytesWritten() {
      return bytesWritten;
    }

    @Override
    public boolean equals(Object other) {
      if (this == other) {
        return true;
      }
      if (!(other instanceof Saves)) {
        return false;
      }
      Saves o = (Saves) other;
      return count == o.count
        && bytesWritten == o.bytesWritten;
    }

    @Override
    public int hashCode() {
      return Objects.hash(count, bytesWritten);
    }

    @Override
    public String toString() {
      return "Saves[count=" + count + ", bytesWritten=" + bytesWritten + "]";
    }
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
    ObjectNode a = n.putObject("aging");
    a.put("region_servers", aging.sources());
    a.put("region_servers_stopped", aging.stale());
    a.put("replaced_files", aging.replacedFiles());
    a.put("replaced_bytes", aging.replacedBytes());
    a.put("pending_files", aging.pendingFiles());
    a.put("pending_bytes", aging.pendingBytes());
    a.put("failures", aging.failures());
    if (aging.error() == null) {
      a.putNull("error");
    } else {
      a.put("error", aging.error());
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
    if (aging.sources() > 0 || aging.error() != null) {
      line += String.format(Locale.ROOT, "; aging: %d files (%d bytes) re-placed by age, %d "
        + "(%d bytes) pending, %d failed calls, from %d RegionServers (%d stopped reporting)",
        aging.replacedFiles(), aging.replacedBytes(), aging.pendingFiles(), aging.pendingBytes(),
        aging.failures(), aging.sources(), aging.stale());
      if (aging.error() != null) {
        line += " (reports unreadable now: " + aging.error() + ")";
      }
    }
    if (gaps.count() > 0) {
      line += String.format(Locale.ROOT, "; LOST %d transactions in %d gaps (last: "
        + "transactions %d to %d, purged by the NameNode before they were read): renames then "
        + "were not followed, run 'strata mover -p DIR' on the directories renamed into",
        gaps.missedTxids(), gaps.count(), gaps.lastFirst(), gaps.lastLast());
    }
    return line;
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof TierMoverStatus)) {
      return false;
    }
    TierMoverStatus o = (TierMoverStatus) other;
    return Objects.equals(position, o.position)
      && Objects.equals(files, o.files)
      && Objects.equals(queue, o.queue)
      && Objects.equals(lags, o.lags)
      && Objects.equals(gaps, o.gaps)
      && Objects.equals(saves, o.saves)
      && Objects.equals(satisfier, o.satisfier)
      && Objects.equals(aging, o.aging);
  }

  @Override
  public int hashCode() {
    return Objects.hash(position, files, queue, lags, gaps, saves, satisfier, aging);
  }
}
