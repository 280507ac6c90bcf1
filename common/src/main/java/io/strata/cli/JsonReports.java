package io.strata.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.File;
import java.io.IOException;

/**
 * Writes the JSON reports of Strata's commands ({@code --json FILE}). Stateless: safe from any
 * thread.
 */
public final class JsonReports {
  private JsonReports() {
  }

  /** Writes {@code doc} indented to {@code out}, creating its directory. */
  public static void write(File out, JsonNode doc) throws IOException {
    File parent = out.getAbsoluteFile().getParentFile();
    if (parent != null && !parent.isDirectory() && !parent.mkdirs()) {
      throw new IOException("Cannot create directory " + parent + " for the JSON report");
    }
    new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(out, doc);
  }
}
