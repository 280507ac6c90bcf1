package io.strata.conf;

import java.util.Locale;

/**
 * The parsing and range checks behind every module's validating getters: a key's raw value (as
 * the configuration gives it, null or empty when unset) to a number or a boolean, refused with an
 * {@link IllegalArgumentException} that names the key, the value and what is allowed, never a
 * default taken in silence. Independent of Hadoop: callers pass {@code conf.getTrimmed(key)}.
 * Stateless; thread-safe.
 */
public final class KeyValues {
  private KeyValues() {
  }

  /** A whole number, or {@code dflt} when unset. */
  public static long whole(String key, String raw, long dflt) {
    if (raw == null || raw.isEmpty()) {
      return dflt;
    }
    try {
      return Long.parseLong(raw.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + " must be a whole number, not '" + raw + "'");
    }
  }

  /** A finite number, or {@code dflt} when unset. */
  public static double finite(String key, String raw, double dflt) {
    if (raw == null || raw.isEmpty()) {
      return dflt;
    }
    try {
      double v = Double.parseDouble(raw.trim());
      if (!Double.isNaN(v) && !Double.isInfinite(v)) {
        return v;
      }
    } catch (NumberFormatException e) {
      // refused below
    }
    throw new IllegalArgumentException(key + " must be a finite number, not '" + raw + "'");
  }

  /** true or false (any case), or {@code dflt} when unset; Hadoop's getBoolean takes anything else as the default. */
  public static boolean bool(String key, String raw, boolean dflt) {
    if (raw == null || raw.isEmpty()) {
      return dflt;
    }
    String v = raw.trim();
    if (v.equalsIgnoreCase("true") || v.equalsIgnoreCase("false")) {
      return Boolean.parseBoolean(v);
    }
    throw new IllegalArgumentException(key + " must be true or false, not '" + raw + "'");
  }

  /** {@code v} when within [min, max]; else refused naming the key and the range. */
  public static long within(String key, long v, long min, long max) {
    if (v < min || v > max) {
      throw new IllegalArgumentException(String.format(Locale.ROOT, "%s must be %s, not %d", key,
        max == Long.MAX_VALUE ? (min == 1 ? "positive" : "at least " + min)
          : "from " + min + " to " + max, v));
    }
    return v;
  }

  /** {@code v} when within [min, max]; else refused naming the key and the range. */
  public static double within(String key, double v, double min, double max) {
    if (!(v >= min && v <= max)) {
      throw new IllegalArgumentException(String.format(Locale.ROOT, "%s must be from %s to %s, "
        + "not %s", key, min, max, v));
    }
    return v;
  }
}
