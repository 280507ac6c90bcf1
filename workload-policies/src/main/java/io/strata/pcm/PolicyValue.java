package io.strata.pcm;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One value of a policy file, as written there: a text (a class or storage policy name), a number
 * (sizes may end in KB, MB or GB, binary), {@code N*X}, {@code max(N,X)} or
 * {@code max(N,dataset/regions)}, where X is the recommended RegionServer heap in whole GiB (the
 * paper's "X GB") and dataset/regions the table's data over its pre-split region count. Immutable.
 */
public final class PolicyValue {
  enum Form { TEXT, CONST, TIMES_X, MAX_X, MAX_DATASET }

  private static final Pattern NUM = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(KB|MB|GB)?",
    Pattern.CASE_INSENSITIVE);
  private static final Pattern TIMES = Pattern.compile("(.+?)\\s*\\*\\s*X");
  private static final Pattern MAX = Pattern.compile("max\\(\\s*(.+?)\\s*,\\s*(X|dataset/regions)"
    + "\\s*\\)", Pattern.CASE_INSENSITIVE);

  private final String raw;
  private final Form form;
  private final double number;

  private PolicyValue(String raw, Form form, double number) {
    this.raw = raw;
    this.form = form;
    this.number = number;
  }

  /** A text value, taken as it is. */
  static PolicyValue text(String raw) {
    return new PolicyValue(raw, Form.TEXT, Double.NaN);
  }

  /**
   * Parses a numeric value.
   *
   * @throws IllegalArgumentException saying what is wrong with {@code raw}
   */
  static PolicyValue numeric(String raw) {
    String s = raw.trim();
    Matcher m = MAX.matcher(s);
    if (m.matches()) {
      return new PolicyValue(raw, m.group(2).equalsIgnoreCase("X") ? Form.MAX_X
        : Form.MAX_DATASET, number(m.group(1), raw));
    }
    m = TIMES.matcher(s);
    if (m.matches()) {
      return new PolicyValue(raw, Form.TIMES_X, number(m.group(1), raw));
    }
    return new PolicyValue(raw, Form.CONST, number(s, raw));
  }

  private static double number(String s, String raw) {
    Matcher m = NUM.matcher(s.trim());
    if (!m.matches()) {
      throw new IllegalArgumentException("'" + raw + "' is not a number, N*X, max(N,X) or "
        + "max(N,dataset/regions) (sizes may end in KB, MB, GB)");
    }
    double v = Double.parseDouble(m.group(1));
    String unit = m.group(2) == null ? "" : m.group(2).toUpperCase(Locale.ROOT);
    switch (unit) {
      case "KB": return v * 1024;
      case "MB": return v * 1024 * 1024;
      case "GB": return v * 1024 * 1024 * 1024;
      default: return v;
    }
  }

  Form form() {
    return form;
  }

  /** The number before X or dataset/regions, or the constant. */
  double number() {
    return number;
  }

  /** As written in the file. */
  public String raw() {
    return raw;
  }

  /**
   * The value for a cluster: {@code x} the heap in GiB, {@code datasetPerRegion} the table's data
   * over its regions, in bytes. A text value is returned as it is.
   */
  public String resolve(long x, long datasetPerRegion) {
    switch (form) {
      case TEXT:
        return raw.trim();
      case CONST:
        return format(number);
      case TIMES_X:
        return format(number * x);
      case MAX_X:
        return format(Math.max(number, x));
      default:
        return format(Math.max(number, datasetPerRegion));
    }
  }

  private static String format(double v) {
    return v == Math.rint(v) && Math.abs(v) < 1e18 ? Long.toString((long) v) : Double.toString(v);
  }

  @Override
  public String toString() {
    return raw;
  }
}
