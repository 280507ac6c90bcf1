package io.strata.bench.pcm;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.strata.bench.common.CliRun;
import org.junit.Test;

/**
 * {@code strata bench pcm}'s command line: the usage picocli generates, and bad input refused
 * with the option named and exit code 2 before any cluster starts.
 */
public class PcmBenchCliTest {
  @Test
  public void helpListsEveryOption() throws Exception {
    CliRun r = CliRun.of(PcmBench::run, "--help");
    assertEquals(0, r.code());
    for (String o : new String[] { "Usage: strata bench pcm", "--scale=quick|full",
      "--runs=N", "--parts=P,P", "--json=FILE", "--out=DIR", "--monitor-ms=MS", "--work-dir=DIR",
      "--help" }) {
      assertTrue(o + " in\n" + r.out(), r.out().contains(o));
    }
  }

  @Test
  public void badInputNamesTheOptionAndExitsWith2() throws Exception {
    String[][] cases = { { "--no-such-option" }, { "--scale", "huge" },
      { "--parts", "table3,nope" }, { "--monitor-ms", "-1" }, { "--runs", "0" },
      { "--runs", "three" } };
    String[] named = { "--no-such-option", "--scale", "--parts", "--monitor-ms", "--runs",
      "--runs" };
    for (int i = 0; i < cases.length; i++) {
      CliRun r = CliRun.of(PcmBench::run, cases[i]);
      assertEquals(String.join(" ", cases[i]) + ": " + r.err(), 2, r.code());
      assertTrue(named[i] + " in " + r.err(), r.err().startsWith("strata bench pcm: ")
        && r.err().contains(named[i]));
    }
  }
}
