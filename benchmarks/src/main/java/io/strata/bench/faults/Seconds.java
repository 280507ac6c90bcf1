package io.strata.bench.faults;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import java.io.IOException;
import java.util.Locale;

/**
 * How long something took, as the campaign's JSON holds it: a number of seconds, the text of a
 * wait that gave up ("not within 180 s"), or {@link #NOT} (JSON null: it did not happen, e.g.
 * writes that never resumed).
 */
@JsonSerialize(using = Seconds.Out.class)
@JsonDeserialize(using = Seconds.In.class)
record Seconds(Double value, String not) {
  /** It did not happen: written as JSON null. */
  static final Seconds NOT = new Seconds(null, null);

  static Seconds of(double s) {
    return new Seconds(s, null);
  }

  /** {@code s} seconds, or {@link #NOT} when negative (the campaign's "did not happen"). */
  static Seconds orNot(double s) {
    return s >= 0 ? of(s) : NOT;
  }

  /** {@code s} seconds, or "not within {@code limitS} s" when negative. */
  static Seconds orNotWithin(double s, int limitS) {
    return s >= 0 ? of(s) : new Seconds(null, "not within " + limitS + " s");
  }

  /** Whether it happened within its wait. */
  boolean known() {
    return value != null;
  }

  /** The report's cell: "31.0", or "(not)". */
  String cell() {
    return value == null ? "(not)" : String.format(Locale.ROOT, "%.1f", value);
  }

  static final class Out extends JsonSerializer<Seconds> {
    @Override
    public void serialize(Seconds s, JsonGenerator g, SerializerProvider p) throws IOException {
      if (s.value != null) {
        g.writeNumber(s.value);
      } else if (s.not != null) {
        g.writeString(s.not);
      } else {
        g.writeNull();
      }
    }
  }

  static final class In extends JsonDeserializer<Seconds> {
    @Override
    public Seconds deserialize(JsonParser p, DeserializationContext c) throws IOException {
      if (p.currentToken() == JsonToken.VALUE_STRING) {
        return new Seconds(null, p.getText());
      }
      if (p.currentToken().isNumeric()) {
        return of(p.getDoubleValue());
      }
      return (Seconds) c.handleUnexpectedToken(Seconds.class, p);
    }
  }
}
