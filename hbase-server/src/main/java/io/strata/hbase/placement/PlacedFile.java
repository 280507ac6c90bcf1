package io.strata.hbase.placement;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import org.apache.hadoop.fs.StorageType;

/**
 * One file of the report: where it is, what it is, where its replicas are, and which storage
 * policy Strata's rules choose for it and by which rule. Immutable.
 */
public final class PlacedFile {
  private final String path;
  private final FileKind kind;
  private final long bytes;
  private final Map<StorageType, Long> replicas;
  private final PolicyRule rule;

  public PlacedFile(String path, FileKind kind, long bytes, Map<StorageType, Long> replicas) {
    this(path, kind, bytes, replicas, null);
  }

  /**
   * @param rule the policy chosen for the file and the rule that chose it, or null when no rule
   *             of Strata's or upstream's places this kind of file
   */
  public PlacedFile(String path, FileKind kind, long bytes, Map<StorageType, Long> replicas,
    PolicyRule rule) {
    this.path = path;
    this.kind = kind;
    this.bytes = bytes;
    this.replicas = Collections.unmodifiableMap(new EnumMap<>(replicas));
    this.rule = rule;
  }

  /** The policy the rules choose for this file and the rule that chose it; null if none. */
  public PolicyRule rule() {
    return rule;
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
