package io.strata.bench.compare;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.fs.StorageType;

/**
 * Where one configuration's replicas landed at one point of a repetition: the bytes of block
 * replicas per storage type, as the NameNode's block locations say, for each part of HBase's
 * root directory the bench writes to. This is what a configuration's placement did on the same
 * devices, beside what it measured. Written to {@code landing.json} and the report, not to
 * {@code --json} (whose fields the issue fixes).
 */
@JsonPropertyOrder({ "config", "rep", "when", "bytes" })
record ReplicaLanding(@JsonProperty("config") String config, @JsonProperty("rep") int rep,
  @JsonProperty("when") String when,
  @JsonProperty("bytes") Map<String, Map<String, Long>> bytes) {

  /** The parts, by name, and their directories under {@code hbase.rootdir}. */
  static final Map<String, String> PARTS = parts();

  private static Map<String, String> parts() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("tables", "data/default");
    m.put("archive", "archive");
    m.put("wals", "WALs");
    m.put("old_wals", "oldWALs");
    return m;
  }

  /** Reads the replicas of every file under each part of the cluster's HBase root. */
  static ReplicaLanding measure(Configuration conf, String config, int rep, String when)
    throws IOException {
    Path root = new Path(conf.get("hbase.rootdir"));
    FileSystem fs = root.getFileSystem(conf);
    Map<String, Map<String, Long>> bytes = new LinkedHashMap<>();
    for (Map.Entry<String, String> part : PARTS.entrySet()) {
      Map<String, Long> byType = new TreeMap<>();
      Path dir = new Path(root, part.getValue());
      if (fs.exists(dir)) {
        RemoteIterator<LocatedFileStatus> files = fs.listFiles(dir, true);
        while (files.hasNext()) {
          for (BlockLocation b : files.next().getBlockLocations()) {
            add(byType, b.getStorageTypes(), b.getLength());
          }
        }
      }
      bytes.put(part.getKey(), byType);
    }
    return new ReplicaLanding(config, rep, when, bytes);
  }

  /** Counts one block's replicas: its length once per replica, under the replica's type. */
  static void add(Map<String, Long> byType, StorageType[] replicas, long length) {
    for (StorageType t : replicas) {
      byType.merge(t.name(), length, Long::sum);
    }
  }

  /**
   * The report's table: per configuration, moment and part, the replica bytes per storage type
   * summed over the repetitions, as shares of that part's replica bytes.
   */
  static String markdown(List<ReplicaLanding> all) {
    Map<String, Map<String, Long>> sums = new LinkedHashMap<>();
    // Fastest first (HDFS's enum has NVDIMM last: it was added last).
    List<String> types = new ArrayList<>(List.of("RAM_DISK", "NVDIMM", "SSD", "DISK", "ARCHIVE",
      "PROVIDED"));
    for (StorageType t : StorageType.values()) {
      if (!types.contains(t.name())) {
        types.add(t.name());
      }
    }
    List<String> seen = new ArrayList<>();
    for (ReplicaLanding l : all) {
      for (Map.Entry<String, Map<String, Long>> part : l.bytes().entrySet()) {
        String row = l.config() + "\t" + l.when() + "\t" + part.getKey();
        Map<String, Long> s = sums.computeIfAbsent(row, k -> new TreeMap<>());
        part.getValue().forEach((t, n) -> s.merge(t, n, Long::sum));
        part.getValue().keySet().stream().filter(t -> !seen.contains(t)).forEach(seen::add);
      }
    }
    types.retainAll(seen);
    StringBuilder b = new StringBuilder();
    b.append("| configuration | when | part | replica MiB |");
    types.forEach(t -> b.append(' ').append(t).append(" |"));
    b.append("\n|---|---|---|---:|");
    types.forEach(t -> b.append("---:|"));
    b.append('\n');
    for (Map.Entry<String, Map<String, Long>> e : sums.entrySet()) {
      long total = e.getValue().values().stream().mapToLong(Long::longValue).sum();
      if (total == 0) {
        continue;
      }
      String[] k = e.getKey().split("\t");
      b.append(String.format(Locale.ROOT, "| %s | %s | %s | %,.1f |", k[0], k[1], k[2],
        total / (double) (1 << 20)));
      for (String t : types) {
        long n = e.getValue().getOrDefault(t, 0L);
        b.append(n == 0 ? " |" : String.format(Locale.ROOT, " %.0f %% |", 100.0 * n / total));
      }
      b.append('\n');
    }
    return b.toString();
  }
}
