package io.strata.hbase.placement;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import org.apache.hadoop.fs.StorageType;

/** One file of the report: where it is, what it is, and where its replicas are. */
public final class PlacedFile {
  private final String path;
  private final FileKind kind;
  private final long bytes;
  private final Map<StorageType, Long> replicas;

  public PlacedFile(String path, FileKind kind, long bytes, Map<StorageType, Long> replicas) {
    this.path = path;
    this.kind = kind;
    this.bytes = bytes;
    this.replicas = Collections.unmodifiableMap(new EnumMap<>(replicas));
  }

  public String path() {
    return path;
  }

  public FileKind kind() {
    return kind;
  }

  public long bytes() {
    return bytes;
  }

  public Map<StorageType, Long> replicas() {
    return replicas;
  }
}
