package io.strata.bench.rpc;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.strata.bench.common.CliRun;
import org.junit.Test;

/**
 * {@code strata bench rpc}'s command line: the usage picocli generates, and bad input refused with
 * the option named and exit code 2 before any cluster starts.
 */
public class RpcBenchCliTest {
  @Test
  public void helpListsEveryOption() throws Exception {
    CliRun r = CliRun.of(RpcBench::run, "--help");
    assertEquals(0, r.code());
    for (String o : new String[] { "Usage: strata bench rpc", "--scale=quick|full", "--sizes",
      "--threads", "--cell-ms", "--warmup-ms", "--stage-calls", "--monitor-ms", "--out", "--json",
      "--report-from", "--loopback-delivery", "--handler-poll-us", "--client-poll-us",
      "--hbase=KEY=VALUE", "--work-dir", "--help", "strata.rpc.handler.poll.us" }) {
      assertTrue(o + " in\n" + r.out(), r.out().contains(o));
    }
    assertTrue(r.out(), !r.out().contains("${"));
  }

  @Test
  public void badInputNamesTheOptionAndExitsWith2() throws Exception {
    String[][] cases = { { "--no-such-option" }, { "--threads", "x" }, { "--sizes", "0" },
      { "--scale", "huge" }, { "--cell-ms", "5" }, { "--loopback-delivery", "mail" },
      { "--monitor-ms", "50" }, { "--hbase", "novalue" } };
    String[] named = { "--no-such-option", "--threads", "--sizes", "--scale", "--cell-ms",
      "--loopback-delivery", "--monitor-ms", "--hbase" };
    for (int i = 0; i < cases.length; i++) {
      CliRun r = CliRun.of(RpcBench::run, cases[i]);
      assertEquals(String.join(" ", cases[i]) + ": " + r.err(), 2, r.code());
      assertTrue(named[i] + " in " + r.err(), r.err().startsWith("strata bench rpc: ")
        && r.err().contains(named[i]));
    }
  }

  @Test
  public void settingsTakeTheScaleDefaultsAndAlwaysMeasure1KiB() throws Exception {
    RpcBench.Cli cli = new RpcBench.Cli();
    new picocli.CommandLine(cli).setCaseInsensitiveEnumValuesAllowed(true)
      .parseArgs("--scale", "full", "--sizes", "64,64,1", "--hbase", "a.b=1");
    RpcBench.Settings s = cli.settings();
    assertEquals(3000, s.cellMs());
    assertEquals(1000, s.warmupMs());
    assertEquals(5000, s.stageCalls());
    assertEquals(java.util.List.of(1, 64, 1024), s.sizes());
    assertEquals(java.util.Map.of("a.b", "1"), s.hbase());
    assertTrue(s.out().getPath(), s.out().getPath().endsWith("bench/rpc/report-full"));
  }
}
