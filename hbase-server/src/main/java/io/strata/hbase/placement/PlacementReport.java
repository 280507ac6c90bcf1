package io.strata.hbase.placement;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.strata.cli.JsonReports;
import io.strata.hbase.tiering.StoreEngines;
import io.strata.hbase.tiering.TierPolicies;
import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.fs.StorageType;

/**
 * Where an HBase root directory's files are, per kind of file and HDFS storage type, counted from
 * the block locations the NameNode reports (not from policy names). Every kind is present, with
 * zeros when there is no such file.
 */
public final class PlacementReport {
  private final String root;
  private final EnumMap<FileKind, KindStats> kinds = new EnumMap<>(FileKind.class);
  private final List<PlacedFile> files = new ArrayList<>();
  private Map<String, TierPolicies> familyPolicies = Collections.emptyMap();
  private Map<String, String> familyEngines = Collections.emptyMap();

  public PlacementReport(String root) {
    this.root = root;
    for (FileKind kind : FileKind.values()) {
      kinds.put(kind, new KindStats());
    }
  }

  void add(PlacedFile file) {
    files.add(file);
    kinds.get(file.kind()).add(file.bytes(), file.replicas());
  }

  public String root() {
    return root;
  }

  public KindStats kind(FileKind kind) {
    return kinds.get(kind);
  }

  public List<PlacedFile> files() {
    return Collections.unmodifiableList(files);
  }

  void setFamilyPolicies(Map<String, TierPolicies> policies) {
    this.familyPolicies = new TreeMap<>(policies);
  }

  void setFamilyEngines(Map<String, String> engines) {
    this.familyEngines = new TreeMap<>(engines);
  }

  /**
   * The store engine class each column family of {@link #familyPolicies()} runs, resolved as
   * HBase resolves {@code hbase.hstore.engine.class} (family, table, then this tool's site
   * configuration). An engine that is not Strata's applies none of the policies listed.
   */
  public Map<String, String> familyEngines() {
    return Collections.unmodifiableMap(familyEngines);
  }

  /**
   * The policies the placement rules choose for each column family that has store files or
   * archived files under the root ("ns:table/family"), each with the rule that chose it.
   */
  public Map<String, TierPolicies> familyPolicies() {
    return Collections.unmodifiableMap(familyPolicies);
  }

  /**
   * The JSON document described in docs/placement.md: {@code {"root":..., "kinds": {...},
   * "families": {...}}}, without the file list.
   */
  public ObjectNode toJson() {
    return toJson(false);
  }

  /**
   * The JSON document; with {@code withFiles}, also {@code "files": [...]}: every file with its
   * kind, bytes, replicas, and the policy chosen for it with its rule.
   */
  public ObjectNode toJson(boolean withFiles) {
    ObjectMapper mapper = new ObjectMapper();
    ObjectNode doc = mapper.createObjectNode();
    doc.put("root", root);
    ObjectNode kindsNode = doc.putObject("kinds");
    for (Map.Entry<FileKind, KindStats> e : kinds.entrySet()) {
      KindStats s = e.getValue();
      ObjectNode k = kindsNode.putObject(e.getKey().jsonName());
      k.put("files", s.files());
      k.put("bytes", s.bytes());
      ObjectNode replicas = k.putObject("replicas");
      s.replicas().forEach((type, n) -> replicas.put(type.name(), n));
      ObjectNode share = k.putObject("share");
      s.replicas().keySet().forEach(type -> share.put(type.name(), s.share(type)));
    }
    ObjectNode familiesNode = doc.putObject("families");
    for (Map.Entry<String, TierPolicies> e : familyPolicies.entrySet()) {
      ObjectNode f = familiesNode.putObject(e.getKey());
      String engine = familyEngines.get(e.getKey());
      if (engine != null) {
        f.put("engine", engine);
        f.put("engine_places", StoreEngines.places(engine));
      }
      for (Map.Entry<TierPolicies.Kind, TierPolicies.Choice> c : e.getValue().choices()
        .entrySet()) {
        if (c.getKey() == TierPolicies.Kind.OLDWAL) {
          continue; // rolled WALs belong to no family
        }
        ObjectNode k = f.putObject(c.getKey().name().toLowerCase(Locale.ROOT));
        k.put("policy", c.getValue().policy());
        k.put("rule", c.getValue().rule());
      }
      f.put("compaction_threshold_bytes", e.getValue().compactionThreshold());
      f.put("age_threshold_ms", e.getValue().ageThresholdMs());
      f.put("age_rule", e.getValue().ageRule());
    }
    if (withFiles) {
      ArrayNode filesNode = doc.putArray("files");
      for (PlacedFile file : files) {
        ObjectNode f = filesNode.addObject();
        f.put("path", file.path());
        f.put("kind", file.kind().jsonName());
        f.put("bytes", file.bytes());
        ObjectNode replicas = f.putObject("replicas");
        file.replicas().forEach((type, n) -> replicas.put(type.name(), n));
        if (file.ageMs() != null) {
          f.put("age_ms", file.ageMs());
        }
        if (file.rule() != null) {
          f.put("policy", file.rule().policy());
          f.put("rule", file.rule().rule());
        }
      }
    }
    return doc;
  }

