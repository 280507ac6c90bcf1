package io.strata.hdfs.sps;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Objects;

/**
 * What is known about the Storage Policy Satisfier serving a namespace. Immutable.
 *
 * @param running whether a satisfier is there to take requests (for one in-process: running or
 *   about to be restarted)
 * @param where where it runs (this JVM, or the host named in the NameNode's mover id file), or
 *   why none is seen
 * @param restarts restarts after it stopped unexpectedly, or {@link #UNKNOWN} for a satisfier in
 *   another process
 * @param lastFailure why it last stopped unexpectedly (exception and message), or null
 * @param stalls times it held files without progress for {@code strata.sps.stall.ms} and was
 *   restarted for it, or {@link #UNKNOWN} for a satisfier in another process
 * @param lastStall why the files it held were not on their tier at its last stall, or null
 */
public final class SatisfierStatus {
  private final boolean running;
  private final String where;
  private final long restarts;
  private final String lastFailure;
  private final long stalls;
  private final String lastStall;

  public SatisfierStatus(boolean running, String where, long restarts, String lastFailure,
    long stalls, String lastStall) {
    this.running = running;
    this.where = where;
    this.restarts = restarts;
    this.lastFailure = lastFailure;
    this.stalls = stalls;
    this.lastStall = lastStall;
  }

  public boolean running() {
    return running;
  }

  public String where() {
    return where;
  }

  public long restarts() {
    return restarts;
  }

  public String lastFailure() {
    return lastFailure;
  }

  public long stalls() {
    return stalls;
  }

  public String lastStall() {
    return lastStall;
  }

  /** The restart or stall count of a satisfier in another process: not known from here. */
  public static final long UNKNOWN = -1;

  /** The status of a satisfier in another process, whose restarts and stalls are not known. */
  public static SatisfierStatus seenFromOutside(boolean running, String where) {
    return new SatisfierStatus(running, where, UNKNOWN, null, UNKNOWN, null);
  }

  /** The status as the {@code satisfier} object of Strata's JSON reports. */
  public ObjectNode toJson() {
    ObjectNode n = JsonNodeFactory.instance.objectNode();
    n.put("running", running);
    n.put("where", where);
    n.put("restarts", restarts);
    if (lastFailure == null) {
      n.putNull("last_failure");
    } else {
      n.put("last_failure", lastFailure);
    }
    n.put("stalls", stalls);
    if (lastStall == null) {
      n.putNull("last_stall");
    } else {
      n.put("last_stall", lastStall);
    }
    return n;
  }

  @Override
  public String toString() {
    StringBuilder b = new StringBuilder(running ? "running (" : "not running (").append(where)
      .append(')');
    if (restarts > 0) {
      b.append(", restarted ").append(restarts).append(restarts == 1 ? " time" : " times");
    }
    if (lastFailure != null) {
      b.append(", last stopped by ").append(lastFailure);
    }
    if (stalls > 0) {
      b.append(", stalled ").append(stalls).append(stalls == 1 ? " time" : " times")
        .append(" (last: ").append(lastStall).append(')');
    }
    return b.toString();
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof SatisfierStatus)) {
      return false;
    }
    SatisfierStatus o = (SatisfierStatus) other;
    return running == o.running
      && Objects.equals(where, o.where)
      && restarts == o.restarts
      && Objects.equals(lastFailure, o.lastFailure)
      && stalls == o.stalls
      && Objects.equals(lastStall, o.lastStall);
  }

  @Override
  public int hashCode() {
    return Objects.hash(running, where, restarts, lastFailure, stalls, lastStall);
  }
}
