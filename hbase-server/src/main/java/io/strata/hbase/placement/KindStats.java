package io.strata.hbase.placement;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import org.apache.hadoop.fs.StorageType;

/** Files, bytes and block replicas per storage type of one kind of file. */
public final class KindStats {
  private long files;
  private long bytes;
  private final EnumMap<StorageType, Long> replicas = new EnumMap<>(StorageType.class);

  void add(long fileBytes, Map<StorageType, Long> fileReplicas) {
    files++;
    bytes += fileBytes;
    fileReplicas.forEach((type, n) -> replicas.merge(type, n, Long::sum));
  }

  public long files() {
    return files;
  }

  public long bytes() {
    return bytes;
  }

  /** Replicas of this kind's blocks per storage type, as the NameNode reports their locations. */
  public Map<StorageType, Long> replicas() {
    return Collections.unmodifiableMap(replicas);
  }

  public long totalReplicas() {
    return replicas.values().stream().mapToLong(Long::longValue).sum();
  }

  /** Fraction of this kind's replicas on {@code type}; 0 when it has no replicas. */
  public double share(StorageType type) {
    long total = totalReplicas();
    return total == 0 ? 0.0 : replicas.getOrDefault(type, 0L) / (double) total;
  }
}
