package io.strata.bench.dnlocks;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.strata.bench.common.BenchJson;
import java.io.File;
import org.junit.Test;

/**
 * The dn-locks Result keeps the JSON the bench wrote before it was a record: dn-locks-before.json
 * is DnLocksBenchIT's {@code --json} output of the code that built it node by node (its
 * monitoring section cut short); read into the record (an unknown field refused) and written
 * back, it is the same document, field order included. The table is rendered from the record.
 */
public class DnLocksResultJsonTest {
  private static File before() throws Exception {
    return new File(DnLocksResultJsonTest.class.getResource("dn-locks-before.json").toURI());
  }

  @Test
  public void theRecordReadsAndWritesTheFieldsTheBenchAlwaysWrote() throws Exception {
    JsonNode expected = new ObjectMapper().readTree(before());
    JsonNode actual = BenchJson.tree(BenchJson.read(before(), DnLocksResult.class));
    // As text: a number read into a long field is a LongNode where the parser made an IntNode.
    assertEquals(expected.toString(), actual.toString());
  }

  @Test
  public void theTableIsRenderedFromTheResult() throws Exception {
    String table = DnLocksResult.table(BenchJson.read(before(), DnLocksResult.class));
    assertTrue(table, table.contains("strata    heavy  RAM   createRbw"));
    assertTrue(table, table.contains("upstream  RAM createRbw+finalizeBlock wait ms: p99 "));
    assertTrue(table, table.contains("[FsDatasetImpl from hadoop-hdfs-3.4.2.jar]"));
  }
}
