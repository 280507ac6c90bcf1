package io.strata.bench.writetail;

import static org.junit.Assert.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.strata.bench.common.BenchJson;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.Test;

/**
 * The write-tail Result keeps the JSON the bench wrote when it built it node by node, and its
 * report is the one that bench printed. The resources are WriteTailBenchIT's output of that code
 * (the monitoring sections cut short): write-tail-before.json (three policies in rounds),
 * write-tail-study-before.json (NONE and its off-heap variant, joined from
 * offheap-variant-before.json, the variant JVM's own Result) and the study run's console table.
 */
public class WriteTailResultJsonTest {
  private static File resource(String name) throws Exception {
    return new File(WriteTailResultJsonTest.class.getResource(name).toURI());
  }

  private static void assertRoundTrip(String name) throws Exception {
    // As text: a number read into a long field is a LongNode where the parser made an IntNode.
    assertEquals(name, new ObjectMapper().readTree(resource(name)).toString(),
      BenchJson.tree(BenchJson.read(resource(name), WriteTailResult.class)).toString());
  }

  @Test
  public void theRecordReadsAndWritesTheFieldsTheBenchAlwaysWrote() throws Exception {
    assertRoundTrip("write-tail-before.json");
    assertRoundTrip("write-tail-study-before.json");
    assertRoundTrip("offheap-variant-before.json");
  }

  @Test
  public void theOffheapVariantJoinsAsTheBenchJoinedIt() throws Exception {
    WriteTailResult joined = BenchJson.read(resource("write-tail-study-before.json"),
      WriteTailResult.class);
    WriteTailResult variant = BenchJson.read(resource("offheap-variant-before.json"),
      WriteTailResult.class);
    Map<String, WriteTailResult.Policy> onHeapPolicies = new LinkedHashMap<>(joined.policies());
    Map<String, WriteTailResult.Ratio> onHeapRatios = new LinkedHashMap<>(joined.ratios());
    variant.policies().keySet().forEach(label -> {
      onHeapPolicies.remove(label);
      onHeapRatios.remove(label);
    });
    WriteTailResult.Recorded s = joined.settings();
    WriteTailResult onHeap = new WriteTailResult(joined.commit(), joined.date(),
      joined.transport(), joined.emulation(), new WriteTailResult.Recorded(s.rows(),
      s.threads(), s.valueBytes(), s.policies(), s.rounds(), s.warmupRows(), s.flushMb(),
      s.inMemoryFlushFactor(), s.dataNodes(), s.regions(), s.profile(), s.profileKeys(),
      s.memstoreOffheap(), s.offheapMemstoreMb(), s.maxDirectMemoryMb(), s.regionServer(), null),
      onHeapPolicies, joined.baseline(), onHeapRatios, null, joined.study(),
      joined.monitoring());
    assertEquals(BenchJson.tree(joined).toString(),
      BenchJson.tree(onHeap.withOffheap(variant)).toString());
  }

  @Test
  public void theReportIsTheOneTheBenchPrinted() throws Exception {
    WriteTailResult r = BenchJson.read(resource("write-tail-study-before.json"),
      WriteTailResult.class);
    String printed = Files.readString(resource("write-tail-study-console.txt").toPath(),
      StandardCharsets.UTF_8);
    assertEquals(printed, WriteTailReport.table(r) + WriteTailReport.againstStudy(r));
  }
}
