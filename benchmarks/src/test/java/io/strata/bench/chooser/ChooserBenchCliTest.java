package io.strata.bench.chooser;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.strata.bench.common.CliRun;
import org.junit.Test;

/**
 * {@code strata bench chooser}'s command line: the usage picocli generates, and bad input refused
 * with the option named and exit code 2 before any cluster starts.
 */
public class ChooserBenchCliTest {
  @Test
  public void helpListsEveryOption() throws Exception {
    CliRun r = CliRun.of(ChooserBench::run, "--help");
    assertEquals(0, r.code());
    for (String o : new String[] { "Usage: strata bench chooser", "--files=N", "--file-mb=N",
      "--block-mb=N", "--writers=N", "--delay-ms=MS", "--slow-mib-per-s=N", "--json=FILE",
      "--monitor-ms=MS", "--work-dir=DIR", "--help", "(default 16)" }) {
      assertTrue(o + " in\n" + r.out(), r.out().contains(o));
    }
  }

  @Test
  public void badInputNamesTheOptionAndExitsWith2() throws Exception {
    String[][] cases = { { "--no-such-option" }, { "--files", "none" }, { "--delay-ms", "-5" },
      { "--writers", "0" }, { "--monitor-ms", "-1" }, { "stray" } };
    String[] named = { "--no-such-option", "--files", "--delay-ms", "--writers", "--monitor-ms",
      "stray" };
    for (int i = 0; i < cases.length; i++) {
      CliRun r = CliRun.of(ChooserBench::run, cases[i]);
      assertEquals(String.join(" ", cases[i]) + ": " + r.err(), 2, r.code());
      assertTrue(named[i] + " in " + r.err(), r.err().startsWith("strata bench chooser: ")
        && r.err().contains(named[i]));
    }
  }
}
