package io.strata.compat;

/**
 * A Strata plug-in refused to start on a Hadoop or HBase release other than the supported one
 * ({@link SupportedVersions}); the message names the plug-in, both versions and the key that
 * allows it. Unchecked, so that it passes through the plug-in points' constructors and
 * {@code setConf} methods and stops the daemon that loads the plug-in.
 */
public final class UnsupportedVersionException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  public UnsupportedVersionException(String message) {
    super(message);
  }
}
