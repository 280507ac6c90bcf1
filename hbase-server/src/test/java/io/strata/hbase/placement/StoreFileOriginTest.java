package io.strata.hbase.placement;

import static org.junit.Assert.assertEquals;

import java.util.Collections;
import java.util.Set;
import java.util.TreeMap;
import org.apache.hadoop.hbase.regionserver.HStoreFile;
import org.apache.hadoop.hbase.shaded.protobuf.ProtobufUtil;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.Test;

public class StoreFileOriginTest {

  private static TreeMap<byte[], byte[]> info(boolean major, Set<String> compacted) {
    TreeMap<byte[], byte[]> m = new TreeMap<>(Bytes.BYTES_COMPARATOR);
    m.put(HStoreFile.MAJOR_COMPACTION_KEY, Bytes.toBytes(major));
    m.put(HStoreFile.COMPACTION_EVENT_KEY, ProtobufUtil.toCompactionEventTrackerBytes(compacted));
    return m;
  }

  @Test
  public void flushHasNoCompactedFiles() throws Exception {
    assertEquals(StoreFileOrigin.FLUSH, StoreFileOrigin.of(info(false, Collections.emptySet())));
  }

  @Test
  public void minorCompactionNamesItsInputs() throws Exception {
    assertEquals(StoreFileOrigin.COMPACTION, StoreFileOrigin.of(info(false, Set.of("a", "b"))));
  }

  @Test
  public void majorCompactionIsACompactionEvenWithoutEventKey() throws Exception {
    TreeMap<byte[], byte[]> m = new TreeMap<>(Bytes.BYTES_COMPARATOR);
    m.put(HStoreFile.MAJOR_COMPACTION_KEY, Bytes.toBytes(true));
    assertEquals(StoreFileOrigin.COMPACTION, StoreFileOrigin.of(m));
  }

  @Test
  public void fileWithoutKeysCountsAsFlushed() throws Exception {
    assertEquals(StoreFileOrigin.FLUSH,
      StoreFileOrigin.of(new TreeMap<>(Bytes.BYTES_COMPARATOR)));
  }

  @Test
  public void bulkLoadedFilesAreTheirOwnKind() throws Exception {
    TreeMap<byte[], byte[]> m = info(false, Collections.emptySet());
    m.put(HStoreFile.BULKLOAD_TIME_KEY, Bytes.toBytes(1L));
    assertEquals(StoreFileOrigin.BULK_LOAD, StoreFileOrigin.of(m));
    assertEquals(FileKind.BULKLOADED, StoreFileOrigin.BULK_LOAD.kind());
  }
}
