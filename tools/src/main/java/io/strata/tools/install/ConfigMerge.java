package io.strata.tools.install;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * Merges Strata's keys (a snippet) into one live Hadoop or HBase configuration file, in place in
 * its DOM, so that everything the cluster already had stays as it was: comments, order, its
 * identity, its security. Pure logic over two parsed documents; not thread-safe (one per file).
 *
 * <ul>
 * <li>A list-valued key (coprocessor classes, DataNode data directories) is appended to: entries
 * it lacks go at the end, none is removed or reordered.</li>
 * <li>Any other key is added when the live file lacks it, left when it has the same value, and
 * refused when it has another value or is final: the operator set it for a reason the merge cannot
 * know.</li>
 * <li>Identity keys (where the cluster is, who it is, how it authenticates) are never written; a
 * snippet naming one is a defect of the snippet, not a merge.</li>
 * </ul>
 */
final class ConfigMerge {
  /** Keys whose value is a comma-separated list that Strata adds entries to. */
  static final Set<String> LIST_KEYS = Set.of("hbase.coprocessor.master.classes",
    "hbase.coprocessor.regionserver.classes", "hbase.coprocessor.region.classes",
    "hbase.coprocessor.wal.classes", "hbase.coprocessor.user.region.classes",
    "dfs.datanode.data.dir", "dfs.datanode.plugins");
  /** Prefixes of the keys that say where the cluster is and who it is: never written. */
  static final List<String> IDENTITY = List.of("fs.defaultFS", "hbase.rootdir",
    "hbase.zookeeper.", "hbase.cluster.distributed", "dfs.nameservices", "dfs.internal.nameservices",
    "dfs.ha.", "dfs.client.failover.", "dfs.namenode.rpc-address", "dfs.namenode.servicerpc-address",
    "dfs.namenode.lifeline.rpc-address", "dfs.namenode.http-address", "dfs.namenode.https-address",
    "dfs.namenode.name.dir", "dfs.namenode.edits.dir", "dfs.namenode.shared.edits.dir",
    "dfs.journalnode.", "dfs.replication", "dfs.datanode.address", "dfs.datanode.http.address",
    "dfs.datanode.https.address", "dfs.datanode.ipc.address", "hadoop.security.", "hbase.security.",
    "hadoop.rpc.protection", "hbase.rpc.protection", "dfs.data.transfer.protection",
    "dfs.block.access.token.enable", "dfs.namenode.kerberos.", "dfs.datanode.kerberos.",
    "dfs.web.authentication.", "hbase.master.kerberos.", "hbase.regionserver.kerberos.",
    "hbase.master.keytab.", "hbase.regionserver.keytab.", "hbase.superuser", "hbase.tmp.dir",
    "hadoop.tmp.dir");
  /** HDFS's storage types, as a data directory's tag names them. */
  static final Set<String> STORAGE_TYPES = Set.of("RAM_DISK", "NVDIMM", "SSD", "DISK", "ARCHIVE",
    "PROVIDED");
  private static final String DATA_DIRS = "dfs.datanode.data.dir";

  /** What the merge did with one key. */
  enum Action { ADDED, APPENDED, UNCHANGED, REFUSED }

  /** One key's outcome, for the report. */
  static final class Change {
    private final String file;
    private final String key;
    private final Action action;
    private final String detail;

    Change(String file, String key, Action action, String detail) {
      this.file = file;
      this.key = key;
      this.action = action;
      this.detail = detail;
    }

    String key() {
      return key;
    }

    Action action() {
      return action;
    }

    @Override
    public String toString() {
      return String.format(Locale.ROOT, "%-15s %-8s %s: %s", file, action, key, detail);
    }
  }

  private final String file;
  private final Document live;
  private final List<Change> changes = new ArrayList<>();

  ConfigMerge(String file, Document live) {
    this.file = file;
    this.live = live;
  }

  List<Change> changes() {
    return changes;
  }

  static boolean identity(String key) {
    for (String p : IDENTITY) {
      if (p.endsWith(".") ? key.startsWith(p) : key.equals(p) || key.startsWith(p + ".")) {
        return true;
      }
    }
    return false;
  }

  /** Merges every property of the snippet into the live document. */
  void mergeSnippet(Document snippet) {
    for (Map.Entry<String, String> e : properties(snippet).entrySet()) {
      String key = e.getKey();
      if (identity(key)) {
        throw new IllegalStateException("the snippet for " + file + " names " + key + ", one of "
          + "the cluster's identity keys, which install-check never writes");
      }
      if (LIST_KEYS.contains(key)) {
        append(key, List.of(e.getValue().split(",")), "Strata's " + key);
      } else {
        set(key, e.getValue().trim());
      }
    }
  }

  /**
   * Appends DataNode volumes, each {@code TYPE=PATH}, to {@code dfs.datanode.data.dir}: refused
   * when the live file has no such key (its DataNodes then use a default directory that an
   * explicit list would drop, with every block in it), or when a path is already a volume of
   * another type.
   */
  void addDataDirs(List<String> typedPaths) {
    if (typedPaths.isEmpty()) {
      return;
    }
    Element p = property(DATA_DIRS);
    if (p == null) {
      changes.add(new Change(file, DATA_DIRS, Action.REFUSED, "the live file does not set it, so "
        + "its DataNodes use the default under hadoop.tmp.dir; a list naming only the new "
        + "volumes would drop that directory and every block in it: set the existing "
        + "directories first, then run install-check again"));
      return;
    }
    Map<String, String> existing = new LinkedHashMap<>();
    for (String entry : value(p).split(",")) {
      if (!entry.isBlank()) {
        existing.put(path(entry), type(entry));
      }
    }
    List<String> add = new ArrayList<>();
    for (String typed : typedPaths) {
      int eq = typed.indexOf('=');
      String type = typed.substring(0, eq).trim().toUpperCase(Locale.ROOT);
      String path = typed.substring(eq + 1).trim();
      String had = existing.get(path(path));
      if (had != null && !had.equals(type)) {
        changes.add(new Change(file, DATA_DIRS, Action.REFUSED, path + " is already a [" + had
          + "] volume of this DataNode; giving it to the " + type + " tier would move its blocks' "
          + "storage type under them: choose another directory"));
        return;
      }
      if (had == null) {
        add.add("[" + type + "]" + path);
      }
    }
    append(DATA_DIRS, add, "the new tier volumes");
  }

