package io.strata.hbase.placement;

import java.util.Locale;

/**
 * The kinds of file under an HBase root directory that Strata places on different storage tiers.
 * The order is the order of the placement report.
 */
public enum FileKind {
  /** A live write-ahead log, under {@code WALs/}, or a region's {@code recovered.edits}. */
  WAL,
  /** A rolled write-ahead log that HBase moved to {@code oldWALs/}. */
  OLDWAL,
  /** A store file written by a memstore flush. */
  FLUSHED,
  /** A store file written by a minor or major compaction. */
  COMPACTED,
  /** A store file that HBase moved into {@code archive/} after compacting it away. */
  ARCHIVED,
  /** A store file a bulk load handed to its region (file info {@code BULKLOAD_TIMESTAMP}). */
  BULKLOADED,
  /**
   * Everything else: region and table descriptors, the master's local store,
   * references and links, in-progress {@code .tmp} output, MOB files, snapshots.
   */
  OTHER;

  /** The name used in the JSON report. */
  public String jsonName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
