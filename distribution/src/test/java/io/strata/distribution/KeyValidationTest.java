package io.strata.distribution;

import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.junit.Test;

/**
 * Every numeric and boolean {@code strata.*} key of the modules' constants classes, given a value
 * of the wrong type, and (where docs/configuration.md says it must be positive or not negative)
 * a value out of range, is refused by its validating getter with an
 * {@link IllegalArgumentException} that names the key and the value: never a default taken in
 * silence (Hadoop's {@code getBoolean} does that for anything but true/false), never a bare
 * {@code NumberFormatException} that names neither.
 *
 * <p>A key is matched with its getters by trying them all: each static method of its class that
 * takes only a {@code Configuration} is called with a configuration holding just the bad value,
 * and one of them must refuse it.
 */
public class KeyValidationTest {

  /** The modules' constants classes with static validating getters. */
  private static final String[] CLASSES = { "io.strata.hdfs.HdfsKeys",
    "io.strata.hbase.rdma.HybridRpcKeys", "io.strata.hbase.rdma.HybridRpcKeys$Client",
    "io.strata.hbase.rdma.HybridRpcKeys$Server", "io.strata.hbase.rdma.HybridRpcKeys$Handler",
    "io.strata.pcm.PcmKeys" };

  @Test
  public void everyBadValueIsRefusedNamingTheKeyAndTheValue() throws Exception {
    Map<String, String> ranges = documentedRanges();
    List<String> problems = new ArrayList<>();
    int checked = 0;
    for (String name : CLASSES) {
      Class<?> c = Class.forName(name);
      List<Method> getters = new ArrayList<>();
      for (Method m : c.getDeclaredMethods()) {
        if (Modifier.isStatic(m.getModifiers()) && Modifier.isPublic(m.getModifiers())
          && m.getParameterCount() == 1 && m.getParameterTypes()[0] == Configuration.class) {
          getters.add(m);
        }
      }
      for (Field f : c.getDeclaredFields()) {
        if (!isKey(f)) {
          continue;
        }
        String key = (String) f.get(null);
        Class<?> type = defaultType(c, f.getName());
        if (type == null) {
          continue;
        }
        List<String> bad = new ArrayList<>();
        bad.add(type == boolean.class ? "yes-please" : "twelve");
        String range = ranges.getOrDefault(key, "");
        if (type != boolean.class && range.startsWith("> 0")) {
          bad.add("0");
          bad.add("-1");
        } else if (type != boolean.class && (range.startsWith("≥ 0")
          || range.startsWith(">= 0"))) {
          bad.add("-1");
        }
        for (String value : bad) {
          checked++;
          String why = refusal(getters, key, value);
          if (why != null) {
            problems.add(key + "=" + value + ": " + why);
          }
        }
      }
    }
    assertTrue("no key checked", checked > 20);
    if (!problems.isEmpty()) {
      fail(problems.size() + " of " + checked + " bad values not refused as they should be:\n  "
        + String.join("\n  ", problems));
    }
  }

  /** Null when a getter refuses {@code key=value} naming both; else what happened. */
  private static String refusal(List<Method> getters, String key, String value) {
    Configuration conf = new Configuration(false);
    conf.set(key, value);
    List<String> seen = new ArrayList<>();
    for (Method g : getters) {
      try {
        g.invoke(null, conf);
      } catch (InvocationTargetException e) {
        Throwable t = e.getCause();
        String msg = String.valueOf(t.getMessage());
        if (t instanceof IllegalArgumentException && msg.contains(key) && msg.contains(value)) {
          return null;
        }
        seen.add(g.getName() + " threw " + t);
      } catch (IllegalAccessException e) {
        throw new AssertionError(e);
      }
    }
    return seen.isEmpty() ? "accepted by every getter of its class" : String.join("; ", seen);
  }

  private static boolean isKey(Field f) throws IllegalAccessException {
    int mod = f.getModifiers();
    if (!Modifier.isStatic(mod) || !Modifier.isFinal(mod) || f.getType() != String.class
      || f.getName().endsWith("_DEFAULT")) {
      return false;
    }
    f.setAccessible(true);
    Object v = f.get(null);
    return v instanceof String s && s.startsWith("strata.") && !s.endsWith(".");
  }

  /** The type of the key's {@code NAME_DEFAULT} constant when numeric or boolean, else null. */
  private static Class<?> defaultType(Class<?> c, String name) {
    try {
      Class<?> t = c.getDeclaredField(name + "_DEFAULT").getType();
      return t == int.class || t == long.class || t == double.class || t == float.class
        || t == boolean.class ? t : null;
    } catch (NoSuchFieldException e) {
      return null;
    }
  }

  /** The "allowed" column of docs/configuration.md's key tables, by key. */
  private static Map<String, String> documentedRanges() throws Exception {
    Path module = Paths.get(System.getProperty("user.dir")).toAbsolutePath();
    Path doc = module.getParent().resolve("docs").resolve("configuration.md");
    Map<String, String> ranges = new TreeMap<>();
    Pattern row = Pattern.compile("^\\| `(strata\\.[^`]+)` \\| [^|]* \\| ([^|]*) \\|");
    for (String line : Files.readAllLines(doc, StandardCharsets.UTF_8)) {
      Matcher m = row.matcher(line);
      if (m.find()) {
        ranges.put(m.group(1), m.group(2).trim());
      }
    }
    assertFalse("no key rows in " + doc, ranges.isEmpty());
    return ranges;
  }
}
