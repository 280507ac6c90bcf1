package io.strata.bench.media;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.strata.bench.common.CliRun;
import org.junit.Test;

/**
 * {@code strata bench media}'s command line: the usage picocli generates (every option and the
 * cases by name), and bad input refused with the option named and exit code 2 before any
 * cluster starts.
 */
public class MediaBenchCliTest {
  @Test
  public void helpListsEveryOptionAndCase() throws Exception {
    assertEquals(MediaCases.names(), MediaBench.CASE_NAMES);
    CliRun r = CliRun.of(MediaBench::run, "--help");
    assertEquals(0, r.code());
    for (String o : new String[] { "Usage: strata bench media", "--cases=A,B",
      "--ssd-volumes=N,N", "--controller-cap=CAPS", "--warmup", "--scale=quick|full",
      "--out=DIR", "--work-dir=DIR", "--ram-dir=DIR", "--help", "1T_RAM_SSD_All_HDD" }) {
      assertTrue(o + " in\n" + r.out(), r.out().contains(o));
    }
  }

  @Test
  public void badInputNamesTheOptionAndExitsWith2() throws Exception {
    String[][] cases = { { "--no-such-option" }, { "--scale", "huge" },
      { "--cases", "1T_RAM,50G_SSD" }, { "--controller-cap", "study" } };
    String[] named = { "--no-such-option", "--scale", "1T_RAM", "--controller-cap" };
    for (int i = 0; i < cases.length; i++) {
      CliRun r = CliRun.of(MediaBench::run, cases[i]);
      assertEquals(String.join(" ", cases[i]) + ": " + r.err(), 2, r.code());
      assertTrue(named[i] + " in " + r.err(), r.err().startsWith("strata bench media: ")
        && r.err().contains(named[i]));
    }
  }
}
