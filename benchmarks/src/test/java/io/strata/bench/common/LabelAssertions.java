package io.strata.bench.common;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.util.concurrent.Callable;

/**
 * What a bench's JSON must say about its run (docs/benchmarks.md, "Labels of a kept result"), and
 * a run as {@code ./strata} starts it: naming this source tree in
 * {@link RunLabels#SOURCE_DIR_PROPERTY}.
 */
public final class LabelAssertions {
  private LabelAssertions() {
  }

  /** The Strata source tree this module's tests run in: the benchmarks module's parent. */
  public static File sourceTree() {
    return new File(System.getProperty("user.dir")).getAbsoluteFile().getParentFile();
  }

  /**
   * Runs {@code bench} with {@link RunLabels#SOURCE_DIR_PROPERTY} naming {@link #sourceTree}, as
   * {@code ./strata} runs a bench; the property as it was afterwards.
   */
  public static <T> T asLaunched(Callable<T> bench) throws Exception {
    String before = System.getProperty(RunLabels.SOURCE_DIR_PROPERTY);
    System.setProperty(RunLabels.SOURCE_DIR_PROPERTY, sourceTree().getPath());
    try {
      return bench.call();
    } finally {
      if (before == null) {
        System.clearProperty(RunLabels.SOURCE_DIR_PROPERTY);
      } else {
        System.setProperty(RunLabels.SOURCE_DIR_PROPERTY, before);
      }
    }
  }

  /**
   * {@code doc} carries the four labels at its top level: the commit of {@link #sourceTree} (as
   * RunLabels decides it; never empty), a date, and the transport and emulation given.
   */
  public static void assertLabelled(JsonNode doc, String transport, String emulation) {
    for (String f : new String[] { "commit", "date", "transport", "emulation" }) {
      assertTrue(f + " in " + doc.fieldNames(), doc.path(f).isTextual());
      assertFalse(f + " is empty", doc.path(f).asText().isBlank());
    }
    assertEquals(RunLabels.commit(sourceTree()), doc.path("commit").asText());
    assertTrue(doc.path("date").asText(), doc.path("date").asText()
      .matches("\\d{4}-\\d{2}-\\d{2}.*"));
    assertEquals(transport, doc.path("transport").asText());
    assertEquals(emulation, doc.path("emulation").asText());
  }
}
