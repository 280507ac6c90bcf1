package io.strata.bench.pcm;

import io.strata.pcm.WorkloadClass;
import java.util.List;

/**
 * A workload's operation mix, as YCSB's CoreWorkload proportions, and the PCM class it should be
 * classified as by the paper's definitions (Sec. II-A: by the share of read and write requests).
 * A read-modify-write is a read and a write. Immutable.
 *
 * @param name     the YCSB workload (A to F) or the paper's name
 * @param insert   share of inserts of new records
 * @param update   share of updates of one field of an existing record
 * @param read     share of point reads of a whole record
 * @param scan     share of range reads of 1 to {@link LoadDriver#MAX_SCAN_LENGTH} records
 * @param rmw      share of read-modify-writes
 * @param expected the class the paper's definitions give the mix
 */
public record Mix(String name, double insert, double update, double read, double scan, double rmw,
  WorkloadClass expected) {

  public Mix {
    double sum = insert + update + read + scan + rmw;
    if (Math.abs(sum - 1) > 1e-9) {
      throw new IllegalArgumentException("mix " + name + ": proportions add up to " + sum);
    }
  }

  /** The paper's bulk load: inserts into an empty table. */
  public static final Mix BULK_LOAD = new Mix("BL", 1, 0, 0, 0, 0, WorkloadClass.BL);
  public static final Mix WO_UPDATE = new Mix("WO-Update", 0, 1, 0, 0, 0, WorkloadClass.WO_UPDATE);
  public static final Mix RO_READ = new Mix("RO-Read", 0, 0, 1, 0, 0, WorkloadClass.RO_READ);
  public static final Mix RO_SCAN = new Mix("RO-Scan", 0, 0, 0, 1, 0, WorkloadClass.RO_SCAN);
  public static final Mix MIX_RW = new Mix("MixRW", 0, 0.5, 0.5, 0, 0, WorkloadClass.MIX_RW);

  /**
   * YCSB's core workloads A to F (their shipped proportions) plus write-only insert and update:
   * A 50 % reads 50 % updates (MixRW); B 95/5 (RM); C reads only (RO-Read); D 95 % reads of
   * recent records, 5 % inserts (RM); E 95 % short scans, 5 % inserts (RM: 5 % writes); F 50 %
   * reads, 50 % read-modify-writes, i.e. two reads to one write (MixR).
   */
  public static final List<Mix> YCSB = List.of(
    new Mix("YCSB-A", 0, 0.5, 0.5, 0, 0, WorkloadClass.MIX_RW),
    new Mix("YCSB-B", 0, 0.05, 0.95, 0, 0, WorkloadClass.RM),
    new Mix("YCSB-C", 0, 0, 1, 0, 0, WorkloadClass.RO_READ),
    new Mix("YCSB-D", 0.05, 0, 0.95, 0, 0, WorkloadClass.RM),
    new Mix("YCSB-E", 0.05, 0, 0, 0.95, 0, WorkloadClass.RM),
    new Mix("YCSB-F", 0, 0, 0.5, 0, 0.5, WorkloadClass.MIX_R),
    new Mix("WO-Insert", 1, 0, 0, 0, 0, WorkloadClass.WO_INSERT),
    new Mix("WO-Update", 0, 1, 0, 0, 0, WorkloadClass.WO_UPDATE));

  /** Whether the mix only reads. */
  public boolean readOnly() {
    return insert == 0 && update == 0 && rmw == 0;
  }
}
