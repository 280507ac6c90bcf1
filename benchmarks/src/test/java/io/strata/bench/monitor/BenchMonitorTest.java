package io.strata.bench.monitor;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.commons.cli.DefaultParser;
import org.apache.commons.cli.Options;
import org.apache.hadoop.hbase.HConstants;
import org.junit.Test;

public class BenchMonitorTest {

  private static long parse(String... args) throws Exception {
    Options o = BenchMonitor.addOption(new Options(), false);
    return BenchMonitor.intervalMs(new DefaultParser().parse(o, args));
  }

  @Test
  public void optionDefaultsToASecondTakesZeroForOffAndRefusesTooFine() throws Exception {
    assertEquals(1000, parse());
    assertEquals(0, parse("--monitor-ms", "0"));
    assertEquals(100, parse("--monitor-ms", "100"));
    assertEquals(250, parse("--monitor-ms", "250"));
    for (String bad : List.of("1", "99", "-1", "soon")) {
      try {
        parse("--monitor-ms", bad);
        fail(bad);
      } catch (IllegalArgumentException e) {
        assertTrue(e.getMessage(), e.getMessage().contains("--monitor-ms"));
      }
    }
  }

  @Test
  public void helpSaysWhatIsSampled() {
    String hbase = BenchMonitor.addOption(new Options(), true).getOption("monitor-ms")
      .getDescription();
    String machine = BenchMonitor.addOption(new Options(), false).getOption("monitor-ms")
      .getDescription();
    assertTrue(hbase, hbase.contains("RegionServers") && hbase.contains("default 1000"));
    assertTrue(machine, !machine.contains("RegionServers") && machine.contains("0: off"));
  }

  @Test
  public void regionServerKeysOnlyWhenOn() {
    assertEquals(Map.of(), BenchMonitor.hbaseKeys(0));
    assertEquals("0", BenchMonitor.hbaseKeys(1000).get(HConstants.REGIONSERVER_INFO_PORT));
    assertEquals("1000", BenchMonitor.hbaseKeys(1000).get("hbase.regionserver.metrics.period"));
    assertEquals("5000", BenchMonitor.hbaseKeys(60_000).get("hbase.regionserver.metrics.period"));
  }

  @Test
  public void offDoesNothingAndWritesNothing() throws Exception {
    try (BenchMonitor m = BenchMonitor.start(0, true)) {
      m.phase("a");
      m.follow(null);
      assertTrue(!m.on());
      ObjectNode doc = new ObjectMapper().createObjectNode();
      assertNull(m.writeIn(doc, new File("/nonexistent"), "t", System.out));
      assertTrue(doc.isEmpty());
    }
  }

  @Test
  public void machineOnlyTimelineGoesToTheJsonAndThePlot() throws Exception {
    File dir = Files.createTempDirectory("bench-monitor").toFile();
    ObjectNode doc = new ObjectMapper().createObjectNode();
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    String line;
    try (BenchMonitor m = BenchMonitor.start(100, false)) {
      m.phase("one");
      Thread.sleep(350);
      m.phase("two");
      Thread.sleep(250);
      line = m.writeIn(doc, new File(dir, "out"), "test", new PrintStream(buf, true,
        StandardCharsets.UTF_8));
    }
    JsonNode mon = doc.get(BenchMonitor.SECTION);
    assertEquals(100, mon.get("interval_ms").asInt());
    assertEquals(Set.copyOf(Monitor.MACHINE_SERIES), Set.copyOf(iterable(mon.get("series"))));
    assertTrue(mon.toString(), mon.get("t_s").size() >= 3);
    assertEquals("two", mon.get("phases").get(1).get("name").asText());
    File png = new File(dir, "out/" + BenchMonitor.PNG);
    assertTrue(line, line.startsWith("monitoring: ") && line.endsWith(png.toString()));
    String console = buf.toString(StandardCharsets.UTF_8);
    assertTrue(console, console.contains("phase (means)") && console.contains(line)
      && !console.contains("memstore"));
    assertEquals("the machine's panels only", 3 * 260, javax.imageio.ImageIO.read(png)
      .getHeight());
  }

  private static List<String> iterable(JsonNode object) {
    List<String> names = new java.util.ArrayList<>();
    object.fieldNames().forEachRemaining(names::add);
    return names;
  }
}
