package io.strata.pcm;

/**
 * The workload classes of the PCM paper (Sec. II-A), each with its policy file name. Immutable.
 */
public enum WorkloadClass {
  /** Bulk load: writes only, into a table that was empty when watching began. */
  BL("BL"),
  /** Write-only inserts (InsertProportion = 100 %). */
  WO_INSERT("WO-Insert"),
  /** Write-only updates (UpdateProportion = 100 %). */
  WO_UPDATE("WO-Update"),
  /** Write-mostly: under 10 % reads. */
  WM("WM"),
  /** Read/write mix with more writes: 60 to 90 % writes. */
  MIX_W("MixW"),
  /** Read/write mix with similar shares: 40 to 60 % reads. */
  MIX_RW("MixRW"),
  /** Read/write mix with more reads: 60 to 90 % reads. */
  MIX_R("MixR"),
  /** Read-mostly: under 10 % writes. */
  RM("RM"),
  /** Read-only point reads. */
  RO_READ("RO-Read"),
  /** Read-only range reads. */
  RO_SCAN("RO-Scan");

  private final String label;

  WorkloadClass(String label) {
    this.label = label;
  }

  /** The paper's name, also the policy file's base name. */
  public String label() {
    return label;
  }

  /** The class named {@code label} (the paper's spelling, case-insensitive), or null. */
  public static WorkloadClass fromLabel(String label) {
    for (WorkloadClass c : values()) {
      if (c.label.equalsIgnoreCase(label)) {
        return c;
      }
    }
    return null;
  }

  @Override
  public String toString() {
    return label;
  }
}
