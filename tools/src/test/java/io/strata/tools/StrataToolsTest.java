package io.strata.tools;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import org.junit.Test;
import picocli.CommandLine;

/**
 * The tools' one entry point: every production tool is a command of it with generated help, and
 * bad input (an unknown option, a value that is not a number or is out of range, a missing
 * required option) ends in a message naming the command and the option, and exit code 2, before
 * any cluster is contacted.
 */
public class StrataToolsTest {
  /** Each command and options its help must list (the names the docs use). */
  private static final Map<String, List<String>> COMMANDS = Map.of(
    "placement", List.of("--hdfs", "--root", "--files", "--json"),
    "migrate", List.of("--table", "--family", "--zk", "--root", "--timeout", "--no-wait"),
    "mover", List.of("-p", "--path", "--hdfs", "--timeout", "--no-wait"),
    "tier-mover", List.of("--hdfs", "--state", "--paths", "--report-interval", "--duration",
      "--json"),
    "satisfier", List.of("--hdfs", "--report-interval"),
    "pcm", List.of("classify", "recommend", "apply", "watch", "revert"),
    "ramdisk", List.of("--size-mb", "--dir"),
    "undefined-policies", List.of("--hdfs", "--policy", "PATH"),
    "rollback-policies", List.of("--map", "--path", "--hdfs", "--dry-run", "--no-move",
      "--checkpoint", "--timeout"),
    "install-check", List.of("--conf-dir", "--out", "--data-dir"));

  private static final class Run {
    final int code;
    final String out;
    final String err;

    Run(int code, String out, String err) {
      this.code = code;
      this.out = out;
      this.err = err;
    }
  }

  private static Run run(String... args) {
    CommandLine cl = StrataTools.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    int code = cl.execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  @Test
  public void everyToolIsACommandWithGeneratedHelp() {
    CommandLine cl = StrataTools.commandLine();
    assertEquals(COMMANDS.keySet(), cl.getSubcommands().keySet());
    for (Map.Entry<String, List<String>> c : COMMANDS.entrySet()) {
      CommandLine sub = cl.getSubcommands().get(c.getKey());
      assertNotNull(c.getKey(), sub);
      String usage = sub.getUsageMessage();
      assertTrue(usage, usage.startsWith("Usage: strata " + c.getKey() + " "));
      for (String option : c.getValue()) {
        assertTrue(c.getKey() + " lists " + option + ": " + usage, usage.contains(option));
      }
      Run help = run(c.getKey(), "--help");
      assertEquals(help.err, 0, help.code);
      assertEquals(usage, help.out);
    }
    for (String pcm : List.of("classify", "recommend", "apply", "watch", "revert")) {
      Run help = run("pcm", pcm, "--help");
      assertEquals(help.err, 0, help.code);
      assertTrue(help.out, help.out.startsWith("Usage: strata pcm " + pcm + " "));
      assertTrue(help.out, help.out.contains("--table=T"));
    }
    Run version = run("pcm", "apply", "--version");
    assertEquals(0, version.code);
    assertTrue(version.out, version.out.startsWith("Strata") && version.out.contains(" HBase 2.")
      && version.out.contains(" Hadoop 3."));
    Run top = run("--help");
    assertEquals(0, top.code);
    for (String name : COMMANDS.keySet()) {
      assertTrue(top.out, top.out.contains("  " + name + " "));
    }
  }

  @Test
  public void anUnknownOptionIsNamedWithTheUsage() {
    Run r = run("placement", "--no-such-option");
    assertEquals(2, r.code);
    assertTrue(r.err, r.err.startsWith("strata placement: Unknown option: '--no-such-option'"));
    assertTrue(r.err, r.err.contains("usage: strata placement [-hV]"));
    assertTrue(r.err, r.err.contains("strata placement --help for the options"));
    r = run("frobnicate");
    assertEquals(2, r.code);
    assertTrue(r.err, r.err.startsWith("strata: Unmatched argument at index 0: 'frobnicate'"));
  }

  @Test
  public void aBadNumberIsNamed() {
    Run r = run("mover", "-p", "/data", "--timeout", "soon");
    assertEquals(2, r.code);
    assertTrue(r.err, r.err.startsWith("strata mover: Invalid value for option '--timeout': "
      + "'soon' is not a long"));
    r = run("migrate", "--table", "t", "--timeout", "-5");
    assertEquals(2, r.code);
    assertTrue(r.err, r.err.startsWith("strata migrate: --timeout must be at least 0, not -5"));
    r = run("ramdisk", "--size-mb", "0");
    assertEquals(2, r.code);
    assertTrue(r.err, r.err.startsWith("strata ramdisk: --size-mb must be at least 1, not 0"));
    r = run("tier-mover", "--report-interval", "0");
    assertEquals(2, r.code);
    assertTrue(r.err, r.err.startsWith("strata tier-mover: --report-interval must be at least 1"));
    r = run("pcm", "classify", "--table", "t", "--max-samples", "many");
    assertEquals(2, r.code);
    assertTrue(r.err, r.err.startsWith("strata pcm classify: Invalid value for option "
      + "'--max-samples': 'many' is not a long"));
  }

  @Test
  public void missingRequiredOptionsAndBadUrisAreNamed() {
    Run r = run("migrate");
    assertEquals(2, r.code);
    assertTrue(r.err, r.err.startsWith("strata migrate: Missing required option: '--table=T'"));
    r = run("mover");
    assertEquals(2, r.code);
    assertTrue(r.err, r.err.startsWith("strata mover: Missing required option: '--path=PATH'"));
    r = run("ramdisk");
    assertEquals(2, r.code);
    assertTrue(r.err, r.err.startsWith("strata ramdisk: Missing required option: '--size-mb=N'"));
    r = run("pcm", "apply");
    assertEquals(2, r.code);
    assertTrue(r.err, r.err.startsWith("strata pcm apply: Missing required option: '--table=T'"));
    r = run("pcm");
    assertEquals(2, r.code);
    assertTrue(r.err, r.err.startsWith("strata pcm: a subcommand first: classify, recommend, "
      + "apply, watch, revert"));
    r = run("placement", "--hdfs", "namenode:8020");
    assertEquals(2, r.code);
    assertTrue(r.err, r.err.startsWith("strata placement: --hdfs takes a NameNode URI such as "
      + "hdfs://HOST:PORT, not 'namenode:8020'"));
  }
}
