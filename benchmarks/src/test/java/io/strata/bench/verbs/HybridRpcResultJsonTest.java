package io.strata.bench.verbs;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.strata.bench.common.BenchJson;
import io.strata.bench.common.JsonPaths;
import java.io.File;
import java.util.SortedSet;
import org.junit.Test;

/**
 * The runs of HybridRpcLatency kept under benchmarks/results/rpc-verbs, labels included, read
 * into its Result (an unknown field refused) and write back with the same fields and values.
 */
public class HybridRpcResultJsonTest {
  @Test
  public void theKeptRunsReadBackWithEveryField() throws Exception {
    File dir = new File("results/rpc-verbs");
    assertTrue(dir.getAbsolutePath(), dir.isDirectory());
    int n = 0;
    for (File kept : dir.listFiles((d, name) -> name.endsWith(".json"))) {
      JsonNode doc = new ObjectMapper().readTree(kept);
      HybridRpcResult r = BenchJson.read(kept, HybridRpcResult.class);
      JsonNode back = BenchJson.tree(r);
      SortedSet<String> expected = JsonPaths.of(doc);
      SortedSet<String> actual = JsonPaths.of(back);
      assertEquals(kept.toString(), expected, actual);
      assertEquals(kept.toString(), doc.path("commit").asText(), r.commit());
      assertEquals(kept.toString(), doc.path("transport").asText(), r.transport());
      n++;
    }
    assertTrue("kept rpc-verbs runs: " + n, n >= 3);
  }
}
