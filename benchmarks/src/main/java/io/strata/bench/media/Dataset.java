package io.strata.bench.media;

/**
 * The study's two dataset sizes, scaled to this machine by what matters in the study: "50G" fits
 * the RAM tier (so 50G_RAM can keep everything there), "1T" does not.
 */
public enum Dataset {
  /** The study's 50 GB: fits the RAM tier of each DataNode with its compactions. */
  FITS_RAM("50G"),
  /** The study's 1 TB: larger than the RAM tier of a DataNode. */
  EXCEEDS_RAM("1T");

  private final String studyName;

  Dataset(String studyName) {
    this.studyName = studyName;
  }

  /** The prefix of the study's case names, {@code 50G} or {@code 1T}. */
  public String studyName() {
    return studyName;
  }
}