  private void append(String key, List<String> entries, String what) {
    Element p = property(key);
    List<String> wanted = new ArrayList<>();
    for (String v : entries) {
      if (!v.isBlank()) {
        wanted.add(v.trim());
      }
    }
    if (p == null) {
      addProperty(key, String.join(",", wanted), what);
      changes.add(new Change(file, key, Action.ADDED, String.join(",", wanted)));
      return;
    }
    String had = value(p);
    List<String> have = new ArrayList<>();
    for (String v : had.split(",")) {
      if (!v.isBlank()) {
        have.add(v.trim());
      }
    }
    List<String> missing = new ArrayList<>();
    for (String v : wanted) {
      if (!have.contains(v)) {
        missing.add(v);
      }
    }
    if (missing.isEmpty()) {
      changes.add(new Change(file, key, Action.UNCHANGED, "already lists " + wanted));
      return;
    }
    if (isFinal(p)) {
      changes.add(new Change(file, key, Action.REFUSED, "final in the live file; Strata needs "
        + missing + " added to it"));
      return;
    }
    String merged = had.trim().isEmpty() ? String.join(",", missing)
      : had.trim() + "," + String.join(",", missing);
    setValue(p, merged);
    changes.add(new Change(file, key, Action.APPENDED, "kept " + have + ", added " + missing));
  }

  private void set(String key, String value) {
    Element p = property(key);
    if (p == null) {
      addProperty(key, value, "Strata's " + key);
      changes.add(new Change(file, key, Action.ADDED, value));
      return;
    }
    String had = value(p).trim();
    if (had.equals(value)) {
      changes.add(new Change(file, key, Action.UNCHANGED, value));
      return;
    }
    changes.add(new Change(file, key, Action.REFUSED, "the live file sets " + had
      + (isFinal(p) ? " (final)" : "") + ", Strata needs " + value + "; left as it is: decide "
      + "which one this cluster needs and set it by hand"));
  }

  /** The live document's property elements by name (the last wins, as Hadoop reads them). */
  static Map<String, String> properties(Document d) {
    Map<String, String> out = new LinkedHashMap<>();
    NodeList ps = d.getDocumentElement().getElementsByTagName("property");
    for (int i = 0; i < ps.getLength(); i++) {
      Element p = (Element) ps.item(i);
      String name = child(p, "name");
      if (name != null) {
        out.put(name.trim(), value(p));
      }
    }
    return out;
  }

  private Element property(String key) {
    NodeList ps = live.getDocumentElement().getElementsByTagName("property");
    Element found = null;
    for (int i = 0; i < ps.getLength(); i++) {
      Element p = (Element) ps.item(i);
      String name = child(p, "name");
      if (name != null && name.trim().equals(key)) {
        found = p;
      }
    }
    return found;
  }

  private static String child(Element p, String tag) {
    NodeList n = p.getElementsByTagName(tag);
    return n.getLength() == 0 ? null : n.item(0).getTextContent();
  }

  private static String value(Element p) {
    String v = child(p, "value");
    return v == null ? "" : v;
  }

  private static boolean isFinal(Element p) {
    String f = child(p, "final");
    return f != null && f.trim().equalsIgnoreCase("true");
  }

  private static void setValue(Element p, String value) {
    NodeList n = p.getElementsByTagName("value");
    n.item(0).setTextContent(value);
  }

  private void addProperty(String key, String value, String what) {
    Element root = live.getDocumentElement();
    root.appendChild(live.createTextNode("\n  "));
    root.appendChild(live.createComment(" added by strata install-check: " + what + " "));
    root.appendChild(live.createTextNode("\n  "));
    Element p = live.createElement("property");
    p.appendChild(live.createTextNode("\n    "));
    Element n = live.createElement("name");
    n.setTextContent(key);
    p.appendChild(n);
    p.appendChild(live.createTextNode("\n    "));
    Element v = live.createElement("value");
    v.setTextContent(value);
    p.appendChild(v);
    p.appendChild(live.createTextNode("\n  "));
    root.appendChild(p);
    root.appendChild(live.createTextNode("\n"));
  }

  /** A data directory entry's path, without its tag, scheme or trailing slash. */
  private static String path(String entry) {
    String s = entry.trim();
    if (s.startsWith("[")) {
      s = s.substring(s.indexOf(']') + 1);
    }
    if (s.startsWith("file://")) {
      s = s.substring("file://".length());
    }
    while (s.length() > 1 && s.endsWith("/")) {
      s = s.substring(0, s.length() - 1);
    }
    return s;
  }

  /** A data directory entry's storage type; DISK when untagged, as HDFS reads it. */
  private static String type(String entry) {
    String s = entry.trim();
    return s.startsWith("[") ? s.substring(1, s.indexOf(']')).toUpperCase(Locale.ROOT) : "DISK";
  }

  /** Whether a node is this document's configuration element (for callers' sanity checks). */
  static boolean isConfiguration(Node n) {
    return n != null && "configuration".equals(n.getNodeName());
  }
}
