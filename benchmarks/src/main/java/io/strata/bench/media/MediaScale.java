package io.strata.bench.media;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * How big the emulated cluster and the datasets are. Sizes are set relative to the RAM tier of
 * a DataNode: the "50G" dataset fits it with its WALs and compactions, the "1T" one does not.
 * Memstore flush size and the small/large compaction threshold shrink with the data, so that
 * each "1T" region flushes several times and compacts both below and above the threshold, as the
 * paper's 1.5 GB threshold split its compactions. A case's load stops after {@code loadSeconds}
 * (YCSB's {@code maxexecutiontime}), so that cases whose media cannot keep up still fit the
 * time budget; the report says how many records such a case loaded.
 *
 * <p>The storage-media paper: <i>Optimize Hadoop Cluster Performance with Various Storage Media</i>.
 *
 * @param name {@code quick} or {@code full}
 * @param ramTierMiB capacity of each DataNode's RAM (NVDIMM) volume
 * @param fitsRamMiB bytes of record values of the "50G" dataset
 * @param exceedsRamMiB bytes of record values of the "1T" dataset
 * @param fitsRamRegions pre-split regions of the "50G" table (the paper: 18)
 * @param exceedsRamRegions pre-split regions of the "1T" table (the paper: 210)
 * @param flushMiB {@code hbase.hregion.memstore.flush.size}
 * @param thresholdMiB {@code strata.compaction.size.threshold} (the paper's 1.5 GB, scaled)
 * @param blockMiB HDFS block size of HFiles
 * @param walBlockMiB HDFS block size of WALs ({@code hbase.regionserver.hlog.blocksize}): every
 *   open WAL reserves a block on the RAM tier, and the NameNode keeps two more free, so a small
 *   tier needs small WAL blocks to keep room for the WALs waiting to be moved off it
 * @param threads YCSB client threads (the paper: 200)
 * @param writeBufferKiB each YCSB thread's client-side write buffer (the paper ran with client
 *   buffering)
 * @param loadSeconds the longest a case's load runs
 * @param caseTimeout how long YCSB may take in all before the case is reported as failed
 */
public record MediaScale(String name, long ramTierMiB, long fitsRamMiB, long exceedsRamMiB,
  int fitsRamRegions, int exceedsRamRegions, long flushMiB, long thresholdMiB, long blockMiB,
  long walBlockMiB, int threads, int writeBufferKiB, int loadSeconds, Duration caseTimeout) {

  /** About a minute and a half per case on two cores. */
  public static final MediaScale QUICK =
    new MediaScale("quick", 192, 32, 200, 4, 8, 4, 16, 16, 8, 16, 64, 45, Duration.ofMinutes(4));
  /** Several minutes per case. */
  public static final MediaScale FULL =
    new MediaScale("full", 1024, 192, 1536, 8, 16, 16, 64, 64, 32, 32, 256, 900,
      Duration.ofMinutes(20));

  /** Bytes of one YCSB record with the paper's workload: 5 fields of 200 bytes. */
  public static final int RECORD_BYTES = 5 * 200;

  /**
   * The scale of that name.
   *
   * @throws IllegalArgumentException naming the valid ones
   */
  public static MediaScale parse(String name) {
    for (MediaScale s : List.of(QUICK, FULL)) {
      if (s.name().equalsIgnoreCase(name.trim())) {
        return s;
      }
    }
    throw new IllegalArgumentException("unknown scale '" + name + "'; use quick or full");
  }

  public String optionName() {
    return name.toLowerCase(Locale.ROOT);
  }

  public long ramTierBytes() {
    return ramTierMiB << 20;
  }

  /** Bytes of record values YCSB loads for a dataset. */
  public long dataBytes(Dataset d) {
    return (d == Dataset.FITS_RAM ? fitsRamMiB : exceedsRamMiB) << 20;
  }

  /** Records YCSB loads for a dataset ({@link #RECORD_BYTES} each). */
  public long records(Dataset d) {
    return dataBytes(d) / RECORD_BYTES;
  }

  public int regions(Dataset d) {
    return d == Dataset.FITS_RAM ? fitsRamRegions : exceedsRamRegions;
  }

  public long flushBytes() {
    return flushMiB << 20;
  }

  public long compactionThresholdBytes() {
    return thresholdMiB << 20;
  }

  public long blockBytes() {
    return blockMiB << 20;
  }

  public long walBlockBytes() {
    return walBlockMiB << 20;
  }

  public long writeBufferBytes() {
    return (long) writeBufferKiB << 10;
  }
}
