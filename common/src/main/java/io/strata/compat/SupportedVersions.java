package io.strata.compat;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * The one place that names the Hadoop and HBase releases Strata supports: exactly the ones it is
 * built and tested against. The values come from {@code supported-versions.properties}, which
 * Maven fills in from the parent pom's {@code hadoop.version} and {@code hbase.version}, so they
 * cannot drift from the build. Exact releases, not ranges: the HDFS overlay is whole Hadoop
 * classes patched from that release's sources, and the hybrid RPC classes live in HBase's
 * {@code ipc} package and use its package-private API, so another release (an earlier or later
 * patch release, or a vendor build of the same one) may fail with {@code NoSuchMethodError} or
 * behave differently. {@link VersionCheck} compares the running versions with these.
 */
public final class SupportedVersions {
  private static final String RESOURCE = "supported-versions.properties";

  /** The Hadoop release, as {@code org.apache.hadoop.util.VersionInfo.getVersion()} reports it. */
  public static final String HADOOP;

  /**
   * The HBase release, as {@code org.apache.hadoop.hbase.util.VersionInfo.getVersion()} reports
   * it: the hadoop3 build of HBase, whose version carries the {@code -hadoop3} suffix.
   */
  public static final String HBASE;

  static {
    Properties p = new Properties();
    try (InputStream in = SupportedVersions.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("io/strata/compat/" + RESOURCE + " is missing from "
          + "strata-common's jar: the jar is damaged or was not built by Maven");
      }
      p.load(in);
    } catch (IOException e) {
      throw new IllegalStateException("Cannot read io/strata/compat/" + RESOURCE, e);
    }
    HADOOP = required(p, "hadoop");
    HBASE = required(p, "hbase");
  }

  private SupportedVersions() {
  }

  private static String required(Properties p, String name) {
    String v = p.getProperty(name);
    if (v == null || v.trim().isEmpty() || v.contains("${")) {
      throw new IllegalStateException("io/strata/compat/" + RESOURCE + " has no " + name
        + " version ('" + v + "'): the jar was not built by Maven with resource filtering");
    }
    return v.trim();
  }
}
