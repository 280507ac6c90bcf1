package io.strata.hbase.placement;

import java.io.IOException;
import java.util.Map;
import org.apache.hadoop.hbase.regionserver.HStoreFile;
import org.apache.hadoop.hbase.shaded.protobuf.ProtobufUtil;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Tells a flushed store file from a compacted one by its file info, which upstream HBase writes
 * the same way: every writer of a store file records {@code MAJOR_COMPACTION_KEY}; a flush
 * ({@code StoreFlusher}) records an empty {@code COMPACTION_EVENT_KEY}, a compaction
 * ({@code DefaultCompactor}, {@code AbstractMultiFileWriter}) the names of the files it compacted,
 * never empty since HBASE-20724 (HBase 2.1). A bulk-loaded file carries {@code BULKLOAD_TIMESTAMP}.
 *
 * <p>Rule: bulk-loaded if {@code BULKLOAD_TIMESTAMP} is present; else compacted if
 * {@code MAJOR_COMPACTION_KEY} is true or {@code COMPACTION_EVENT_KEY} names at least one file;
 * else flushed. (A minor-compaction output written by HBase older than 2.1 has no event key and
 * counts as flushed.)
 */
public enum StoreFileOrigin {
  FLUSH, COMPACTION, BULK_LOAD;

  public static StoreFileOrigin of(Map<byte[], byte[]> fileInfo) throws IOException {
    if (fileInfo.containsKey(HStoreFile.BULKLOAD_TIME_KEY)) {
      return BULK_LOAD;
    }
    byte[] major = fileInfo.get(HStoreFile.MAJOR_COMPACTION_KEY);
    if (major != null && Bytes.toBoolean(major)) {
      return COMPACTION;
    }
    byte[] events = fileInfo.get(HStoreFile.COMPACTION_EVENT_KEY);
    if (events != null && !ProtobufUtil.toCompactedStoreFiles(events).isEmpty()) {
      return COMPACTION;
    }
    return FLUSH;
  }

  /** The report kind of a store file found in a family directory (not archived). */
  public FileKind kind() {
    switch (this) {
      case FLUSH:
        return FileKind.FLUSHED;
      case COMPACTION:
        return FileKind.COMPACTED;
      default:
        return FileKind.BULKLOADED;
    }
  }
}
