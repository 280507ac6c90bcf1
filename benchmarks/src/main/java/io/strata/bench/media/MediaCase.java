package io.strata.bench.media;

import io.strata.hbase.tiering.TieringKeys;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hbase.HConstants;

/**
 * One case of the storage-media paper's Table 1: a dataset size and the medium of each kind of
 * HBase data, mapped to Strata's placement keys.
 *
 * <p>The storage-media paper: <i>Optimize Hadoop Cluster Performance with Various Storage Media</i>.
 *
 * @param name the paper's case name, e.g. {@code 1T_RAM_SSD_HDD}
 * @param dataset which of the paper's two dataset sizes
 * @param wal live WALs ({@link HConstants#WAL_STORAGE_POLICY}, a RegionServer-wide key; RAM
 *   also sets {@link TieringKeys#UNSAFE_WAL_VOLATILE_ACCEPT}, every replica being on tmpfs)
 * @param oldWal rolled WALs ({@link TieringKeys#OLDWAL_POLICY})
 * @param flushed flushed HFiles ({@link TieringKeys#FLUSH_POLICY})
 * @param compactedSmall compactions below the size threshold
 * @param compactedLarge compactions at or above it
 * @param archived archived HFiles ({@link TieringKeys#ARCHIVE_POLICY})
 * @param study what the paper's Table 1 says of the case
 * @param ssd the SSD volumes of every DataNode and their controller cap (one volume, no cap for
 *   the cases of Table 1; the SSD-count cases of the paper's Figures 4 and 5 vary it)
 */
public record MediaCase(String name, Dataset dataset, Medium wal, Medium oldWal, Medium flushed,
  Medium compactedSmall, Medium compactedLarge, Medium archived, String study, SsdSetup ssd) {

  /** A case of Table 1: one SSD volume per DataNode, no controller cap. */
  public MediaCase(String name, Dataset dataset, Medium wal, Medium oldWal, Medium flushed,
    Medium compactedSmall, Medium compactedLarge, Medium archived, String study) {
    this(name, dataset, wal, oldWal, flushed, compactedSmall, compactedLarge, archived, study,
      SsdSetup.ONE_VOLUME);
  }

  /** The same placement on other SSDs, under another name. */
  public MediaCase on(SsdSetup setup, String newName, String newStudy) {
    return new MediaCase(newName, dataset, wal, oldWal, flushed, compactedSmall, compactedLarge,
      archived, newStudy, setup);
  }

  /** The HBase site keys that place this case's data; {@code threshold} in bytes. */
  public Map<String, String> hbaseKeys(long threshold) {
    Map<String, String> keys = new LinkedHashMap<>();
    keys.put(HConstants.WAL_STORAGE_POLICY, wal.policy());
    keys.put(TieringKeys.OLDWAL_POLICY, oldWal.policy());
    keys.put(TieringKeys.FLUSH_POLICY, flushed.policy());
    keys.put(TieringKeys.COMPACTION_SMALL_POLICY, compactedSmall.policy());
    keys.put(TieringKeys.COMPACTION_LARGE_POLICY, compactedLarge.policy());
    keys.put(TieringKeys.COMPACTION_THRESHOLD, Long.toString(threshold));
    keys.put(TieringKeys.ARCHIVE_POLICY, archived.policy());
    // The study's WAL-in-RAMDISK cases keep every WAL replica on the tmpfs RAM tier, lost on
    // reboot: the RegionServers and the master refuse that unless the risk is accepted. Set for
    // every case (false where not needed), so that a case does not inherit the previous one's.
    keys.put(TieringKeys.UNSAFE_WAL_VOLATILE_ACCEPT, Boolean.toString(wal == Medium.RAM));
    return keys;
  }

  /**
   * The HBase keys of the study's tuning (its Table 8) that every case shares: 15 store files
   * before updates block, 200 handlers, WALs in 4 groups, the memstore chunk pool.
   */
  public static Map<String, String> studyHBaseTuning() {
    Map<String, String> keys = new LinkedHashMap<>();
    keys.put("hbase.hstore.blockingStoreFiles", "15");
    keys.put("hbase.regionserver.handler.count", "200");
    keys.put("hbase.wal.provider", "multiwal");
    keys.put("hbase.wal.regiongrouping.numgroups", "4");
    keys.put("hbase.hregion.memstore.chunkpool.maxsize", "1");
    keys.put("hbase.hregion.memstore.chunkpool.initialsize", "0.5");
    return keys;
  }

  /** The HDFS keys of the study's tuning (its Table 8): DataNode and NameNode handlers. */
  public static Map<String, String> studyDfsTuning() {
    Map<String, String> keys = new LinkedHashMap<>();
    keys.put("dfs.datanode.handler.count", "64");
    keys.put("dfs.namenode.handler.count", "100");
    return keys;
  }

  /**
   * The study's per-case tuning (its Table 8): 8 small-compaction threads and 15 flushers for
   * every case with SSD in it, 3 and 5 for the others (HDDs share one channel between reads and
   * writes, and more flushers and compactors there only contend).
   */
  public Map<String, String> studyTuning() {
    boolean ssd = List.of(wal, oldWal, flushed, compactedSmall, compactedLarge, archived)
      .contains(Medium.SSD);
    Map<String, String> keys = new LinkedHashMap<>();
    keys.put("hbase.regionserver.thread.compaction.small", ssd ? "8" : "3");
    keys.put("hbase.hstore.flusher.count", ssd ? "15" : "5");
    return keys;
  }

  /**
   * The medium of what the paper calls "other files": in every case of Table 1 that is where the
   * archived files go. The root directory gets its policy, for the files Strata does not place.
   */
  public Medium rest() {
    return archived;
  }

  /** Whether every kind of data is on {@code m}: the single-medium cases. */
  public boolean allOn(Medium m) {
    return wal == m && oldWal == m && flushed == m && compactedSmall == m && compactedLarge == m
      && archived == m;
  }
}
