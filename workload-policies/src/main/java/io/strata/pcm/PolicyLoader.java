package io.strata.pcm;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Loads the configuration policies: the shipped one of every workload class (resources
 * {@code io/strata/pcm/policies/LABEL.properties}), then each {@code LABEL.properties} in the
 * operator's policy directory, which replaces the shipped policy of its class. A file is
 * {@code key=value} lines with {@code #} comments. Any fault (a file for no class, an unknown or
 * repeated key, a bad value, heap shares HBase would refuse) stops the load with a
 * {@link PolicyException} naming the file, the line's key and the reason: a policy is never
 * partly applied or silently defaulted. Stateless: safe from any thread.
 */
public final class PolicyLoader {
  private static final String RESOURCES = "io/strata/pcm/policies/";
  /** HBase refuses to start when memstore and block cache take more of the heap than this. */
  static final double HEAP_SHARE_LIMIT = 0.8;

  private PolicyLoader() {
  }

  /** A policy file that cannot be used: its message names the file, the key and the reason. */
  public static final class PolicyException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    PolicyException(String source, String key, String reason) {
      super("policy " + source + (key == null ? "" : ", key " + key) + ": " + reason);
    }
  }

  /** The shipped policies overlaid with those in {@code dir} (null: none). */
  public static Map<WorkloadClass, Policy> load(File dir) throws IOException {
    Map<WorkloadClass, Policy> policies = new EnumMap<>(WorkloadClass.class);
    for (WorkloadClass c : WorkloadClass.values()) {
      String res = RESOURCES + c.label() + ".properties";
      try (InputStream in = PolicyLoader.class.getClassLoader().getResourceAsStream(res)) {
        if (in == null) {
          throw new PolicyException("classpath:" + res, null, "the shipped policy is missing");
        }
        policies.put(c, parse("classpath:" + res, c,
          new InputStreamReader(in, StandardCharsets.UTF_8)));
      }
    }
    if (dir != null) {
      if (!dir.isDirectory()) {
        throw new PolicyException(dir.toString(), PcmKeys.POLICY_DIR, "not a directory");
      }
      File[] files = dir.listFiles((d, n) -> n.endsWith(".properties"));
      if (files != null) {
        for (File f : files) {
          policies.put(classOf(f), parseFile(f));
        }
      }
    }
    return policies;
  }

  /** Parses one operator file; its name must be a class's label. */
  public static Policy parseFile(File f) throws IOException {
    try (Reader r = Files.newBufferedReader(f.toPath(), StandardCharsets.UTF_8)) {
      return parse(f.toString(), classOf(f), r);
    }
  }

  private static WorkloadClass classOf(File f) {
    String base = f.getName().replaceFirst("\\.properties$", "");
    WorkloadClass c = WorkloadClass.fromLabel(base);
    if (c == null) {
      StringBuilder labels = new StringBuilder();
      for (WorkloadClass w : WorkloadClass.values()) {
        labels.append(labels.length() == 0 ? "" : ", ").append(w.label());
      }
      throw new PolicyException(f.toString(), null, "the file name '" + base
        + "' is not a workload class; name it after one of " + labels);
    }
    return c;
  }

  static Policy parse(String source, WorkloadClass c, Reader reader) throws IOException {
    Map<PolicyKey, PolicyValue> values = new LinkedHashMap<>();
    BufferedReader in = new BufferedReader(reader);
    String line;
    int no = 0;
    while ((line = in.readLine()) != null) {
      no++;
      String t = line.trim();
      if (t.isEmpty() || t.startsWith("#")) {
        continue;
      }
      int eq = t.indexOf('=');
      if (eq <= 0) {
        throw new PolicyException(source, null, "line " + no + " '" + t + "' is not key=value");
      }
      String name = t.substring(0, eq).trim();
      String raw = t.substring(eq + 1).trim();
      PolicyKey key = PolicyKey.of(name);
      if (key == null) {
        throw new PolicyException(source, name, "unknown key (line " + no + "); a policy may set "
          + known());
      }
      if (values.containsKey(key)) {
        throw new PolicyException(source, name, "set twice (again on line " + no + ")");
      }
      if (raw.isEmpty()) {
        throw new PolicyException(source, name, "no value (line " + no + ")");
      }
      try {
        values.put(key, key.parse(raw));
      } catch (IllegalArgumentException e) {
        throw new PolicyException(source, name, e.getMessage() + " (line " + no + ")");
      }
    }
    if (values.isEmpty()) {
      throw new PolicyException(source, null, "sets nothing");
    }
    checkHeapShares(source, values);
    return new Policy(c, source, values);
  }

  /** Memstore plus block cache within HBase's limit: else every RegionServer would refuse to start. */
  private static void checkHeapShares(String source, Map<PolicyKey, PolicyValue> values) {
    PolicyValue mem = values.get(PolicyKey.of(PolicyKey.GLOBAL_MEMSTORE));
    PolicyValue cache = values.get(PolicyKey.of(PolicyKey.BLOCK_CACHE));
    double m = mem == null ? 0.4 : mem.number();
    double b = cache == null ? 0.4 : cache.number();
    if (m + b > HEAP_SHARE_LIMIT + 1e-9) {
      throw new PolicyException(source, mem != null ? PolicyKey.GLOBAL_MEMSTORE
        : PolicyKey.BLOCK_CACHE, "memstore " + m + " plus block cache " + b + " exceed "
        + HEAP_SHARE_LIMIT + " of the heap, which HBase refuses to start with (unset keys count "
        + "at HBase's default 0.4)");
    }
  }

  private static String known() {
    StringBuilder sb = new StringBuilder();
    for (PolicyKey k : PolicyKey.all()) {
      sb.append(sb.length() == 0 ? "" : ", ").append(k.name());
    }
    return sb.toString();
  }
}
