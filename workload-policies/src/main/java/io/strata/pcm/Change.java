package io.strata.pcm;

import java.util.Objects;

/**
 * One descriptor change: what it was and what it becomes. Immutable.
 *
 * @param scope  {@link Scope#TABLE}, {@link Scope#FAMILY} or {@link Scope#FAMILY_CONFIG}
 * @param family the family, null for a table value
 * @param key    the descriptor value, family attribute or family configuration key
 * @param before the value before, null when it was unset (HBase's or the site's default)
 * @param after  the value after, null to unset it
 */
public final class Change {
  private final Scope scope;
  private final String family;
  private final String key;
  private final String before;
  private final String after;

  public Change(Scope scope, String family, String key, String before, String after) {
    this.scope = scope;
    this.family = family;
    this.key = key;
    this.before = before;
    this.after = after;
  }

  public Scope scope() {
    return scope;
  }

  public String family() {
    return family;
  }

  public String key() {
    return key;
  }

  public String before() {
    return before;
  }

  public String after() {
    return after;
  }

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

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof Change)) {
      return false;
    }
    Change o = (Change) other;
    return Objects.equals(scope, o.scope)
      && Objects.equals(family, o.family)
      && Objects.equals(key, o.key)
      && Objects.equals(before, o.before)
      && Objects.equals(after, o.after);
  }

  @Override
  public int hashCode() {
    return Objects.hash(scope, family, key, before, after);
  }

  @Override
  public String toString() {
    return "Change[scope=" + scope + ", family=" + family + ", key=" + key + ", before=" + before +
      ", after=" + after + "]";
  }
}
