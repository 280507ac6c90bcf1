package io.strata.hdfs.sps;

import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

/** Which failures to take /system/mover.id a starting satisfier waits out. */
public class MoverIdHeldTest {
  @Test
  public void aHolderOrTheRecoveryOfItsLeaseIsWaitedOut() {
    assertTrue(InProcessSatisfier.heldByAnother("Another InProcessSatisfier is running."));
    assertTrue(InProcessSatisfier.heldByAnother("org.apache.hadoop.hdfs.protocol."
      + "AlreadyBeingCreatedException: failed to create file /system/mover.id"));
    assertTrue(InProcessSatisfier.heldByAnother("Failed to APPEND_FILE /system/mover.id for "
      + "DFSClient_NONMAPREDUCE_1_1 on 127.0.0.1 because lease recovery is in progress. Try "
      + "again later."));
    // strata chaos, kill-satisfier: the NameNode's wording while it recovers the lease itself.
    assertTrue(InProcessSatisfier.heldByAnother("Failed to APPEND_FILE /system/mover.id for "
      + "DFSClient_NONMAPREDUCE_-976512174_1 on 127.0.0.1 because another recovery is in "
      + "progress by DFSClient_NONMAPREDUCE_116373925_1 on 127.0.0.1"));
  }

  @Test
  public void otherFailuresAreNot() {
    assertFalse(InProcessSatisfier.heldByAnother("Permission denied: user=x, access=WRITE"));
    assertFalse(InProcessSatisfier.heldByAnother("Connection refused"));
  }
}
