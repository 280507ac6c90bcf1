package io.strata.bench.media;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.strata.bench.common.BenchJson;
import java.io.File;
import org.junit.Test;

/**
 * The media Result keeps the results.json the bench wrote when it built it node by node:
 * media-before.json is MediaBenchIT's (two cases, each with its placement at the end and
 * resources), media-scaling-before.json SsdScalingTest's (the SSD-count section, a case
 * without a placement report). Read into the record (an unknown field refused) and written
 * back, each is the same document, field order and JSON nulls included. SsdScalingTest checks
 * that the record built from its cases writes that document.
 */
public class MediaResultJsonTest {
  static File resource(String name) throws Exception {
    return new File(MediaResultJsonTest.class.getResource(name).toURI());
  }

  private static void assertRoundTrip(String name) throws Exception {
    // As text: a number read into a long field is a LongNode where the parser made an IntNode.
    assertEquals(name, new ObjectMapper().readTree(resource(name)).toString(),
      BenchJson.tree(BenchJson.read(resource(name), MediaResult.class)).toString());
  }

  /**
   * The kept full run (benchmarks/results/media-full, with the labels a kept result carries):
   * read into the record and written back it is the same document, and its report's table of
   * the cases, rendered from the record alone, is the kept report.md's.
   */
  @Test
  public void theKeptRunsReportTablesRenderFromItsRecord() throws Exception {
    File kept = new File("results/media-full/results.json");
    MediaResult r = BenchJson.read(kept, MediaResult.class);
    assertEquals(new ObjectMapper().readTree(kept).toString(), BenchJson.tree(r).toString());
    String md = java.nio.file.Files.readString(new File("results/media-full/report.md")
      .toPath());
    String cases = MediaReport.caseTable(r);
    assertTrue(cases, cases.contains("| 1T_HDD | HDD | HDD | HDD / HDD | HDD | 1,277 | 100 % |"));
    assertTrue(cases, md.contains(cases));
  }

  @Test
  public void theRecordReadsAndWritesTheFieldsTheBenchAlwaysWrote() throws Exception {
    assertRoundTrip("media-before.json");
    assertRoundTrip("media-scaling-before.json");
  }
}