  public void writeJson(File out) throws IOException {
    JsonReports.write(out, toJson());
  }

  /** Writes {@link #toJson(boolean)}. */
  public void writeJson(File out, boolean withFiles) throws IOException {
    JsonReports.write(out, toJson(withFiles));
  }

  /**
   * One line per column family: the policy of each kind of store file and the rule that chose
   * it, as the store's log line says it.
   */
  public String policiesTable() {
    StringBuilder sb = new StringBuilder();
    if (familyPolicies.isEmpty()) {
      return sb.toString();
    }
    sb.append("Policies chosen per column family (rule in parentheses; site rules from this "
      + "tool's configuration)\n");
    for (Map.Entry<String, TierPolicies> e : familyPolicies.entrySet()) {
      sb.append("  ").append(e.getKey()).append(": ").append(e.getValue().describe());
      String engine = familyEngines.get(e.getKey());
      if (engine != null) {
        sb.append(" [engine ").append(engine)
          .append(StoreEngines.places(engine) ? "]" : "; Strata's placement off: these "
            + "policies are not applied]");
      }
      sb.append('\n');
    }
    return sb.toString();
  }

  /** A fixed-width table: one row per kind, replica shares per storage type. */
  public String toTable() {
    List<StorageType> types = new ArrayList<>();
    for (StorageType t : StorageType.values()) {
      boolean seen = kinds.values().stream().anyMatch(s -> s.replicas().containsKey(t));
      if (seen) {
        types.add(t);
      }
    }
    StringBuilder sb = new StringBuilder();
    sb.append("Placement of ").append(root).append(" (replicas per storage type, from block locations)\n");
    sb.append(String.format(Locale.ROOT, "%-10s %7s %12s %9s", "kind", "files", "bytes", "replicas"));
    for (StorageType t : types) {
      sb.append(String.format(Locale.ROOT, " %16s", t.name()));
    }
    sb.append('\n');
    for (Map.Entry<FileKind, KindStats> e : kinds.entrySet()) {
      KindStats s = e.getValue();
      sb.append(String.format(Locale.ROOT, "%-10s %7d %12s %9d", e.getKey().jsonName(), s.files(),
        humanBytes(s.bytes()), s.totalReplicas()));
      for (StorageType t : types) {
        long n = s.replicas().getOrDefault(t, 0L);
        String cell = n == 0 ? "-" : String.format(Locale.ROOT, "%d (%.1f%%)", n, 100 * s.share(t));
        sb.append(String.format(Locale.ROOT, " %16s", cell));
      }
      sb.append('\n');
    }
    return sb.toString();
  }

  static String humanBytes(long bytes) {
    if (bytes < 1024) {
      return bytes + " B";
    }
    String[] units = { "KiB", "MiB", "GiB", "TiB" };
    double v = bytes;
    int u = -1;
    while (v >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return String.format(Locale.ROOT, "%.1f %s", v, units[u]);
  }
}
