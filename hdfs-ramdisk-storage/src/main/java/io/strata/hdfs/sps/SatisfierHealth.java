package io.strata.hdfs.sps;

import java.io.IOException;

/**
 * Tells whoever waits on block moves whether a Storage Policy Satisfier is there to make them,
 * so that a missing or dead one is reported at once instead of as a time-out minutes later.
 * Implementations: {@link InProcessSatisfier} (knows its own thread) and {@link MoverIdHolder}
 * (any satisfier of a namespace, seen from a client). Implementations are thread-safe.
 */
public interface SatisfierHealth {
  /** The current status; a look-up at the NameNode for {@link MoverIdHolder}. */
  SatisfierStatus status() throws IOException;
}
