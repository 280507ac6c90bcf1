package io.strata.bench.walsync;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.strata.bench.common.BenchJson;
import java.io.File;
import org.junit.Test;

/**
 * The wal-sync Result keeps the JSON the bench wrote before its options moved to picocli and its
 * run and report to classes of their own: wal-sync-before.json is WalSyncBenchIT's results.json
 * of that code; read into the record (an unknown field refused) and written back, it is the same
 * document, field order included. The report is rendered from the record.
 */
public class WalSyncResultJsonTest {
  private static File before() throws Exception {
    return new File(WalSyncResultJsonTest.class.getResource("wal-sync-before.json").toURI());
  }

  @Test
  public void theRecordReadsAndWritesTheFieldsTheBenchAlwaysWrote() throws Exception {
    JsonNode expected = new ObjectMapper().readTree(before());
    JsonNode actual = BenchJson.tree(BenchJson.read(before(), WalSyncResult.class));
    // As text: a number read into a long field is a LongNode where the parser made an IntNode.
    assertEquals(expected.toString(), actual.toString());
  }

  /**
   * The kept run (benchmarks/results/wal-sync), labels included: read into the record and written
   * back it is the same document, field order included.
   */
  @Test
  public void theKeptRunReadsBackAsItIs() throws Exception {
    File kept = new File("results/wal-sync/results.json");
    JsonNode expected = new ObjectMapper().readTree(kept);
    WalSyncResult r = BenchJson.read(kept, WalSyncResult.class);
    assertEquals(expected.toString(), BenchJson.tree(r).toString());
    assertEquals(expected.path("commit").asText(), r.commit());
  }

  @Test
  public void theReportIsRenderedFromTheResult() throws Exception {
    String md = WalSyncResult.markdown(BenchJson.read(before(), WalSyncResult.class));
    assertTrue(md, md.startsWith("# WAL sync latency and durability per WAL placement"));
    assertTrue(md, md.contains("| RAM_SSD | hsync |") && md.contains("survives"));
  }
}
