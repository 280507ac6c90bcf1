package io.strata.bench.common;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The shape of a JSON document for tests that hold a Result's field names: every path (an array's
 * elements as {@code []}, the union of their fields) with the kind of its value (object, array,
 * string, integer, number, boolean, null). The monitoring section's inside is the monitor's, not
 * the Result's: listed as one object.
 */
public final class JsonPaths {
  private JsonPaths() {
  }

  public static SortedSet<String> of(JsonNode doc) {
    SortedSet<String> paths = new TreeSet<>();
    walk(doc, "", paths);
    return paths;
  }

  /** The paths listed in a resource, one a line, {@code #} lines left out. */
  public static SortedSet<String> resource(Class<?> near, String name) throws IOException {
    SortedSet<String> paths = new TreeSet<>();
    try (InputStream in = near.getResourceAsStream(name)) {
      if (in == null) {
        throw new IOException("no resource " + name + " beside " + near.getName());
      }
      for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
        if (!line.isBlank() && !line.startsWith("#")) {
          paths.add(line.trim());
        }
      }
    }
    return paths;
  }

  private static void walk(JsonNode v, String path, SortedSet<String> out) {
    if (!path.isEmpty()) {
      out.add(path + " " + kind(v));
    }
    if (path.equals("monitoring")) {
      return;
    }
    if (v.isObject()) {
      for (var it = v.fields(); it.hasNext();) {
        Map.Entry<String, JsonNode> e = it.next();
        walk(e.getValue(), path.isEmpty() ? e.getKey() : path + "/" + e.getKey(), out);
      }
    } else if (v.isArray()) {
      for (JsonNode x : v) {
        walk(x, path + "[]", out);
      }
    }
  }

  private static String kind(JsonNode v) {
    if (v.isObject()) {
      return "object";
    }
    if (v.isArray()) {
      return "array";
    }
    if (v.isBoolean()) {
      return "boolean";
    }
    if (v.isIntegralNumber()) {
      return "integer";
    }
    if (v.isNumber()) {
      return "number";
    }
    return v.isNull() ? "null" : "string";
  }
}
