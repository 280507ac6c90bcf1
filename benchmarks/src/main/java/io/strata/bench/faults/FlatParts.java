package io.strata.bench.faults;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.strata.bench.common.BenchJson;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A record whose components are parts (records, each absent when not measured) written as one
 * flat JSON object: a fault's {@code observed} holds every part's fields side by side, as the
 * campaign has always written it. Each JSON field belongs to exactly one part; reading refuses a
 * field no part has, as {@link BenchJson#read} refuses one a record does not have.
 */
final class FlatParts {
  private FlatParts() {
  }

  /** {@code whole} with {@code part} in the component of its type. */
  static <R extends Record> R with(R whole, Object part) {
    RecordComponent[] cs = whole.getClass().getRecordComponents();
    Object[] values = values(whole);
    boolean placed = false;
    for (int i = 0; i < cs.length; i++) {
      if (cs[i].getType() == part.getClass()) {
        values[i] = part;
        placed = true;
      }
    }
    if (!placed) {
      throw new IllegalArgumentException(whole.getClass().getSimpleName() + " has no part "
        + part.getClass().getSimpleName());
    }
    return construct(whole.getClass(), values);
  }

  private static Object[] values(Record r) {
    RecordComponent[] cs = r.getClass().getRecordComponents();
    Object[] values = new Object[cs.length];
    try {
      for (int i = 0; i < cs.length; i++) {
        values[i] = cs[i].getAccessor().invoke(r);
      }
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
    return values;
  }

  @SuppressWarnings("unchecked")
  private static <R> R construct(Class<?> type, Object[] values) {
    RecordComponent[] cs = type.getRecordComponents();
    Class<?>[] types = new Class<?>[cs.length];
    for (int i = 0; i < cs.length; i++) {
      types[i] = cs[i].getType();
    }
    try {
      // Public records of this package: their canonical constructors and accessors are public,
      // so no access check is bypassed.
      Constructor<?> c = type.getDeclaredConstructor(types);
      return (R) c.newInstance(values);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The JSON names of a part's fields. */
  private static Set<String> names(Class<?> part) {
    Set<String> names = new LinkedHashSet<>();
    for (RecordComponent c : part.getRecordComponents()) {
      // On the accessor: JsonProperty does not target record components, Java copies it there.
      JsonProperty p = c.getAccessor().getAnnotation(JsonProperty.class);
      names.add(p != null ? p.value() : c.getName());
    }
    return names;
  }

  /** Writes the parts present, each one's fields in turn, as one object. */
  static final class Out extends JsonSerializer<Record> {
    @Override
    public void serialize(Record whole, JsonGenerator g, SerializerProvider p)
      throws IOException {
      g.writeStartObject();
      for (Object part : values(whole)) {
        if (part == null) {
          continue;
        }
        Iterator<Map.Entry<String, JsonNode>> fields = BenchJson.tree(part).fields();
        while (fields.hasNext()) {
          Map.Entry<String, JsonNode> e = fields.next();
          g.writeFieldName(e.getKey());
          g.writeTree(e.getValue());
        }
      }
      g.writeEndObject();
    }
  }

  /** Reads one object into the parts whose fields it has; a field of no part is refused. */
  abstract static class In<R extends Record> extends JsonDeserializer<R> {
    private final Class<R> type;

    In(Class<R> type) {
      this.type = type;
    }

    @Override
    public R deserialize(JsonParser p, DeserializationContext c) throws IOException {
      ObjectNode all = p.readValueAsTree();
      RecordComponent[] cs = type.getRecordComponents();
      Object[] values = new Object[cs.length];
      Set<String> claimed = new LinkedHashSet<>();
      List<String> known = new ArrayList<>();
      for (int i = 0; i < cs.length; i++) {
        Set<String> names = names(cs[i].getType());
        known.addAll(names);
        ObjectNode mine = all.objectNode();
        for (String n : names) {
          if (all.has(n)) {
            mine.set(n, all.get(n));
            claimed.add(n);
          }
        }
        if (mine.size() > 0) {
          values[i] = p.getCodec().treeToValue(mine, cs[i].getType());
        }
      }
      Iterator<String> keys = all.fieldNames();
      while (keys.hasNext()) {
        String k = keys.next();
        if (!claimed.contains(k)) {
          throw UnrecognizedPropertyException.from(p, type, k, new ArrayList<Object>(known));
        }
      }
      return construct(type, values);
    }
  }
}
