package io.strata.hbase.tiering;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.Abortable;
import org.junit.Test;

/**
 * The guard's background check of a WAL policy the NameNode could not judge at start: it keeps
 * checking while the NameNode does not answer, stops once the policy is accepted, and aborts the
 * RegionServer once the answer is a refusal.
 */
public class WalDurabilityGuardTest {

  private static final class Recorder implements Abortable {
    final List<String> aborts = new ArrayList<>();

    @Override
    public void abort(String why, Throwable e) {
      aborts.add(why);
    }

    @Override
    public boolean isAborted() {
      return !aborts.isEmpty();
    }
  }

  @Test
  public void keepsCheckingWhileUnansweredAndAbortsOnARefusal() {
    Recorder server = new Recorder();
    WalDurabilityGuard.Check unanswered = () -> {
      throw new WalDurability.Unanswered("no answer", new IOException("NameNode down"));
    };
    for (int attempt = 1; attempt <= 3; attempt++) {
      assertFalse(WalDurabilityGuard.recheckOnce(unanswered, server, "rs1", attempt));
    }
    assertTrue(server.aborts.isEmpty());
    WalDurabilityGuard.Check refused = () -> {
      throw new IOException("RegionServer rs1 refuses to start: hbase.wal.storage.policy = "
        + "ALL_NVDIMM ... strata.unsafe.wal.volatile.accept=true");
    };
    assertTrue(WalDurabilityGuard.recheckOnce(refused, server, "rs1", 4));
    assertEquals(1, server.aborts.size());
    assertTrue(server.aborts.get(0), server.aborts.get(0).contains(
      "strata.unsafe.wal.volatile.accept") && server.aborts.get(0).contains("after the "
        + "RegionServer had started"));
  }

  @Test
  public void stopsOnceThePolicyIsAccepted() {
    Recorder server = new Recorder();
    assertTrue(WalDurabilityGuard.recheckOnce(() -> { }, server, "rs1", 1));
    assertTrue(server.aborts.isEmpty());
  }
}
