package io.strata.bench.chooser;

import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.strata.bench.common.BenchJson;
import io.strata.bench.common.JsonPaths;
import java.io.File;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.RoundRobinVolumeChoosingPolicy;
import org.junit.Test;

/**
 * The chooser Result keeps the JSON field names and structure the bench wrote before it was a
 * record (a renamed, dropped or added field, or one whose value changed kind, fails here), and its
 * table is rendered from the record.
 */
public class ChooserResultJsonTest {

  static ChooserResult sample() {
    ChooserBench.Settings s = new ChooserBench.Settings(4, 2, 1, 2, 20, 0, new File("w"), 250,
      null);
    List<ChooserBench.Outcome> outcomes = List.of(outcome("round-robin", 2), outcome(
      "latency-aware", 0));
    return ChooserResult.of(null, s, outcomes, new ChooserBench.ProbeCost(200, 0.74, 0.46, 6.64),
      JsonNodeFactory.instance.objectNode().put("interval_ms", 250));
  }

  private static ChooserBench.Outcome outcome(String name, long slow) {
    Map<String, Long> blocks = new LinkedHashMap<>();
    blocks.put("data1", 2L);
    blocks.put("data2", 4 - slow);
    blocks.put("data3", slow);
    blocks.put("data4", 2L);
    return new ChooserBench.Outcome(name, RoundRobinVolumeChoosingPolicy.class, "data3", blocks,
      4, 4L << 21, 2.5);
  }

  @Test
  public void theResultWritesTheFieldsTheBenchAlwaysWrote() throws Exception {
    SortedSet<String> expected = JsonPaths.resource(getClass(), "results-paths.txt");
    SortedSet<String> actual = JsonPaths.of(BenchJson.tree(sample()));
    SortedSet<String> missing = new TreeSet<>(expected);
    missing.removeAll(actual);
    SortedSet<String> extra = new TreeSet<>(actual);
    extra.removeAll(expected);
    assertTrue("missing " + missing + ", not expected " + extra, expected.equals(actual));
  }

  @Test
  public void theTableIsRenderedFromTheResult() {
    String table = ChooserResult.table(sample());
    assertTrue(table, table.contains("round-robin          8           2       25.0%"));
    assertTrue(table, table.contains("data1=2 data2=4 data3=0* data4=2"));
    assertTrue(table, table.contains("mean 0.74 ms, p50 0.46 ms, max 6.64 ms over 200 probes: "
      + "0.07% of a volume's time at one probe per 1000 ms"));
  }
}
