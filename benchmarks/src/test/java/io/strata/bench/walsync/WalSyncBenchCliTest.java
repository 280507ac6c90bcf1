package io.strata.bench.walsync;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.strata.bench.common.CliRun;
import org.junit.Test;

/**
 * {@code strata bench wal-sync}'s command line: the usage picocli generates, and bad input refused
 * with the option named and exit code 2 before the cluster starts.
 */
public class WalSyncBenchCliTest {
  @Test
  public void helpListsEveryOption() throws Exception {
    CliRun r = CliRun.of(WalSyncBench::run, "--help");
    assertEquals(0, r.code());
    for (String o : new String[] { "Usage: strata bench wal-sync", "--entries=N",
      "--entry-bytes=N", "--rounds=N", "--policies=P,P", "--json=FILE", "--out=DIR",
      "--work-dir=DIR", "--ram-dir=DIR", "--help", "(default 3000)" }) {
      assertTrue(o + " in\n" + r.out(), r.out().contains(o));
    }
  }

  @Test
  public void badInputNamesTheOptionAndExitsWith2() throws Exception {
    String[][] cases = { { "--no-such-option" }, { "--entries", "many" }, { "--entries", "9" },
      { "--rounds", "0" }, { "--policies", "HOT,LAZY_PERSIST" } };
    String[] named = { "--no-such-option", "--entries", "--entries", "--rounds",
      "LAZY_PERSIST" };
    for (int i = 0; i < cases.length; i++) {
      CliRun r = CliRun.of(WalSyncBench::run, cases[i]);
      assertEquals(String.join(" ", cases[i]) + ": " + r.err(), 2, r.code());
      assertTrue(named[i] + " in " + r.err(), r.err().startsWith("strata bench wal-sync: ")
        && r.err().contains(named[i]));
    }
  }
}
