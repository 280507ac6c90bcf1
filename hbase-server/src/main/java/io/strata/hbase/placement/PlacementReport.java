package io.strata.hbase.placement;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.strata.cli.JsonReports;
import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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

  /** The JSON document described in docs/placement.md: {@code {"root":..., "kinds": {...}}}. */
  public ObjectNode toJson() {
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
    return doc;
  }

  public void writeJson(File out) throws IOException {
    JsonReports.write(out, toJson());
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
