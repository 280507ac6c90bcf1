package io.strata.bench.compare;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import io.strata.bench.common.CliRun;
import io.strata.bench.common.RunLabels;
import java.io.File;
import java.nio.file.Files;
import java.util.List;
import java.util.Properties;
import org.junit.Test;
import picocli.CommandLine;

/**
 * {@code strata bench compare}'s command line and what it turns into: the clusters' arguments
 * per configuration, the YCSB properties per phase; bad input refused before any cluster starts.
 */
public class CompareBenchCliTest {
  private static CompareBench.Settings settings(String... args) {
    CompareBench.Cli cli = new CompareBench.Cli();
    new CommandLine(cli).parseArgs(args);
    return cli.settings();
  }

  @Test
  public void helpListsEveryOption() throws Exception {
    CliRun r = CliRun.of(CompareBench::run, "--help");
    assertEquals(0, r.code());
    for (String o : new String[] { "Usage: strata bench compare", "--quick", "--reps=N",
      "--records=N", "--operations=N", "--threads=N", "--media=blkio|in-process",
      "--dist-home=DIR", "--source-dir=DIR", "--json=FILE", "--out=DIR", "--monitor-ms=MS" }) {
      assertTrue(o + " in\n" + r.out(), r.out().contains(o));
    }
  }

  @Test
  public void badInputNamesTheOptionAndExitsWith2() throws Exception {
    String[][] cases = { { "--dist-home", "d", "--media", "ssd" },
      { "--dist-home", "d", "--reps", "0" }, { "--dist-home", "d", "--records", "many" },
      { "--reps", "3" } };
    String[] named = { "--media", "--reps", "--records", "--dist-home" };
    for (int i = 0; i < cases.length; i++) {
      CliRun r = CliRun.of(CompareBench::run, cases[i]);
      assertEquals(String.join(" ", cases[i]) + ": " + r.err(), 2, r.code());
      assertTrue(named[i] + " in " + r.err(), r.err().startsWith("strata bench compare: ")
        && r.err().contains(named[i]));
    }
  }

  @Test
  public void quickIsSmallerWithTheSameShape() {
    CompareBench.Settings quick = settings("--dist-home", "d", "--quick");
    CompareBench.Settings full = settings("--dist-home", "d");
    assertEquals(3, quick.reps());
    assertEquals(3, full.reps());
    assertTrue(quick.records() < full.records());
    assertTrue(quick.operations() < full.operations());
    assertEquals(quick.records(), quick.operations("load"));
    assertEquals(quick.operations() / 5, quick.operations("e"));
    assertTrue(quick.phaseLimit().compareTo(full.phaseLimit()) < 0);
  }

  /**
   * The commit label is decided by RunLabels from a source tree, not taken from the command
   * line: the tree defaults to the one ./strata names (none outside it: the commit is unknown),
   * and the former --commit is refused.
   */
  @Test
  public void theCommitComesFromTheSourceTree() throws Exception {
    String before = System.getProperty(RunLabels.SOURCE_DIR_PROPERTY);
    try {
      System.clearProperty(RunLabels.SOURCE_DIR_PROPERTY);
      assertNull(settings("--dist-home", "d").sourceDir());
      System.setProperty(RunLabels.SOURCE_DIR_PROPERTY, "launcher-tree");
      assertEquals(new File("launcher-tree").getAbsoluteFile(),
        settings("--dist-home", "d").sourceDir());
    } finally {
      if (before == null) {
        System.clearProperty(RunLabels.SOURCE_DIR_PROPERTY);
      } else {
        System.setProperty(RunLabels.SOURCE_DIR_PROPERTY, before);
      }
    }
    assertEquals(new File("src-tree").getAbsoluteFile(),
      settings("--dist-home", "d", "--source-dir", "src-tree").sourceDir());
    CliRun r = CliRun.of(CompareBench::run, "--dist-home", "d", "--commit", "abc");
    assertEquals(r.err(), 2, r.code());
    assertTrue(r.err(), r.err().contains("--commit"));
  }

  @Test
  public void eachConfigurationGetsItsOwnClusterArguments() {
    CompareBench.Settings s = settings("--dist-home", "d", "--quick");
    List<String> stock = s.clusterArgs("stock", true);
    assertTrue(stock.toString(), stock.containsAll(List.of("--config", "stock")));
    assertFalse(stock.toString(), stock.contains("--no-probe"));
    assertFalse(stock.toString(), stock.contains("--wal-policy"));
    List<String> tuned = s.clusterArgs("tuned", false);
    int i = tuned.indexOf("--wal-policy");
    assertEquals(tuned.toString(), CompareBench.TUNED_WAL_POLICY, tuned.get(i + 1));
    assertTrue(tuned.toString(), tuned.contains("--no-probe"));
    List<String> strata = s.clusterArgs("strata", false);
    assertTrue(strata.toString(), strata.containsAll(List.of("--config", "strata", "--media",
      "blkio", "--transport", "none")));
    assertFalse(strata.toString(), strata.contains("--wal-policy"));
    // The in-process emulation has no devices to probe.
    assertFalse(settings("--dist-home", "d", "--media", "in-process").clusterArgs("stock", false)
      .contains("--no-probe"));
  }

  @Test
  public void phasePropertiesNameTheTableOfTheModeAndTheWorkloadFile() throws Exception {
    CompareBench.Settings s = settings("--dist-home", "d", "--quick");
    File dir = Files.createTempDirectory("compare").toFile();
    Properties load = CompareBench.properties("load", "hflush", s, dir);
    assertEquals("compare_hflush", load.getProperty("table"));
    assertEquals(Long.toString(s.records()), load.getProperty("operationcount"));
    Properties e = CompareBench.properties("e", "hsync", s, dir);
    assertEquals("compare_hsync", e.getProperty("table"));
    assertEquals("0.95", e.getProperty("scanproportion"));
    assertEquals(Long.toString(s.operations() / 5), e.getProperty("operationcount"));
    Properties f = CompareBench.properties("f", "hflush", s, dir);
    assertEquals("0.5", f.getProperty("readmodifywriteproportion"));
    assertEquals(CompareBench.CONNECTION, f.getProperty("connection"));
  }
}
