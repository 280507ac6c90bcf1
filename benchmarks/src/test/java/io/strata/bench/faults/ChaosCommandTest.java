package io.strata.bench.faults;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.Test;

/**
 * {@code strata chaos}'s command line: bad input is refused with exit code 2 and a reason before
 * any cluster is looked at (the cluster directories given here do not exist), and the help lists
 * every fault.
 */
public class ChaosCommandTest {
  private static final String[] CLUSTER = { "--dist-home", "/nonexistent/dist", "--dir",
    "/nonexistent/run" };

  private static int run(String... more) throws Exception {
    String[] args = new String[CLUSTER.length + more.length];
    System.arraycopy(CLUSTER, 0, args, 0, CLUSTER.length);
    System.arraycopy(more, 0, args, CLUSTER.length, more.length);
    return FaultCampaign.run(args, new PrintStream(new ByteArrayOutputStream(), true,
      StandardCharsets.UTF_8));
  }

  @Test
  public void badInputIsRefusedBeforeTheClusterIsLookedAt() throws Exception {
    assertEquals(2, run("--faults", "kill-regionserver,kill-everything"));
    assertEquals(2, run("--quick", "--faults", "kill-datanode"));
    assertEquals(2, run("--seed", "7"));
    assertEquals(2, run("--random", "-1"));
    assertEquals(2, run("--threads", "0"));
    assertEquals(2, run("--threads", "four"));
    assertEquals(2, run("--max-writes-per-s", "-1"));
    assertEquals(2, run("--min-free-gb", "-1"));
    assertEquals(2, FaultCampaign.run(new String[] { "--quick" }, System.out));
  }

  @Test
  public void theHelpListsEveryFault() throws Exception {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    assertEquals(0, FaultCampaign.run(new String[] { "--help" }, new PrintStream(buf, true,
      StandardCharsets.UTF_8)));
    String help = buf.toString(StandardCharsets.UTF_8);
    for (String f : FaultCampaign.ALL) {
      assertTrue(f + " missing from:\n" + help, help.contains(f));
    }
    assertTrue(help, help.contains("--max-writes-per-s") && help.contains("(default 2000)")
      && help.contains("0 = unbounded"));
    assertTrue(help, help.contains("--min-free-gb") && help.contains("(default 10)"));
  }
}
