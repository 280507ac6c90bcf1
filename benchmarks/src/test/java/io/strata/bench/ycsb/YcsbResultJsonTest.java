package io.strata.bench.ycsb;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import com.fasterxml.jackson.databind.JsonNode;
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
 * The ycsb Result keeps the JSON the bench wrote before it was a record. ycsb-before.json is what
 * the bench's hand-built writer wrote for {@link YcsbSamples}' figures (every part, every
 * branch); the record made from the same figures writes the same document, and reads it back
 * whole. The results kept under benchmarks/results/ycsb-* read into the record and write back
 * with the same fields.
 */
public class YcsbResultJsonTest {
  @Rule
  public TemporaryFolder tmp = new TemporaryFolder();

  private static File before() throws Exception {
    return new File(YcsbResultJsonTest.class.getResource("ycsb-before.json").toURI());
  }

  /** As written and parsed again: a long read into a field parses as an int again. */
  private static JsonNode reparsed(Object result) throws Exception {
    ObjectMapper m = new ObjectMapper();
    return m.readTree(m.writeValueAsString(BenchJson.tree(result)));
  }

  static YcsbResult sample() {
    FilterComparison.Result filters = YcsbSamples.filters();
    return new YcsbResult(null, null, null, null, YcsbResult.Settings.of(YcsbSamples.settings()),
      YcsbSamples.phases().stream().map(YcsbResult.Step::of).toList(),
      YcsbResult.Presplit.of(YcsbSamples.presplit()),
      YcsbResult.BulkLoad.of(YcsbSamples.bulkload()),
      YcsbSamples.rawLag().stream().map(YcsbResult.Lag::of).toList(),
      YcsbResult.Rpc.of(YcsbSamples.rpc()), YcsbResult.Filter.all(filters),
      YcsbResult.FiltersSummary.of(filters), YcsbResult.Acl.of(YcsbSamples.acl()), null);
  }

  @Test
  public void theRecordWritesWhatTheHandBuiltWriterWrote() throws Exception {
    JsonNode expected = new ObjectMapper().readTree(before());
    JsonNode actual = reparsed(sample());
    assertEquals(diff(JsonPaths.of(expected), JsonPaths.of(actual)), expected, actual);
    // Field order too (the ACL paper's two ratios came in Map.of's order, not a fixed one).
    ObjectNode e = expected.deepCopy();
    ObjectNode a = actual.deepCopy();
    ((ObjectNode) e.get("acl")).remove("paper");
    ((ObjectNode) a.get("acl")).remove("paper");
    assertEquals(e.toString(), a.toString());
  }

  @Test
  public void theWrittenDocumentReadsBackWhole() throws Exception {
    JsonNode expected = new ObjectMapper().readTree(before());
    assertEquals(expected, reparsed(BenchJson.read(before(), YcsbResult.class)));
  }

  /** Each kept run: read (an unknown field refused), written back with the same fields. */
  @Test
  public void theKeptResultsReadBackWithEveryField() throws Exception {
    File results = new File("results");
    assertTrue(results.getAbsolutePath(), results.isDirectory());
    int n = 0;
    for (File dir : results.listFiles((d, name) -> name.startsWith("ycsb-"))) {
      for (File kept : dir.listFiles((d, name) -> name.endsWith(".json"))) {
        JsonNode doc = new ObjectMapper().readTree(kept);
        SortedSet<String> expected = JsonPaths.of(doc);
        SortedSet<String> actual = JsonPaths.of(BenchJson.tree(BenchJson.read(kept,
          YcsbResult.class)));
        assertTrue(kept + ": " + diff(expected, actual), expected.equals(actual));
        n++;
      }
    }
    // ycsb-acl, ycsb-bulkload and ycsb-filters hold one JSON each.
    assertTrue("kept ycsb results: " + n, n >= 3);
  }

  @Test
  public void aMisspeltFieldIsRefusedOnRead() throws Exception {
    ObjectNode doc = (ObjectNode) new ObjectMapper().readTree(before());
    ObjectNode presplit = (ObjectNode) doc.get("presplit");
    presplit.set("ratio_ops", presplit.remove("ratio"));
    File f = tmp.newFile("misspelt.json");
    new ObjectMapper().writeValue(f, doc);
    try {
      BenchJson.read(f, YcsbResult.class);
      fail("read a result with presplit.ratio_ops");
    } catch (UnrecognizedPropertyException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("ratio_ops"));
    }
  }

  /** The client JVM's figures keep their encoding (remote-figures-before.json). */
  @Test
  public void aClientJvmsFiguresKeepTheirFields() throws Exception {
    File kept = new File(getClass().getResource("remote-figures-before.json").toURI());
    JsonNode expected = new ObjectMapper().readTree(kept);
    InProcessYcsb.Figures f = YcsbSamples.rpcFigures(300, 200, 55.5);
    JsonNode actual = new ObjectMapper().readTree(RemoteYcsbClient.JSON.writeValueAsString(
      RemoteYcsbClient.EncodedFigures.of(f)));
    assertEquals(expected.toString(), actual.toString());
    InProcessYcsb.Figures back = RemoteYcsbClient.JSON.readValue(kept,
      RemoteYcsbClient.EncodedFigures.class).figures();
    assertEquals(f.all(), back.all());
    assertEquals(f.byType(), back.byType());
  }

  static String diff(SortedSet<String> expected, SortedSet<String> actual) {
    SortedSet<String> missing = new TreeSet<>(expected);
    missing.removeAll(actual);
    SortedSet<String> extra = new TreeSet<>(actual);
    extra.removeAll(expected);
    return "missing " + missing + ", not expected " + extra;
  }
}
