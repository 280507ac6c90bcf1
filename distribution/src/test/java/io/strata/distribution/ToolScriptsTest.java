package io.strata.distribution;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * The distribution's tool scripts run the tools' one entry point
 * ({@code io.strata.tools.StrataTools COMMAND}, through strata-env.sh's strata_tool): each one's
 * --help is that command's generated usage, and bad input ends in the entry point's error and exit
 * code 2. Run from bin/ as unpacked, with this test's class path (which has the tools module and
 * every production module) in place of lib/.
 */
public class ToolScriptsTest {
  private static final Path BIN = Paths.get("src/main/dist/bin").toAbsolutePath();
  private static final List<String> TOOLS = List.of("placement", "migrate", "mover", "pcm",
    "undefined-policies", "rollback-policies", "install-check");
  private static final List<String> DAEMONS = List.of("satisfier", "tier-mover");

  @ClassRule
  public static TemporaryFolder tmp = new TemporaryFolder();
  private static Path home;

  @BeforeClass
  public static void unpack() throws Exception {
    home = tmp.newFolder("home").toPath();
    Files.createDirectories(home.resolve("bin"));
    Files.createDirectories(home.resolve("conf"));
    try (Stream<Path> scripts = Files.list(BIN)) {
      for (Path f : (Iterable<Path>) scripts::iterator) {
        Path to = home.resolve("bin").resolve(f.getFileName());
        Files.copy(f, to);
        assertTrue(to.toFile().setExecutable(true));
      }
    }
    Files.writeString(home.resolve("conf/jvm.options"), "");
  }

  @Test
  public void everyToolScriptRunsTheEntryPointsCommand() throws Exception {
    for (String tool : TOOLS) {
      Result r = run(tool, "--help");
      assertEquals(tool + ": " + r.out, 0, r.code);
      assertTrue(tool + ": " + r.out, r.out.contains("Usage: strata " + tool + " [-hV]"));
    }
    for (String daemon : DAEMONS) {
      Result r = run(daemon, "run", "--help");
      assertEquals(daemon + ": " + r.out, 0, r.code);
      assertTrue(daemon + ": " + r.out, r.out.contains("Usage: strata " + daemon + " [-hV]"));
    }
  }

  @Test
  public void badInputIsNamedWithExitCode2() throws Exception {
    Result r = run("mover", "-p", "/data", "--timeout", "soon");
    assertEquals(r.out, 2, r.code);
    assertTrue(r.out, r.out.contains("strata mover: Invalid value for option '--timeout': 'soon'"));
    r = run("placement", "--no-such-option");
    assertEquals(r.out, 2, r.code);
    assertTrue(r.out, r.out.contains("strata placement: Unknown option: '--no-such-option'"));
    r = run("satisfier", "run", "--report-interval", "0");
    assertEquals(r.out, 2, r.code);
    assertTrue(r.out, r.out.contains("strata satisfier: --report-interval must be at least 1"));
  }

  private static Result run(String script, String... args) throws Exception {
    File out = File.createTempFile("tool-scripts", ".out");
    try {
      List<String> command = new java.util.ArrayList<>();
      command.add(home.resolve("bin").resolve(script).toString());
      command.addAll(List.of(args));
      ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(out).redirectInput(new File("/dev/null"));
      String java = ProcessHandle.current().info().command().orElse("java");
      pb.environment().put("JAVA_HOME", Paths.get(java).getParent().getParent().toString());
      pb.environment().put("STRATA_UPSTREAM_CP", System.getProperty("java.class.path"));
      pb.environment().put("STRATA_HEAP", "256m");
      pb.environment().put("STRATA_LOG_DIR", tmp.getRoot().getPath());
      pb.environment().put("STRATA_PID_DIR", tmp.getRoot().getPath());
      pb.environment().remove("STRATA_CONF_DIR");
      pb.environment().remove("HBASE_CONF_DIR");
      pb.environment().remove("HADOOP_CONF_DIR");
      Process p = pb.start();
      assertTrue(script + " did not finish in 120 s", p.waitFor(120, TimeUnit.SECONDS));
      return new Result(p.exitValue(), Files.readString(out.toPath(), StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(out.toPath());
    }
  }

  private static final class Result {
    final int code;
    final String out;

    Result(int code, String out) {
      this.code = code;
      this.out = out;
    }
  }
}
