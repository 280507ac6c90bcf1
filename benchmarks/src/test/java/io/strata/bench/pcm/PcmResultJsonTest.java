package io.strata.bench.pcm;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.strata.bench.common.BenchJson;
import java.io.File;
import org.junit.Test;

/**
 * The pcm Result keeps the JSON the bench wrote when it built it node by node:
 * pcm-before.json is PcmBenchIT's {@code --json} output of that code (classification and
 * adaptation; its monitoring section cut short); read into the record (an unknown field
 * refused) and written back, it is the same document, field order and JSON nulls included.
 */
public class PcmResultJsonTest {
  private static File before() throws Exception {
    return new File(PcmResultJsonTest.class.getResource("pcm-before.json").toURI());
  }

  @Test
  public void theRecordReadsAndWritesTheFieldsTheBenchAlwaysWrote() throws Exception {
    // As text: a number read into a long field is a LongNode where the parser made an IntNode.
    assertEquals(new ObjectMapper().readTree(before()).toString(),
      BenchJson.tree(BenchJson.read(before(), PcmResult.class)).toString());
  }

  @Test
  public void aFigureThatIsNotANumberIsNull() {
    assertNull(PcmResult.figure(Double.NaN));
    assertNull(PcmResult.figure(1 / 0.0));
    assertEquals(2.5, PcmResult.figure(2.5), 0);
  }
}
