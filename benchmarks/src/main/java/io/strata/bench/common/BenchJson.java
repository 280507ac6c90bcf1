package io.strata.bench.common;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.File;
import java.io.IOException;

/**
 * A bench's Result record as JSON, through Jackson databind: the field names are the records'
 * {@code @JsonProperty} names, so a report reads the record, never a key spelled again; a part
 * that is absent (null) is left out, as a bench leaves out what it did not measure. Reading
 * refuses a field the record does not have (a misspelt or renamed one), unless the record lists
 * it as ignored. Thread-safe (one configured mapper).
 */
public final class BenchJson {
  private static final ObjectMapper MAPPER = new ObjectMapper()
    .setSerializationInclusion(JsonInclude.Include.NON_NULL)
    .enable(SerializationFeature.INDENT_OUTPUT)
    .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  private BenchJson() {
  }

  /** Writes {@code result} indented to {@code out}, creating its directory. */
  public static void write(File out, Object result) throws IOException {
    File parent = out.getAbsoluteFile().getParentFile();
    if (parent != null && !parent.isDirectory() && !parent.mkdirs()) {
      throw new IOException("Cannot create directory " + parent + " for " + out.getName());
    }
    MAPPER.writeValue(out, result);
  }

  /** The Result of an earlier run, from its JSON file. */
  public static <R> R read(File in, Class<R> type) throws IOException {
    return MAPPER.readValue(in, type);
  }

  /** {@code result} as the tree its JSON file holds. */
  public static JsonNode tree(Object result) {
    return MAPPER.valueToTree(result);
  }

  /** {@code value} (a record) as another type with the same JSON, e.g. a map of its fields. */
  public static <T> T convert(Object value, Class<T> type) {
    return MAPPER.convertValue(value, type);
  }
}
