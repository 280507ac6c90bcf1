package io.strata.bench.ycsb;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.strata.bench.JvmCommand;
import io.strata.bench.ycsb.YcsbRunner.Phase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.Test;

/**
 * The runner's command line, and a real YCSB process started by it with YCSB's own BasicDB (no
 * store behind it), its report parsed.
 */
public class YcsbRunnerTest {

  @Test
  public void commandLine() {
    Path dir = Path.of("/tmp/ycsb-out");
    List<String> cmd = new YcsbRunner(Path.of("/w/workloada")).property("recordcount", "5")
      .threads(3).target(100).jvmOption("-Xmx256m").command(Phase.LOAD, dir);
    assertTrue(cmd.get(0), cmd.get(0).endsWith("java"));
    // surefire starts this JVM with the project's --add-opens flags: the YCSB JVM gets them too
    assertTrue(cmd.toString(), cmd.contains("--add-opens=java.base/java.lang=ALL-UNNAMED"));
    assertTrue(cmd.contains("-Xmx256m"));
    int cp = cmd.indexOf("-cp");
    assertEquals(JvmCommand.absoluteClassPath(System.getProperty("java.class.path")),
      cmd.get(cp + 1));
    assertEquals(YcsbRunner.CLIENT_CLASS, cmd.get(cp + 2));
    assertEquals(List.of("-db", HBaseClient26.class.getName(), "-P", "/w/workloada"),
      cmd.subList(cp + 3, cp + 7));
    assertEquals(List.of("-threads", "3", "-target", "100", "-s", "-load"),
      cmd.subList(cmd.size() - 6, cmd.size()));
    for (String p : new String[] { "recordcount=5", "measurementtype=hdrhistogram",
      "hdrhistogram.percentiles=50,99,99.9,99.99", "columnfamily=family",
      "exportfile=/tmp/ycsb-out/load.txt" }) {
      assertEquals(p, "-p", cmd.get(cmd.indexOf(p) - 1));
    }
    assertTrue(cmd.contains("-Dstrata.log.file=/tmp/ycsb-out/load.log"));
    List<String> run = new YcsbRunner(Path.of("w")).command(Phase.TRANSACTIONS, dir);
    assertEquals(List.of("-threads", "1", "-s", "-t"), run.subList(run.size() - 4, run.size()));
  }

  @Test
  public void runsYcsbInItsOwnJvm() throws Exception {
    Path dir = Files.createTempDirectory("ycsb-runner");
    Path workload = YcsbWorkloads.write(YcsbWorkloads.A, dir);
    YcsbRunner runner = new YcsbRunner(workload).db("site.ycsb.BasicDB")
      .property("basicdb.verbose", "false").property("recordcount", "100")
      .property("operationcount", "300").threads(2);

    YcsbRun load = runner.execute(Phase.LOAD, dir.resolve("load"));
    assertEquals(0, load.exitCode());
    assertEquals(100, load.report().operation("INSERT").count());
    assertEquals(100, load.report().operation("INSERT").returned("OK"));

    YcsbRun run = runner.execute(Phase.TRANSACTIONS, dir.resolve("run"));
    YcsbReport r = run.report();
    assertEquals(300, r.operation("READ").count() + r.operation("UPDATE").count());
    assertEquals(300, r.operation("READ").returned("OK") + r.operation("UPDATE").returned("OK"));
    assertEquals(0, r.failedOperations());
    assertEquals(List.of(50.0, 99.0, 99.9, 99.99),
      List.copyOf(r.operation("READ").percentilesUs().keySet()));
    assertTrue(r.throughputOpsPerSec() > 0);
    // two client threads, two cleanups
    assertEquals(2, r.operation("CLEANUP").count());
    assertTrue(Files.readString(run.stderr()).contains("YCSB Client 0.17.0"));
  }

  @Test
  public void bindingThatFailsToInitialiseFailsTheRun() throws Exception {
    Path dir = Files.createTempDirectory("ycsb-runner");
    YcsbRunner runner = new YcsbRunner(YcsbWorkloads.write(YcsbWorkloads.C, dir))
      .property(HBaseClient26.COLUMN_FAMILY, "");
    try {
      runner.execute(Phase.TRANSACTIONS, dir);
      fail("YCSB ran without a column family");
    } catch (IOException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("ran no operation"));
      assertTrue(e.getMessage(), e.getMessage().contains("No column family"));
    }
  }
}
