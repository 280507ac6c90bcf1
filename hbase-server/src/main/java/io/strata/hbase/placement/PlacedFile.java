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
  private final Long ageMs;

  public PlacedFile(String path, FileKind kind, long bytes, Map<StorageType, Long> replicas) {
    this(path, kind, bytes, replicas, null);
  }

  public PlacedFile(String path, FileKind kind, long bytes, Map<StorageType, Long> replicas,
    PolicyRule rule) {
    this(path, kind, bytes, replicas, rule, null);
  }

  /**
   * @param rule the policy chosen for the file and the rule that chose it, or null when no rule
   *             of Strata's or upstream's places this kind of file
   * @param ageMs for a store file, the age of its newest cell when the report ran (its
   *              {@code TIMERANGE}); null for other files or a store file without one
   */
  public PlacedFile(String path, FileKind kind, long bytes, Map<StorageType, Long> replicas,
    PolicyRule rule, Long ageMs) {
    this.path = path;
    this.kind = kind;
    this.bytes = bytes;
    this.replicas = Collections.unmodifiableMap(new EnumMap<>(replicas));
    this.rule = rule;
    this.ageMs = ageMs;
  }

  /** The age of the newest cell of a store file, in ms; null when not a store file or unknown. */
  public Long ageMs() {
    return ageMs;
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
