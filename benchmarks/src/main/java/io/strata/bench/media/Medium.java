package io.strata.bench.media;

import java.time.Duration;
import org.apache.hadoop.fs.StorageType;

/**
 * The storage media of the storage-media paper, as this benchmark emulates them on one machine.
 * The figures are the paper's own (its Table 13 and its 4 KiB access latencies): RAM is a
 * RAM-backed directory at the machine's speed; SSD and HDD are ordinary directories whose
 * DataNode I/O is slowed to the device's access latency per operation and capped at its write
 * bandwidth.
 *
 * <p>The storage-media paper: <i>Optimize Hadoop Cluster Performance with Various Storage Media</i>.
 */
public enum Medium {
  /** RAMDISK: HDFS's NVDIMM type on tmpfs, not slowed (the paper: >11 GB/s, 89 ns per 4 KiB). */
  RAM("ALL_NVDIMM", Duration.ZERO, 0),
  /** SATA SSD (Intel S3500): 80 µs per 4 KiB access, 446 MB/s write. */
  SSD("ALL_SSD", Duration.ofNanos(80_000), 446_000_000L),
  /** 7200 rpm HDD (Seagate ST2000NM0011): 6.7 ms per 4 KiB access, 127 MB/s write. */
  HDD("HOT", Duration.ofNanos(6_700_000), 127_000_000L);

  private final String policy;
  private final Duration perOperation;
  private final long bytesPerSecond;

  Medium(String policy, Duration perOperation, long bytesPerSecond) {
    this.policy = policy;
    this.perOperation = perOperation;
    this.bytesPerSecond = bytesPerSecond;
  }

  /** The HDFS storage policy that keeps every replica on this medium. */
  public String policy() {
    return policy;
  }

  /** Delay added to every DataNode I/O operation on a volume of this medium. */
  public Duration perOperation() {
    return perOperation;
  }

  /** Bandwidth cap of one volume of this medium (bytes/s, decimal MB as in the paper); 0: none. */
  public long bytesPerSecond() {
    return bytesPerSecond;
  }

  /** Whether volumes of this medium are slowed at all. */
  public boolean emulated() {
    return !perOperation.isZero() || bytesPerSecond > 0;
  }

  /**
   * The medium a DataNode volume of this storage type stands for: NVDIMM is the RAM tier, DISK
   * and ARCHIVE are both HDDs (the paper keeps archived files on HDD).
   */
  public static Medium of(StorageType type) {
    switch (type) {
      case NVDIMM:
      case RAM_DISK:
        return RAM;
      case SSD:
        return SSD;
      default:
        return HDD;
    }
  }
}
