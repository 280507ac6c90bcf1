package io.strata.bench.rpc;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.strata.bench.common.BenchJson;
import io.strata.bench.common.JsonPaths;
import java.io.File;
import java.util.SortedSet;
import java.util.TreeSet;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * The rpc Result keeps the JSON field names and structure the bench wrote before it was a record:
 * a renamed, dropped or added field, or one whose value changed kind, fails here.
 */
public class RpcResultJsonTest {
  @Rule
  public TemporaryFolder tmp = new TemporaryFolder();

  @Test
  public void theResultWritesTheFieldsTheBenchAlwaysWrote() throws Exception {
    SortedSet<String> expected = JsonPaths.resource(getClass(), "results-paths.txt");
    SortedSet<String> actual = JsonPaths.of(BenchJson.tree(RpcResults.sample(2, "loopback")));
    assertTrue(diff(expected, actual), expected.equals(actual));
  }

  /**
   * A full run's JSON as the bench wrote it (rpc-loopback-results.json, a loopback run kept only as
   * this fixture) reads into the Result, every field of it, and writes back with the same paths.
   */
  @Test
  public void theKeptRunReadsBackWithEveryField() throws Exception {
    File kept = keptRun();
    assertTrue(kept.getAbsolutePath(), kept.isFile());
    SortedSet<String> expected = JsonPaths.of(new ObjectMapper().readTree(kept));
    RpcResult r = BenchJson.read(kept, RpcResult.class);
    SortedSet<String> actual = JsonPaths.of(BenchJson.tree(r));
    assertTrue(diff(expected, actual), expected.equals(actual));
  }

  /**
   * The report rendered from the record is the one the bench rendered from the JSON tree before
   * (rpc-loopback-report.md: the unchanged bench's {@code --report-from} of the kept run).
   */
  @Test
  public void theKeptRunsReportIsRenderedAsBefore() throws Exception {
    RpcResult r = BenchJson.read(keptRun(), RpcResult.class);
    try (java.io.InputStream in = getClass().getResourceAsStream("rpc-loopback-report.md")) {
      assertEquals(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8),
        RpcReport.markdown(r));
    }
  }

  @Test
  public void aMisspeltFieldIsRefusedOnRead() throws Exception {
    ObjectNode doc = (ObjectNode) BenchJson.tree(RpcResults.sample(2, "loopback"));
    ((ObjectNode) doc.get("run")).set("cell_msec", doc.get("run").get("cell_ms"));
    ((ObjectNode) doc.get("run")).remove("cell_ms");
    File f = tmp.newFile("misspelt.json");
    new ObjectMapper().writeValue(f, doc);
    try {
      BenchJson.read(f, RpcResult.class);
      fail("read a result with run.cell_msec");
    } catch (UnrecognizedPropertyException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("cell_msec"));
    }
  }

  @Test
  public void aStageTheRecordDoesNotNameIsRefused() {
    try {
      RpcResult.Stages.of(new RpcStageBreakdown.Breakdown(java.util.Map.of("handlr_us", 1.0), 1,
        0, 1, 1));
      fail("took a stage named handlr_us");
    } catch (IllegalArgumentException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("handlr_us"));
    }
  }

  private File keptRun() throws Exception {
    java.net.URL url = getClass().getResource("rpc-loopback-results.json");
    assertTrue("rpc-loopback-results.json is not on the test class path", url != null);
    return new File(url.toURI());
  }

  static String diff(SortedSet<String> expected, SortedSet<String> actual) {
    SortedSet<String> missing = new TreeSet<>(expected);
    missing.removeAll(actual);
    SortedSet<String> extra = new TreeSet<>(actual);
    extra.removeAll(expected);
    return "missing " + missing + ", not expected " + extra;
  }

}
