package io.strata.pcm;

/**
 * One descriptor change: what it was and what it becomes. Immutable.
 *
 * @param scope  {@link Scope#TABLE}, {@link Scope#FAMILY} or {@link Scope#FAMILY_CONFIG}
 * @param family the family, null for a table value
 * @param key    the descriptor value, family attribute or family configuration key
 * @param before the value before, null when it was unset (HBase's or the site's default)
 * @param after  the value after, null to unset it
 */
public record Change(Scope scope, String family, String key, String before, String after) {

  /** Where, for logs and reports: {@code table MAX_FILESIZE} or {@code family f BLOCKSIZE}. */
  public String where() {
    switch (scope) {
      case TABLE:
        return "table " + key;
      case FAMILY:
        return "family " + family + " " + key;
      default:
        return "family " + family + " CONFIGURATION " + key;
    }
  }

  /** The same change, undone. */
  public Change inverse() {
    return new Change(scope, family, key, after, before);
  }
}
