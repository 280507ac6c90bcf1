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
 */
public record SatisfierStatus(boolean running, String where, long restarts, String lastFailure) {
  /** The restart count of a satisfier in another process: not known from here. */
  public static final long UNKNOWN = -1;

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
    return b.toString();
  }
}
