package io.strata.hdfs.sps;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

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
public record SatisfierStatus(boolean running, String where, long restarts, String lastFailure,
  long stalls, String lastStall) {
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
}
