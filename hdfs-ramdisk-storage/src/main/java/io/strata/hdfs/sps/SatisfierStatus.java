package io.strata.hdfs.sps;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * What is known about the Storage Policy Satisfier serving a namespace: whether one runs, where,
 * and, for the in-process one, how often it was restarted and why it last stopped. Immutable.
 */
public final class SatisfierStatus {
  /** The restart count of a satisfier in another process: not known from here. */
  public static final long UNKNOWN = -1;

  private final boolean running;
  private final String where;
  private final long restarts;
  private final String lastFailure;

  public SatisfierStatus(boolean running, String where, long restarts, String lastFailure) {
    this.running = running;
    this.where = where;
    this.restarts = restarts;
    this.lastFailure = lastFailure;
  }

  /** Whether a satisfier is there to take requests (for one in-process: running or restarting). */
  public boolean running() {
    return running;
  }

  /** Where it runs (this JVM, or the host named in the NameNode's mover id file), or why none. */
  public String where() {
    return where;
  }

  /** Restarts after it stopped unexpectedly, or {@link #UNKNOWN}. */
  public long restarts() {
    return restarts;
  }

  /** Why it last stopped unexpectedly (exception and message), or null. */
  public String lastFailure() {
    return lastFailure;
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
