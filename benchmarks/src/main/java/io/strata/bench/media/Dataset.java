package io.strata.bench.media;

/**
 * The paper's two dataset sizes, scaled to this machine by what matters in the paper: "50G" fits
 * the RAM tier (so 50G_RAM can keep everything there), "1T" does not.
 *
 * <p>The storage-media paper: <i>Optimize Hadoop Cluster Performance with Various Storage Media</i>.
 */
public enum Dataset {
  /** The paper's 50 GB: fits the RAM tier of each DataNode with its compactions. */
  FITS_RAM("50G"),
  /** The paper's 1 TB: larger than the RAM tier of a DataNode. */
  EXCEEDS_RAM("1T");

  private final String studyName;

  Dataset(String studyName) {
    this.studyName = studyName;
  }

  /** The prefix of the paper's case names, {@code 50G} or {@code 1T}. */
  public String studyName() {
    return studyName;
  }
}
